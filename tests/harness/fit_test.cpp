// The fit answers (field case 5 with real shapes): which formats of a preset fit a budget, and up
// to which context.
#include "harness/fit.h"

#include <gtest/gtest.h>

#include "engine/planner/planner.h"

namespace gauntlet::harness {
namespace {

using engine::model::FileType;

reports::FitAnswer fit_of(const std::string& preset, FileType format, uint64_t budget) {
  const auto shape = engine::model::preset_shape(preset).value();
  const auto tensors = engine::model::model_tensors(shape, format);
  return fit_format(shape, format, tensors, {budget, "test"});
}

uint64_t peak_at(const std::string& preset, FileType format, uint32_t context) {
  const auto shape = engine::model::preset_shape(preset).value();
  engine::planner::PlanOptions o;
  o.format = format;
  o.context = context;
  o.kv = engine::planner::KvPrecision::f16;
  return engine::planner::plan_memory(shape, o).peak;
}

// A 16 GiB card (arc-16g): a standard level's budget is 0.9 * 0.9 * 16 GiB.
TEST(Fit, Llama31On16GiBF16DoesNotFitQ4KMDoesWithItsContext) {
  const uint64_t budget = static_cast<uint64_t>((16ull << 30) * 0.81);
  const auto f16 = fit_of("llama-3.1-8b", FileType::f16, budget);
  EXPECT_EQ(f16.largest_context, 0u);
  EXPECT_GT(f16.weight_bytes, budget);
  EXPECT_NE(f16.why.find("weights alone"), std::string::npos) << f16.why;

  const auto q4 = fit_of("llama-3.1-8b", FileType::q4_K_M, budget);
  ASSERT_GT(q4.largest_context, 0u);
  EXPECT_EQ(q4.largest_context % 256, 0u);
  EXPECT_LT(q4.largest_context, 131072u);
  // The answer is the largest: it fits, 256 more does not.
  EXPECT_LE(peak_at("llama-3.1-8b", FileType::q4_K_M, q4.largest_context), budget);
  EXPECT_GT(peak_at("llama-3.1-8b", FileType::q4_K_M, q4.largest_context + 256), budget);
  // Llama 3.1 8B keeps 8 KV heads of 128: 128 KiB of f16 KV cache per position.
  const uint64_t kv_per_position = 2ull * 32 * 8 * 128 * 2;
  EXPECT_EQ(kv_per_position, 128u << 10);
  EXPECT_NEAR(static_cast<double>(q4.largest_context),
              static_cast<double>(budget - q4.weight_bytes) / kv_per_position, 1500.0);

  const auto q8 = fit_of("llama-3.1-8b", FileType::q8_0, budget);
  EXPECT_GT(q8.largest_context, 0u);
  EXPECT_LT(q8.largest_context, q4.largest_context);
}

TEST(Fit, TheWholeTrainedContextAndAFitAtNoContext) {
  const auto small = fit_of("qwen2.5-0.5b", FileType::q8_0, 16ull << 30);
  EXPECT_EQ(small.largest_context, 32768u);
  EXPECT_EQ(small.why, "the whole trained context fits");
  // Weights that fit, but not with the KV cache of 256 positions and the activations.
  const uint64_t weights = engine::planner::weight_bytes(
      engine::model::preset_shape("qwen3-0.6b").value(), FileType::f16);
  const auto tight = fit_of("qwen3-0.6b", FileType::f16, weights + 1024);
  EXPECT_EQ(tight.largest_context, 0u);
  EXPECT_NE(tight.why.find("at context 256"), std::string::npos) << tight.why;
}

}  // namespace
}  // namespace gauntlet::harness
