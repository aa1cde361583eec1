// Poolside's Laguna (laguna) on the device against the host reference: per-layer query heads, the
// per-head softplus gate, YaRN on the global layer and plain RoPE on the sliding ones, a leading
// dense layer and sigmoid-routed experts with their selection bias, renormalised and scaled, beside
// a shared expert: greedy tokens and logits in F32, Q8_0 and Q4_K_M; every token's logits in passes
// of 1, 32 and 512; 4 sequences decoded together; the layers split between the host and the device.
#include "device_fixture.h"
#include "tests/engine_device/split_check.h"

namespace gauntlet::engine::test {
namespace {

using model::FileType;

// Rows of 256 so that every k-quant runs; layer 0 global and dense, 1-3 sliding over 8 positions.
model::ModelShape laguna() {
  auto s = model::parse_dims(
      "arch=laguna,n_embd=256,n_layer=4,n_head=4,n_head_swa=8,n_head_kv=2,head_dim=64,"
      "rope_dim=32,n_ff=512,n_vocab=256,context=640,window=8,n_expert=8,n_expert_used=2,"
      "n_ff_exp=256,n_ff_shexp=256,dense_lead=1,expert_norm=1,expert_scale=2.5,yarn_factor=4,"
      "yarn_orig_ctx=64,rope_freq_base_swa=10000,rope_dim_swa=64");
  EXPECT_TRUE(s.is_ok()) << s.error().describe();
  s->name = "laguna";
  return *s;
}

class EngineLaguna : public DeviceAndHostTest {};

TEST_F(EngineLaguna, GreedyTokensAndLogitsAreTheReferencesInEveryFormat) {
  for (FileType format : {FileType::f32, FileType::q8_0, FileType::q4_K_M}) {
    SCOPED_TRACE(model::to_string(format));
    auto file = synthetic_file(laguna(), format);
    ASSERT_NE(file, nullptr);
    expect_greedy_decode_matches(device(), *file, laguna(), format);
  }
}

TEST_F(EngineLaguna, PassesOf1And32And512TokensGiveTheReferenceLogits) {
  auto file = synthetic_file(laguna(), FileType::f32);
  ASSERT_NE(file, nullptr);
  expect_passes_of_1_32_512_match_reference(device(), *file, 4);
}

TEST_F(EngineLaguna, FourSequencesDecodeTogether) {
  const auto shape = laguna();
  auto file = synthetic_file(shape, FileType::q8_0);
  ASSERT_NE(file, nullptr);
  expect_sequences_match_reference(placement::whole(shape.n_layer, device().name()), {&device()},
                                   *file, 4);
}

// -ngl 3: layers 0 (global, dense) and 1 (sliding, experts) on the host, 2, 3 and the output on
// the device.
TEST_F(EngineLaguna, HostThenDeviceSplitGivesTheReference) {
  const auto shape = laguna();
  auto file = synthetic_file(shape, FileType::q8_0);
  ASSERT_NE(file, nullptr);
  expect_host_then_device_split_matches(device(), *host_, *file, shape.n_layer, 3);
}

}  // namespace
}  // namespace gauntlet::engine::test
