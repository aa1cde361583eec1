// Nemotron-H's Mamba2 hybrid (nemotron_h) on the device against the host reference: the Mamba2
// blocks' conv and scan on each sequence's states beside an attention layer without RoPE and
// squared-ReLU feed-forward layers; 32 greedy tokens with their logits in F32, Q8_0 and Q4_K_M;
// every token's logits of a prompt fed in passes of 1, 32, 33 and 512 tokens (the states carried
// across pass boundaries); 4 sequences decoded together, each against its own decode; the layers
// split between the host and the device; nemotron_h_moe (ungated experts picked by sigmoid with
// their selection bias, renormalised and scaled, and an ungated shared expert) in F32 and Q4_K_M,
// in passes of 1, 32, 33 and 512, with 4 sequences, and with its experts in host memory
// (--cpu-moe).
#include "device_fixture.h"
#include "engine/make_decoder.h"
#include "tests/engine_device/split_check.h"

namespace gauntlet::engine::test {
namespace {

using model::FileType;

// Rows of 256 so that every k-quant runs: Mamba2, feed-forward, Mamba2, attention, Mamba2,
// feed-forward (or, where a test feeds hundreds of tokens, Mamba2, attention, feed-forward).
model::ModelShape nemotron_h(const std::string& layers = "M-M*M-") {
  auto s = model::parse_dims("arch=nemotron_h,n_layer=" + std::to_string(layers.size()) +
                             ",layers=" + layers +
                             ",n_embd=256,n_head=4,n_head_kv=2,n_ff=256,n_vocab=256,context=640");
  EXPECT_TRUE(s.is_ok()) << s.error().describe();
  s->name = "hybrid-nemotron-h";
  return *s;
}

class EngineNemotronH : public DeviceAndHostTest {};

model::ModelShape nemotron_h_moe(const std::string& layers = "MEM*ME") {
  auto s = model::parse_dims(
      "arch=nemotron_h_moe,n_layer=" + std::to_string(layers.size()) + ",layers=" + layers +
      ",n_embd=256,n_head=4,n_head_kv=2,n_ff=256,n_vocab=256,context=640,n_expert=8,"
      "n_expert_used=2,n_ff_exp=256,n_ff_shexp=256,expert_norm=1,expert_scale=2.5");
  EXPECT_TRUE(s.is_ok()) << s.error().describe();
  s->name = "hybrid-nemotron-h-moe";
  return *s;
}

TEST_F(EngineNemotronH, GreedyTokensAndLogitsAreTheReferencesInEveryFormat) {
  for (FileType format : {FileType::f32, FileType::q8_0, FileType::q4_K_M}) {
    SCOPED_TRACE(model::to_string(format));
    auto file = synthetic_file(nemotron_h(), format);
    ASSERT_NE(file, nullptr);
    expect_greedy_decode_matches(device(), *file, nemotron_h(), format);
  }
}

TEST_F(EngineNemotronH, MoeGivesTheReferenceTokensLogitsAndPasses) {
  for (FileType format : {FileType::f32, FileType::q4_K_M}) {
    SCOPED_TRACE(model::to_string(format));
    auto file = synthetic_file(nemotron_h_moe(), format);
    ASSERT_NE(file, nullptr);
    expect_greedy_decode_matches(device(), *file, nemotron_h_moe(), format);
  }
  auto file = synthetic_file(nemotron_h_moe(), FileType::q8_0);
  ASSERT_NE(file, nullptr);
  expect_split_matches_reference(placement::whole(6, device().name()), {&device()}, *file, 32);
  expect_sequences_match_reference(placement::whole(6, device().name()), {&device()}, *file, 4);
  auto short_file = synthetic_file(nemotron_h_moe("M*E"), FileType::f32);
  ASSERT_NE(short_file, nullptr);
  for (uint32_t micro_batch : {1u, 33u, 512u}) {
    SCOPED_TRACE("ub " + std::to_string(micro_batch));
    expect_split_matches_reference(placement::whole(3, device().name()), {&device()}, *short_file,
                                   micro_batch);
  }
}

// --cpu-moe: every layer's routed experts in host memory, run there, the rest on the device.
TEST_F(EngineNemotronH, MoeWithItsExpertsOnTheHostGivesTheReference) {
  auto file = synthetic_file(nemotron_h_moe(), FileType::q8_0);
  ASSERT_NE(file, nullptr);
  backends::Device* devices[] = {&device()};
  PlacementRequest request;
  request.n_cpu_moe = UINT32_MAX;
  auto placed = place(nemotron_h_moe(), request, devices, host_.get());
  ASSERT_TRUE(placed.is_ok()) << placed.error().describe();
  EXPECT_NE(placed->placement.describe().find("on the host"), std::string::npos);
  expect_split_matches_reference(placed->placement, placed->devices, *file, 32);
}

TEST_F(EngineNemotronH, PassesOf1And32And33And512TokensGiveTheReferenceLogits) {
  auto file = synthetic_file(nemotron_h("M*-"), FileType::f32);
  ASSERT_NE(file, nullptr);
  for (uint32_t micro_batch : {1u, 32u, 33u, 512u}) {
    SCOPED_TRACE("ub " + std::to_string(micro_batch));
    expect_split_matches_reference(placement::whole(3, device().name()), {&device()}, *file,
                                   micro_batch);
  }
}

TEST_F(EngineNemotronH, FourSequencesKeepTheirOwnState) {
  const auto shape = nemotron_h();
  auto file = synthetic_file(shape, FileType::q8_0);
  ASSERT_NE(file, nullptr);
  expect_sequences_match_reference(placement::whole(shape.n_layer, device().name()), {&device()},
                                   *file, 4);
}

// -ngl 4: layers 0-2 (Mamba2, feed-forward, Mamba2) on the host, 3-5 and the output on the
// device; each side keeps the states of its own Mamba2 layers.
TEST_F(EngineNemotronH, HostThenDeviceSplitGivesTheReference) {
  const auto shape = nemotron_h();
  auto file = synthetic_file(shape, FileType::q8_0);
  ASSERT_NE(file, nullptr);
  expect_host_then_device_split_matches(device(), *host_, *file, shape.n_layer, 4);
}

}  // namespace
}  // namespace gauntlet::engine::test
