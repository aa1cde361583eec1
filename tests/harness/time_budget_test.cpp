// Time budgets on devices of any size: the memory steps of each level, planned for 24, 80 and
// 141 GB cards at a host-side verify rate and at one twenty times slower, stay within the
// stress's share of the level's budget; the profile checks' budget says what it leaves out.
#include "harness/time_budget.h"

#include <gtest/gtest.h>

#include "harness/simulate.h"
#include "stress/step_budget.h"
#include "stress/steps.h"

namespace gauntlet::harness {
namespace {

// What run_stress does step by step: each step's share is what is left over the steps left.
double planned_stress_seconds(core::Level level, uint64_t memory, uint64_t largest_alloc,
                              double rate, double budget_s, uint64_t* sampled_steps) {
  const auto fractions = stress::step_fractions(level);
  double spent = 0;
  for (size_t i = 0; i < fractions.size(); ++i) {
    const auto bytes = static_cast<uint64_t>(static_cast<double>(memory) * fractions[i]);
    const double share =
        std::max(1e-3, budget_s - spent) / static_cast<double>(fractions.size() - i);
    const auto b = stress::plan_step_budget(bytes, stress::step_chunk_bytes(bytes, largest_alloc),
                                            stress::step_patterns(level), rate, share);
    spent += b.planned_s;
    if (b.verify_every > 1) ++*sampled_steps;
  }
  return spent;
}

TEST(TimeBudget, MemoryStepsOfEveryLevelFitTheirShareOnLargeCards) {
  for (const char* preset : {"rtx-24g", "h100-80g", "h200-141g"}) {
    auto clamps = load_simulate(preset);
    ASSERT_TRUE(clamps.is_ok()) << preset;
    const uint64_t memory = *clamps->global_mem_size;
    const uint64_t largest = *clamps->max_mem_alloc_size;
    for (core::Level level : {core::Level::quick, core::Level::standard, core::Level::full}) {
      core::Options options;
      options.level = level;
      const double share = level_budget_s(options) * kStressShare;
      // 10 GB/s: a host-side fill and check over PCIe; the slow device verifies at 0.5 GB/s.
      for (double rate : {10e9, 0.5e9}) {
        SCOPED_TRACE(std::string(preset) + " " + core::to_string(level) + " at " +
                     std::to_string(rate / 1e9) + " GB/s");
        uint64_t sampled = 0;
        const double planned =
            planned_stress_seconds(level, memory, largest, rate, share, &sampled);
        EXPECT_LE(planned, share);
        EXPECT_GT(planned, 0.0);
        // Sampled exactly when verifying every byte would not fit: a 141 GB card's full level
        // writes and reads back over 500 GB.
        double whole = 0;
        for (double f : stress::step_fractions(level)) {
          whole += static_cast<double>(memory) * f * stress::step_patterns(level) / rate;
        }
        EXPECT_EQ(sampled > 0, whole > share) << whole << " s to verify every byte";
      }
    }
  }
}

TEST(TimeBudget, AStepThatFitsIsVerifiedWholeAndOneThatDoesNotIsSampledEndToEnd) {
  const uint64_t chunk = 256ull << 20;
  auto whole = stress::plan_step_budget(64 * chunk, chunk, 1, 100e9, 10);
  EXPECT_EQ(whole.verify_every, 1u);
  EXPECT_EQ(whole.chunks_verified, 64u);
  auto sampled = stress::plan_step_budget(64 * chunk, chunk, 1, 1e9, 2.0);
  EXPECT_GT(sampled.verify_every, 1u);
  EXPECT_LE(sampled.planned_s, 2.0);
  EXPECT_GE(sampled.chunks_verified, 2u);  // the first and the last at least
  auto none_left = stress::plan_step_budget(64 * chunk, chunk, 1, 1e9, 1e-3);
  EXPECT_EQ(none_left.chunks_verified, 2u);
}

TEST(TimeBudget, LevelsAndTheOverride) {
  core::Options options;
  EXPECT_EQ(level_budget_s(options), 120);
  options.level = core::Level::standard;
  EXPECT_EQ(level_budget_s(options), 900);
  options.level = core::Level::full;
  EXPECT_EQ(level_budget_s(options), 3600);
  options.time_budget_s = 45;
  EXPECT_EQ(level_budget_s(options), 45);
  EXPECT_NE(left_out_by_budget(options).find("full level's time budget (45 s per device)"),
            std::string::npos);
}

TEST(TimeBudget, AChecksShareIsJudgedByTheLongestOfItsKind) {
  CheckBudget budget(10.0);
  EXPECT_TRUE(budget.fits("decode"));
  budget.took("decode", 4.0);
  EXPECT_TRUE(budget.fits("decode"));
  budget.took("decode", 11.0);
  EXPECT_FALSE(budget.fits("decode"));
  CheckBudget spent(0.0);
  EXPECT_FALSE(spent.fits("decode"));
}

}  // namespace
}  // namespace gauntlet::harness
