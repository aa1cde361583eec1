// Granite 4.0-H (granitehybrid) on the device against the host reference: Mamba2 and attention
// layers each with a SwiGLU feed-forward, Granite's four multipliers, with and without RoPE; 32
// greedy tokens with their logits in F32, Q8_0 and Q4_K_M; passes of 1, 32, 33 and 512 tokens; 4
// sequences; with experts (softmax-routed, a shared expert added as it is), also in host memory.
#include "device_fixture.h"
#include "engine/make_decoder.h"
#include "tests/engine_device/split_check.h"

namespace gauntlet::engine::test {
namespace {

using model::FileType;

model::ModelShape granite(const std::string& extra = "") {
  auto s = model::parse_dims(
      "arch=granitehybrid,n_layer=4,layers=M*MM,n_embd=256,n_head=4,n_head_kv=2,n_ff=256,"
      "n_vocab=256,context=640,embedding_scale=1.5,residual_scale=0.7,attention_scale=0.2,"
      "logit_scale=0.5" +
      extra);
  EXPECT_TRUE(s.is_ok()) << s.error().describe();
  s->name = "hybrid-granite";
  return *s;
}

class EngineGraniteHybrid : public DeviceAndHostTest {};

TEST_F(EngineGraniteHybrid, GreedyTokensAndLogitsAreTheReferencesInEveryFormat) {
  for (FileType format : {FileType::f32, FileType::q8_0, FileType::q4_K_M}) {
    SCOPED_TRACE(model::to_string(format));
    auto file = synthetic_file(granite(",rope=0"), format);
    ASSERT_NE(file, nullptr);
    expect_greedy_decode_matches(device(), *file, granite(",rope=0"), format);
  }
  auto file = synthetic_file(granite(), FileType::f32);  // with RoPE
  ASSERT_NE(file, nullptr);
  expect_greedy_decode_matches(device(), *file, granite(), FileType::f32);
}

TEST_F(EngineGraniteHybrid, PassesOf1And32And33And512TokensAndFourSequences) {
  auto file = synthetic_file(granite(), FileType::q8_0);
  ASSERT_NE(file, nullptr);
  for (uint32_t micro_batch : {1u, 32u, 33u, 512u}) {
    SCOPED_TRACE("ub " + std::to_string(micro_batch));
    expect_split_matches_reference(placement::whole(4, device().name()), {&device()}, *file,
                                   micro_batch);
  }
  expect_sequences_match_reference(placement::whole(4, device().name()), {&device()}, *file, 4);
}

TEST_F(EngineGraniteHybrid, ExpertsOnTheDeviceAndInHostMemory) {
  const auto shape = granite(",rope=0,n_expert=8,n_expert_used=2,n_ff_exp=256,n_ff_shexp=256");
  for (FileType format : {FileType::f32, FileType::q4_K_M}) {
    SCOPED_TRACE(model::to_string(format));
    auto file = synthetic_file(shape, format);
    ASSERT_NE(file, nullptr);
    expect_greedy_decode_matches(device(), *file, shape, format);
  }
  auto file = synthetic_file(shape, FileType::q8_0);
  ASSERT_NE(file, nullptr);
  backends::Device* devices[] = {&device()};
  PlacementRequest request;
  request.n_cpu_moe = UINT32_MAX;
  auto placed = place(shape, request, devices, host_.get());
  ASSERT_TRUE(placed.is_ok()) << placed.error().describe();
  expect_split_matches_reference(placed->placement, placed->devices, *file, 32);
}

}  // namespace
}  // namespace gauntlet::engine::test
