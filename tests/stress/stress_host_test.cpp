// The whole stress on the host device (no driver needed): budget and curve within the cap, the
// bit-flip fault named by address, a SIGKILL at a step as a crash row with a smaller budget.
#include <gtest/gtest.h>

#include "backends/host/host_device.h"
#include "stress/stress.h"

namespace gauntlet::stress {
namespace {

constexpr uint64_t kMiB = 1ull << 20;

const core::Row* find_row(const StressResult& r, const std::string& id) {
  for (const auto& row : r.rows) {
    if (row.id == id) return &row;
  }
  return nullptr;
}

StressOptions small(core::Level level, uint64_t cap) {
  StressOptions s;
  s.level = level;
  s.cap_bytes = cap;
  s.limits.timeout = std::chrono::seconds(120);
  return s;
}

TEST(StressHostTest, VerifiedBudgetWithinTheCap) {
  core::Options options;
  auto r = run_stress(backends::host::describe(), options, small(core::Level::standard, 32 * kMiB));
  EXPECT_EQ(r.device, "host");
  EXPECT_EQ(r.max_single_alloc_verified_bytes, 32 * kMiB);
  EXPECT_EQ(r.max_single_alloc_bound_by, "cap_bytes");
  ASSERT_EQ(r.curve.size(), 4u);  // 25, 50, 75, 90 % shapes, scaled into the cap
  EXPECT_EQ(r.curve.back().bytes, 32 * kMiB);
  for (const auto& p : r.curve) {
    EXPECT_TRUE(p.verified) << p.step << ": " << p.reason;
    EXPECT_GT(p.bandwidth_gbps, 0.0);
  }
  // Budget: 32 MiB verified less max(10%, min(64 MiB, 25%)) = 8 MiB.
  EXPECT_EQ(r.margin_bytes, 8 * kMiB);
  EXPECT_EQ(r.safe_budget_bytes, 24 * kMiB);
  EXPECT_EQ(r.bound_by, "cap_bytes");
  EXPECT_GT(r.host_memcpy_gbps, 0.0);
  EXPECT_GT(r.copy_bandwidth_gbps, 0.0);
  EXPECT_GT(r.read_bandwidth_gbps, 0.0);
  EXPECT_GT(r.write_bandwidth_gbps, 0.0);
  for (const char* name :
       {"walking_ones", "walking_zeros", "own_address", "moving_inversions", "random"}) {
    const core::Row* row = find_row(r, std::string("stress.pattern.") + name);
    ASSERT_NE(row, nullptr) << name;
    EXPECT_EQ(row->status, core::RowStatus::pass) << row->reason;
    EXPECT_EQ(row->metrics["errors"].get<uint64_t>(), 0u);
    EXPECT_GT(row->metrics["words"].get<uint64_t>(), 0u);
  }
  EXPECT_TRUE(core::all_passed(r.rows));

  // The JSON form carries everything back.
  core::Json j = r;
  auto back = j.get<StressResult>();
  EXPECT_EQ(back.safe_budget_bytes, r.safe_budget_bytes);
  EXPECT_EQ(back.curve.size(), r.curve.size());
  EXPECT_EQ(back.rows.size(), r.rows.size());
  EXPECT_EQ(back.curve[1].bytes, r.curve[1].bytes);
}

TEST(StressHostTest, BitFlipIsReportedWithItsExactAddress) {
  core::Options options;
  options.test_faults = "stress.bitflip=4101";  // byte 1 of word 1025
  auto r = run_stress(backends::host::describe(), options, small(core::Level::quick, 8 * kMiB));
  const core::Row* row = find_row(r, "stress.pattern.walking_ones");
  ASSERT_NE(row, nullptr);
  EXPECT_EQ(row->status, core::RowStatus::fail);
  const auto& first = row->metrics["first_failures"].at(0);
  EXPECT_EQ(first["address"].get<uint64_t>(), 4101u);
  // Walking ones: word 1025 holds 1 << (1025 % 32) = 0x2; bit 0 of its byte 1 is 0x100.
  EXPECT_EQ(first["expected"], "0x00000002");
  EXPECT_EQ(first["actual"], "0x00000102");
  EXPECT_EQ(row->metrics["errors"].get<uint64_t>(), 1u);
  EXPECT_NE(row->reason.find("0x1005"), std::string::npos) << row->reason;
  EXPECT_NE(row->reason.find("expected 0x00000002, actual 0x00000102"), std::string::npos)
      << row->reason;
  // Memory that does not hold data is not a budget.
  EXPECT_FALSE(core::all_passed(r.rows));
}

TEST(StressHostTest, KilledStepIsACrashRowAndTheBudgetStaysBelowIt) {
  core::Options options;
  options.test_faults = "stress.kill_step=3";
  auto r = run_stress(backends::host::describe(), options, small(core::Level::standard, 32 * kMiB));
  ASSERT_EQ(r.curve.size(), 4u);
  EXPECT_TRUE(r.curve[0].verified);
  EXPECT_TRUE(r.curve[1].verified);
  EXPECT_EQ(r.curve[2].status, core::RowStatus::crash);
  EXPECT_NE(r.curve[2].reason.find("SIGKILL"), std::string::npos) << r.curve[2].reason;
  EXPECT_EQ(r.curve[3].status, core::RowStatus::skipped);
  const core::Row* crash = find_row(r, "stress.step.3");
  ASSERT_NE(crash, nullptr);
  EXPECT_EQ(crash->status, core::RowStatus::crash);
  EXPECT_GT(r.safe_budget_bytes, 0u);
  EXPECT_LT(r.safe_budget_bytes, r.curve[2].bytes);
  EXPECT_LE(r.safe_budget_bytes, r.curve[1].bytes);
  EXPECT_NE(r.bound_by.find("step 3"), std::string::npos) << r.bound_by;
  const core::Row* budget = find_row(r, "stress.budget");
  ASSERT_NE(budget, nullptr);
  EXPECT_EQ(budget->status, core::RowStatus::pass);
}

}  // namespace
}  // namespace gauntlet::stress
