// Mixtures of experts on the device against the host reference: the expert-indexed products, the
// router and the weighted sum in qwen3moe (F32, Q8_0, Q4_K_M, Q3_K_M: 32 greedy steps with their
// logits),
// qwen2moe's shared expert and llama's (Mixtral's) experts, fused gate/up expert stacks, passes of
// 32 and 512 tokens whose teacher-forced logits match the reference's token by token; and the
// experts in host memory
// (--cpu-moe, --n-cpu-moe 1) with attention and the KV cache on the device, at micro-batches 1,
// 32 and 512.
#include "device_fixture.h"
#include "engine/device/profile_check.h"
#include "engine/make_decoder.h"
#include "tests/engine_device/split_check.h"

namespace gauntlet::engine::test {
namespace {

using model::FileType;

// Rows of 256 so that every k-quant runs; 8 experts (llama.cpp's quantizer rules for exactly 8
// apply), 2 used.
model::ModelShape moe_shape(const std::string& arch) {
  auto s = model::parse_dims(arch +
                             ",n_embd=256,n_layer=2,n_head=4,n_head_kv=2,head_dim=64,n_ff=512,"
                             "n_expert=8,n_expert_used=2,n_vocab=256,context=640");
  EXPECT_TRUE(s.is_ok()) << s.error().describe();
  s->name = "moe-" + std::string(s->traits().name);
  return *s;
}

class EngineExperts : public DeviceAndHostTest {
 protected:
  void expect_decode(const model::ModelShape& shape, FileType format) {
    SCOPED_TRACE(shape.name + " " + model::to_string(format));
    auto file = synthetic_file(shape, format);
    ASSERT_NE(file, nullptr);
    auto config =
        device::default_config(device().info(), device().info().local_mem_size, shape, format);
    config.weights = format;
    expect_decode_check_matches(device(), *file, config, {1, 7, 42}, 32);
  }
};

TEST_F(EngineExperts, Qwen3moeGivesTheReferenceTokensInDeployedFormats) {
  for (FileType format : {FileType::f32, FileType::q8_0, FileType::q4_K_M, FileType::q3_K_M}) {
    expect_decode(moe_shape("arch=qwen3moe,n_ff_exp=256"), format);
  }
}

TEST_F(EngineExperts, SharedExpertAndMixtralLayoutGiveTheReferenceTokens) {
  expect_decode(moe_shape("arch=qwen2moe,n_ff_exp=256,n_ff_shexp=512"), FileType::q8_0);
  expect_decode(moe_shape("arch=llama"), FileType::q4_K_M);
}

// A file with each layer's gate and up experts in one ffn_gate_up_exps stack: one token at a
// time, in passes of 32 tokens, and with the experts in host memory.
TEST_F(EngineExperts, FusedGateUpStacksGiveTheReference) {
  const auto shape = moe_shape("arch=qwen3moe,n_ff_exp=256,fused_gate_up=1");
  expect_decode(shape, FileType::q4_K_M);
  auto file = synthetic_file(shape, FileType::q8_0);
  ASSERT_NE(file, nullptr);
  expect_split_matches_reference(placement::whole(shape.n_layer, device().name()), {&device()},
                                 *file, 32);
  backends::Device* devices[] = {&device()};
  PlacementRequest request;
  request.n_cpu_moe = 1;
  auto placed = place(shape, request, devices, host_.get());
  ASSERT_TRUE(placed.is_ok()) << placed.error().describe();
  expect_split_matches_reference(placed->placement, placed->devices, *file, 32);
}

TEST_F(EngineExperts, PassesOf32And512TokensGiveTheReferenceLogits) {
  const auto shape = moe_shape("arch=qwen3moe,n_ff_exp=256");
  auto file = synthetic_file(shape, FileType::q8_0);
  ASSERT_NE(file, nullptr);
  for (uint32_t micro_batch : {32u, 512u}) {
    SCOPED_TRACE("ub " + std::to_string(micro_batch));
    expect_split_matches_reference(placement::whole(shape.n_layer, device().name()), {&device()},
                                   *file, micro_batch);
  }
}

// --cpu-moe puts every layer's experts in host memory, --n-cpu-moe 1 the first layer's; the
// router, the attention and the KV cache stay on the device. Each placement meets each
// micro-batch, the formats taking turns.
TEST_F(EngineExperts, ExpertsInHostMemoryGiveTheReferenceAtEveryMicroBatch) {
  const auto shape = moe_shape("arch=qwen3moe,n_ff_exp=256");
  const std::tuple<FileType, uint32_t, uint32_t> cases[] = {
      {FileType::q4_K_M, UINT32_MAX, 1}, {FileType::q8_0, UINT32_MAX, 32},
      {FileType::f32, UINT32_MAX, 512},  {FileType::f32, 1, 1},
      {FileType::q4_K_M, 1, 32},         {FileType::q8_0, 1, 512}};
  backends::Device* devices[] = {&device()};
  for (const auto& [format, n_cpu_moe, micro_batch] : cases) {
    auto file = synthetic_file(shape, format);
    ASSERT_NE(file, nullptr);
    PlacementRequest request;
    request.n_cpu_moe = n_cpu_moe;
    auto placed = place(shape, request, devices, host_.get());
    ASSERT_TRUE(placed.is_ok()) << placed.error().describe();
    ASSERT_FALSE(placed->placement.whole());
    SCOPED_TRACE(std::string(model::to_string(format)) + " " + placed->placement.describe() +
                 " ub " + std::to_string(micro_batch));
    EXPECT_NE(placed->placement.describe().find("on the host"), std::string::npos);
    expect_split_matches_reference(placed->placement, placed->devices, *file, micro_batch);
  }
}

}  // namespace
}  // namespace gauntlet::engine::test
