// PoCL shrunk by POCL_MEMORY_LIMIT=1 (1 GiB device, 256 MiB largest allocation), at the quick
// level with no cap of our own: the verified figures follow the device's limits.
#include <gtest/gtest.h>

#include "core/options.h"
#include "probes/inventory.h"
#include "stress/stress.h"

namespace gauntlet::stress {
namespace {

constexpr uint64_t kMiB = 1ull << 20;
constexpr uint64_t kGiB = 1ull << 30;

TEST(StressPoclLimitTest, LargestAllocationAndBudgetFollowTheOneGibDevice) {
  auto options = core::Options::from_environment();
  ASSERT_TRUE(options);
  core::DeviceInfo info;
  for (const auto& d : probes::enumerate_all(*options).devices()) {
    if (d.id.api == core::Api::opencl && d.usable) info = d;
  }
  ASSERT_EQ(info.id.api, core::Api::opencl) << "PoCL is missing";
  ASSERT_LE(info.global_mem_size, kGiB) << "POCL_MEMORY_LIMIT=1 was not applied";
  StressOptions s;
  s.level = core::Level::quick;
  s.limits.timeout = std::chrono::seconds(120);
  auto r = run_stress(info, *options, s);
  // About 256 MiB: the device's own max_mem_alloc_size, verified to the MiB.
  EXPECT_GE(r.max_single_alloc_verified_bytes, 240 * kMiB);
  EXPECT_LE(r.max_single_alloc_verified_bytes, 256 * kMiB);
  EXPECT_LE(r.max_single_alloc_verified_bytes, info.max_mem_alloc_size);
  EXPECT_GE(r.max_single_alloc_verified_bytes + kMiB, info.max_mem_alloc_size);
  EXPECT_EQ(r.max_single_alloc_bound_by, "max_mem_alloc_size");
  EXPECT_GT(r.safe_budget_bytes, 0u);
  EXPECT_LE(r.safe_budget_bytes, kGiB);
  EXPECT_LE(r.safe_budget_bytes, info.global_mem_size / 4);  // quick: at most 25 %
  for (const auto& p : r.curve) EXPECT_TRUE(p.verified) << p.step << ": " << p.reason;
  EXPECT_TRUE(core::all_passed(r.rows));
}

}  // namespace
}  // namespace gauntlet::stress
