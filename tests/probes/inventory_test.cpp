// Enumeration through the real drivers (PoCL, llvmpipe), and the isolation of each API's child.
#include "probes/inventory.h"

#include <gtest/gtest.h>

namespace gauntlet::probes {
namespace {

const ApiEnumeration* find_api(const Inventory& inventory, core::Api api) {
  for (const auto& e : inventory.apis) {
    if (e.api == api) return &e;
  }
  return nullptr;
}

TEST(Inventory, FindsPoclLlvmpipeAndHost) {
  auto inventory = enumerate_all(core::Options{});
  const auto* cl = find_api(inventory, core::Api::opencl);
  const auto* vk = find_api(inventory, core::Api::vulkan);
  ASSERT_NE(cl, nullptr);
  ASSERT_NE(vk, nullptr);
  EXPECT_EQ(cl->row.status, core::RowStatus::pass) << cl->row.reason;
  EXPECT_EQ(vk->row.status, core::RowStatus::pass) << vk->row.reason;
  ASSERT_GE(cl->devices.size(), 1u);
  ASSERT_GE(vk->devices.size(), 1u);
  EXPECT_NE(cl->devices[0].platform_name.find("Portable Computing Language"), std::string::npos);
  bool llvmpipe = false;
  for (const auto& d : vk->devices)
    llvmpipe = llvmpipe || d.name.find("llvmpipe") != std::string::npos;
  EXPECT_TRUE(llvmpipe);
  ASSERT_NE(inventory.find({core::Api::host, 0}), nullptr);
}

TEST(Inventory, NoDrmDevicesHereIsNotAnError) {
  auto inventory = enumerate_all(core::Options{});
  const auto* drm = find_api(inventory, core::Api::drm);
  ASSERT_NE(drm, nullptr);
  EXPECT_EQ(drm->row.status, core::RowStatus::pass) << drm->row.reason;
  EXPECT_TRUE(drm->devices.empty());
}

TEST(Inventory, ACrashingProbeIsACrashRowAndTheOthersStillEnumerate) {
  core::Options options;
  options.test_faults = "probe.opencl=crash";
  auto inventory = enumerate_all(options);
  const auto* cl = find_api(inventory, core::Api::opencl);
  const auto* vk = find_api(inventory, core::Api::vulkan);
  ASSERT_NE(cl, nullptr);
  EXPECT_EQ(cl->row.status, core::RowStatus::crash);
  EXPECT_NE(cl->row.reason.find("SIGSEGV"), std::string::npos) << cl->row.reason;
  EXPECT_TRUE(cl->devices.empty());
  ASSERT_NE(vk, nullptr);
  EXPECT_EQ(vk->row.status, core::RowStatus::pass);
  EXPECT_GE(vk->devices.size(), 1u);
}

TEST(Inventory, AHangingProbeTimesOutWithinItsLimit) {
  core::Options options;
  options.test_faults = "probe.vulkan=hang";
  core::IsolationLimits limits;
  limits.timeout = std::chrono::seconds(3);
  limits.grace = std::chrono::milliseconds(200);
  auto start = std::chrono::steady_clock::now();
  auto inventory = enumerate_all(options, limits);
  double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const auto* vk = find_api(inventory, core::Api::vulkan);
  const auto* cl = find_api(inventory, core::Api::opencl);
  ASSERT_NE(vk, nullptr);
  EXPECT_EQ(vk->row.status, core::RowStatus::timeout);
  EXPECT_NE(vk->row.reason.find("3000 ms"), std::string::npos);
  EXPECT_EQ(cl->row.status, core::RowStatus::pass);
  EXPECT_LT(elapsed, 20.0);
}

}  // namespace
}  // namespace gauntlet::probes
