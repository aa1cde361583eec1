// Qwen3-VL's text decoder (qwen3vl) on the device against the host reference: qwen3's layer with
// IMROPE over the whole head by rope.dimension_sections (its angles in the rotary table, so the
// kernels are qwen3's); 32 greedy tokens with their logits in F32, Q8_0 and Q4_K_M; every token's
// logits of a prompt fed in passes of 1, 65 and 512 tokens; 4 sequences decoded together.
#include "device_fixture.h"
#include "engine/device/profile_check.h"
#include "engine/make_decoder.h"
#include "tests/engine_device/split_check.h"

namespace gauntlet::engine::test {
namespace {

using model::FileType;

model::ModelShape qwen3vl() {
  auto s = model::parse_dims(
      "arch=qwen3vl,n_embd=128,n_layer=2,n_head=2,n_head_kv=1,head_dim=64,n_ff=256,n_vocab=256,"
      "context=640,rope_sections=12:10:10:0,deepstack=1");
  EXPECT_TRUE(s.is_ok()) << s.error().describe();
  s->name = "qwen3vl-text";
  return *s;
}

class EngineQwen3Vl : public DeviceAndHostTest {};

TEST_F(EngineQwen3Vl, GreedyTokensAndLogitsAreTheReferencesInEveryFormat) {
  const auto shape = qwen3vl();
  for (FileType format : {FileType::f32, FileType::q8_0, FileType::q4_K_M}) {
    SCOPED_TRACE(model::to_string(format));
    auto file = synthetic_file(shape, format);
    ASSERT_NE(file, nullptr);
    expect_greedy_decode_matches(device(), *file, shape, format);
  }
}

// 70 tokens in passes of 1 and 65; 520 in passes of 512.
TEST_F(EngineQwen3Vl, PassesOf1And65And512TokensGiveTheReferenceLogits) {
  const auto shape = qwen3vl();
  auto file = synthetic_file(shape, FileType::f32);
  ASSERT_NE(file, nullptr);
  for (uint32_t micro_batch : {1u, 65u, 512u}) {
    SCOPED_TRACE("ub " + std::to_string(micro_batch));
    expect_split_matches_reference(placement::whole(shape.n_layer, device().name()), {&device()},
                                   *file, micro_batch);
  }
}

TEST_F(EngineQwen3Vl, FourSequencesDecodedTogetherGiveTheirOwnDecodes) {
  const auto shape = qwen3vl();
  auto file = synthetic_file(shape, FileType::q8_0);
  ASSERT_NE(file, nullptr);
  expect_sequences_match_reference(placement::whole(shape.n_layer, device().name()), {&device()},
                                   *file, 4);
}

}  // namespace
}  // namespace gauntlet::engine::test
