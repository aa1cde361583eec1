// The stress on the real drivers, PoCL (OpenCL) and llvmpipe (Vulkan), with small caps. A missing
// driver is a failure, not a skip.
#include <gtest/gtest.h>

#include "core/options.h"
#include "probes/inventory.h"
#include "stress/stress.h"

namespace gauntlet::stress {
namespace {

constexpr uint64_t kMiB = 1ull << 20;

core::DeviceInfo find_device(const core::Options& options, core::Api api) {
  auto inventory = probes::enumerate_all(options);
  for (const auto& d : inventory.devices()) {
    if (d.id.api == api && d.usable) return d;
  }
  ADD_FAILURE() << "no usable " << core::to_string(api) << " device: the driver is missing";
  return {};
}

const core::Row* find_row(const StressResult& r, const std::string& id) {
  for (const auto& row : r.rows) {
    if (row.id == id) return &row;
  }
  return nullptr;
}

core::Options environment_options() {
  auto options = core::Options::from_environment();
  EXPECT_TRUE(options);
  return options ? *options : core::Options{};
}

StressOptions capped(uint64_t cap) {
  StressOptions s;
  s.level = core::Level::quick;
  s.cap_bytes = cap;
  s.limits.timeout = std::chrono::seconds(120);
  return s;
}

void expect_verified_run(const core::DeviceInfo& info, const StressResult& r, uint64_t cap) {
  EXPECT_EQ(r.device, info.id.to_string());
  EXPECT_EQ(r.max_single_alloc_verified_bytes, cap);
  EXPECT_LE(r.max_single_alloc_verified_bytes, info.max_mem_alloc_size);
  EXPECT_GT(r.safe_budget_bytes, 0u);
  EXPECT_LT(r.safe_budget_bytes, cap);
  ASSERT_FALSE(r.curve.empty());
  for (const auto& p : r.curve) EXPECT_TRUE(p.verified) << p.step << ": " << p.reason;
  EXPECT_GT(r.copy_bandwidth_gbps, 0.0);
  EXPECT_GT(r.h2d_gbps, 0.0);
  EXPECT_GT(r.host_memcpy_gbps, 0.0);
  for (const auto& row : r.rows) {
    EXPECT_TRUE(row.status == core::RowStatus::pass) << row.id << ": " << row.reason;
  }
  const core::Row* cap_row = find_row(r, "stress.cap");
  ASSERT_NE(cap_row, nullptr);
  EXPECT_EQ(cap_row->metrics["device_memory"].get<uint64_t>(), info.global_mem_size);
}

TEST(StressOpenclTest, PoclHoldsVerifiedChunksWithinTheCap) {
  auto options = environment_options();
  auto info = find_device(options, core::Api::opencl);
  ASSERT_TRUE(info.usable);
  EXPECT_TRUE(info.host_unified_memory || info.device_type == "cpu");
  auto r = run_stress(info, options, capped(48 * kMiB));
  expect_verified_run(info, r, 48 * kMiB);
  EXPECT_EQ(r.max_single_alloc_bound_by, "cap_bytes");
}

TEST(StressOpenclTest, PoclBitFlipNamesAddressExpectedAndActual) {
  auto options = environment_options();
  options.test_faults = "stress.bitflip=1000003";  // byte 3 of word 250000
  auto info = find_device(options, core::Api::opencl);
  auto r = run_stress(info, options, capped(8 * kMiB));
  const core::Row* row = find_row(r, "stress.pattern.own_address");
  ASSERT_NE(row, nullptr);
  EXPECT_EQ(row->status, core::RowStatus::fail);
  const auto& first = row->metrics["first_failures"].at(0);
  EXPECT_EQ(first["address"].get<uint64_t>(), 1000003u);
  // Own address: word 250000 holds its byte address 1000000 = 0x000f4240; bit 24 flipped.
  EXPECT_EQ(first["expected"], "0x000f4240");
  EXPECT_EQ(first["actual"], "0x010f4240");
  EXPECT_NE(row->reason.find("0xf4243"), std::string::npos) << row->reason;
}

TEST(StressVulkanTest, LlvmpipeHoldsVerifiedChunksUnderValidation) {
  auto options = environment_options();
  EXPECT_TRUE(options.vulkan_validation);
  auto info = find_device(options, core::Api::vulkan);
  ASSERT_TRUE(info.usable);
  auto r = run_stress(info, options, capped(32 * kMiB));
  expect_verified_run(info, r, 32 * kMiB);
}

TEST(StressVulkanTest, LlvmpipeBitFlipNamesAddress) {
  auto options = environment_options();
  options.test_faults = "stress.bitflip=65536";
  auto info = find_device(options, core::Api::vulkan);
  auto r = run_stress(info, options, capped(4 * kMiB));
  const core::Row* row = find_row(r, "stress.pattern.walking_zeros");
  ASSERT_NE(row, nullptr);
  EXPECT_EQ(row->status, core::RowStatus::fail);
  const auto& first = row->metrics["first_failures"].at(0);
  EXPECT_EQ(first["address"].get<uint64_t>(), 65536u);
  // Walking zeros: word 16384 holds ~(1 << 0) = 0xfffffffe; bit 0 flipped to 1.
  EXPECT_EQ(first["expected"], "0xfffffffe");
  EXPECT_EQ(first["actual"], "0xffffffff");
}

}  // namespace
}  // namespace gauntlet::stress
