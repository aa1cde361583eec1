// The fit answers (field case 5 with real shapes): which formats of a preset fit a budget, and up
// to which context.
#include "harness/fit.h"

#include <gtest/gtest.h>

#include "engine/placement/deployment.h"
#include "engine/placement/expert_placement.h"
#include "engine/planner/planner.h"

namespace gauntlet::harness {
namespace {

using engine::model::FileType;

reports::FitAnswer fit_of(const std::string& preset, FileType format, uint64_t budget) {
  const auto shape = engine::model::preset_shape(preset).value();
  const auto tensors = engine::model::model_tensors(shape, format);
  return fit_format(shape, format, tensors, {budget, "test"});
}

// What llama.cpp would hold on the device with the last `slots` layer slots there, and the
// routed experts of the first `expert_layers` layers in host memory.
uint64_t device_bytes(const std::string& preset, FileType format, uint32_t slots, uint32_t context,
                      uint32_t expert_layers = 0) {
  const auto shape = engine::model::preset_shape(preset).value();
  const auto tensors = engine::model::model_tensors(shape, format);
  auto p = engine::placement::from_gpu_layers(
      shape.n_layer, {static_cast<int>(slots), {"device"}, {}, engine::placement::kHost});
  if (expert_layers > 0) {
    EXPECT_TRUE(engine::placement::experts_on_host(*p, shape, expert_layers));
  }
  return engine::placement::deployment_bytes(shape, tensors, *p, {context, 512, 1})[0].total();
}

// A 16 GiB card (arc-16g): a standard level's budget is 0.9 * 0.9 * 16 GiB.
TEST(Fit, Llama31On16GiBQ4KMFitsWithItsContextF16IsPlacedAcrossTheHost) {
  const uint64_t budget = static_cast<uint64_t>((16ull << 30) * 0.81);
  const auto q4 = fit_of("llama-3.1-8b", FileType::q4_K_M, budget);
  ASSERT_GT(q4.largest_context, 4096u);
  EXPECT_FALSE(q4.placement.has_value());
  EXPECT_EQ(q4.largest_context % 256, 0u);
  EXPECT_LT(q4.largest_context, 131072u);
  // The answer is the largest: it fits, 256 more does not.
  EXPECT_LE(device_bytes("llama-3.1-8b", FileType::q4_K_M, 33, q4.largest_context), budget);
  EXPECT_GT(device_bytes("llama-3.1-8b", FileType::q4_K_M, 33, q4.largest_context + 256), budget);
  // Llama 3.1 8B keeps 8 KV heads of 128: 128 KiB of f16 KV cache per position.
  const uint64_t kv_per_position = 2ull * 32 * 8 * 128 * 2;
  EXPECT_EQ(q4.kv_bytes, kv_per_position * q4.largest_context);

  const auto q8 = fit_of("llama-3.1-8b", FileType::q8_0, budget);
  EXPECT_GT(q8.largest_context, 0u);
  EXPECT_LT(q8.largest_context, q4.largest_context);

  // F16 (15 GiB of weights) does not fit whole: at context 4096, the most layer slots that fit.
  const auto f16 = fit_of("llama-3.1-8b", FileType::f16, budget);
  ASSERT_TRUE(f16.placement.has_value()) << f16.why;
  const auto& p = *f16.placement;
  EXPECT_EQ(p.layer_slots, 33u);
  EXPECT_EQ(p.context, 4096u);
  EXPECT_EQ(f16.largest_context, 4096u);
  ASSERT_GT(p.device_slots, 20u);
  ASSERT_LT(p.device_slots, 33u);
  EXPECT_LE(device_bytes("llama-3.1-8b", FileType::f16, p.device_slots, 4096), budget);
  EXPECT_GT(device_bytes("llama-3.1-8b", FileType::f16, p.device_slots + 1, 4096), budget);
  ASSERT_EQ(p.bytes.size(), 2u);
  EXPECT_EQ(p.bytes[0].second, f16.planned_bytes);
  EXPECT_GT(p.bytes[1].second, 1ull << 30);  // the host's layers and the input embedding
}

TEST(Fit, TheWholeTrainedContextAndNotOneLayer) {
  const auto small = fit_of("qwen2.5-0.5b", FileType::q8_0, 16ull << 30);
  EXPECT_EQ(small.largest_context, 32768u);
  EXPECT_EQ(small.why, "the whole trained context fits");
  // 64 MiB: not one layer of qwen3-0.6b beside its compute buffer.
  const auto tight = fit_of("qwen3-0.6b", FileType::f16, 64ull << 20);
  EXPECT_EQ(tight.largest_context, 0u);
  EXPECT_FALSE(tight.placement.has_value());
  EXPECT_NE(tight.why.find("not one layer fits"), std::string::npos) << tight.why;
}

// Qwen3-30B-A3B in Q4_K_M (about 17 GiB of weights, every expert counted) does not fit a 16 GiB
// card whole: every layer stays on the device and the experts of the fewest first layers go to
// the host, as --fit parks experts before it gives up layers.
TEST(Fit, AMixtureThatDoesNotFitWholeParksTheFirstLayersExpertsOnTheHost) {
  const uint64_t budget = static_cast<uint64_t>((16ull << 30) * 0.81);
  const auto q4 = fit_of("qwen3-30b-a3b", FileType::q4_K_M, budget);
  ASSERT_TRUE(q4.placement.has_value()) << q4.why;
  const auto& p = *q4.placement;
  EXPECT_EQ(p.device_slots, 49u);  // 48 layers and the output layer
  EXPECT_EQ(p.layer_slots, 49u);
  ASSERT_GT(p.expert_layers_on_host, 0u);
  ASSERT_LT(p.expert_layers_on_host, 48u);
  const uint32_t n = p.expert_layers_on_host;
  EXPECT_LE(device_bytes("qwen3-30b-a3b", FileType::q4_K_M, 49, p.context, n), budget);
  EXPECT_GT(device_bytes("qwen3-30b-a3b", FileType::q4_K_M, 49, p.context, n - 1), budget);
  ASSERT_EQ(p.bytes.size(), 2u);
  EXPECT_EQ(p.bytes[0].second, q4.planned_bytes);
  // The host holds n layers' expert stacks: 128 experts of 3 matrices 2048 x 768 each.
  EXPECT_GT(p.bytes[1].second, n * 128ull * 3 * 2048 * 768 / 2);
  EXPECT_NE(q4.why.find("--n-cpu-moe " + std::to_string(n)), std::string::npos) << q4.why;
}

// Qwen3.6-27B on a 16 GiB card (`run --shape qwen3.6-27b --simulate arc-16g`): no format fits
// whole, so each is placed at context 4096 with the most layer slots that fit, the device holding
// the KV cache of its attention layers and the recurrent state of its recurrent layers. Q4_K_M's
// 15.4 GiB take 53 of 65 slots; the answer's state is the whole model's 149.6 MiB per sequence.
TEST(Fit, Qwen36_27bOn16GiBIsPlacedWithItsRecurrentState) {
  const uint64_t budget = static_cast<uint64_t>((16ull << 30) * 0.81);
  const auto q4 = fit_of("qwen3.6-27b", FileType::q4_K_M, budget);
  ASSERT_TRUE(q4.placement.has_value()) << q4.why;
  EXPECT_EQ(q4.placement->layer_slots, 65u);
  EXPECT_EQ(q4.placement->context, 4096u);
  EXPECT_EQ(q4.placement->device_slots, 53u);
  EXPECT_LE(device_bytes("qwen3.6-27b", FileType::q4_K_M, 53, 4096), budget);
  EXPECT_GT(device_bytes("qwen3.6-27b", FileType::q4_K_M, 54, 4096), budget);
  EXPECT_EQ(q4.state_bytes, 48ull * 3268608);
}

}  // namespace
}  // namespace gauntlet::harness
