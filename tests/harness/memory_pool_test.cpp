// Which memory a plan draws on: one pool for a device whose memory is the host's, its own VRAM
// for a discrete card; what other processes hold; driver figures that make no sense, clamped.
#include "harness/memory_pool.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

#include "harness/fit.h"
#include "tests/support/temp_dir.h"

namespace gauntlet::harness {
namespace {

constexpr uint64_t kGiB = 1ull << 30;
constexpr uint64_t kMiB = 1ull << 20;

std::filesystem::path fixture(const std::string& name) {
  return std::filesystem::path(GAUNTLET_SOURCE_DIR) / "tests/harness/fixtures" / name;
}

// amdgpu's sysfs view of a Strix-Halo-like APU: 512 MiB of VRAM carved out, 64 GiB of GTT.
core::DeviceInfo amdgpu_apu_drm() {
  core::DeviceInfo d;
  d.id = {core::Api::drm, 0};
  d.device_type = "discrete_gpu";  // what drm_sysfs says of any amdgpu with VRAM
  d.global_mem_size = 512 * kMiB;
  d.api_limits["vram_total"] = 512 * kMiB;
  d.api_limits["vram_used"] = 300 * kMiB;
  d.api_limits["gtt_total"] = 64 * kGiB;
  d.api_limits["gtt_used"] = 2 * kGiB;
  return d;
}

stress::HostMemory host_of(uint64_t total, uint64_t available) {
  stress::HostMemory host;
  host.mem_total = total;
  host.mem_available = available;
  return host;
}

TEST(MemoryPool, AnApuWithSmallVramAndLargeGttIsOnePoolBoundByGtt) {
  PoolInputs in;
  in.claimed = amdgpu_apu_drm();
  in.views = {in.claimed};
  in.host = host_of(128 * kGiB, 100 * kGiB);
  const auto pool = memory_pool(in);
  EXPECT_TRUE(pool.shared);
  EXPECT_EQ(pool.bound, "GTT");
  EXPECT_EQ(pool.bound_bytes, 64 * kGiB);
  EXPECT_EQ(pool.pool_bytes, 128 * kGiB);
  EXPECT_EQ(pool.pool_held_bytes, 28 * kGiB);
  EXPECT_EQ(pool.pool_held_source, "host memory in use (MemTotal - MemAvailable)");
  EXPECT_EQ(pool.device_held_bytes, 300 * kMiB + 2 * kGiB);
  EXPECT_EQ(pool.device_held_source, "amdgpu mem_info_vram_used + mem_info_gtt_used");
  EXPECT_TRUE(pool.clamped.empty());

  // ttm.pages_limit below the GTT size is the bound that applies.
  in.ttm_pages_limit_bytes = 48 * kGiB;
  const auto ttm = memory_pool(in);
  EXPECT_EQ(ttm.bound, "ttm.pages_limit");
  EXPECT_EQ(ttm.bound_bytes, 48 * kGiB);
}

TEST(MemoryPool, ADiscreteAmdgpuCardIsItsVramLessWhatOthersHold) {
  PoolInputs in;
  in.claimed = amdgpu_apu_drm();
  in.claimed.global_mem_size = 16 * kGiB;
  in.claimed.api_limits["vram_total"] = 16 * kGiB;
  in.claimed.api_limits["vram_used"] = 3 * kGiB;
  in.claimed.api_limits["gtt_total"] = 32 * kGiB;
  in.views = {in.claimed};
  in.host = host_of(64 * kGiB, 60 * kGiB);
  const auto pool = memory_pool(in);
  EXPECT_FALSE(pool.shared);
  EXPECT_EQ(pool.bound, "VRAM");
  EXPECT_EQ(pool.bound_bytes, 16 * kGiB);
  EXPECT_EQ(pool.pool_bytes, 0u);
  EXPECT_EQ(pool.device_held_bytes, 3 * kGiB);
  EXPECT_EQ(pool.device_held_source, "amdgpu mem_info_vram_used");
}

TEST(MemoryPool, AnIntegratedVulkanDeviceIsOnePoolBoundByHostMemory) {
  core::DeviceInfo vk;
  vk.id = {core::Api::vulkan, 0};
  vk.device_type = "integrated_gpu";
  vk.global_mem_size = 24 * kGiB;
  vk.heaps = {{24 * kGiB, true}};
  PoolInputs in;
  in.claimed = vk;
  in.views = {vk};
  in.host = host_of(32 * kGiB, 30 * kGiB);
  const auto pool = memory_pool(in);
  EXPECT_TRUE(pool.shared);
  EXPECT_EQ(pool.bound, "host memory");
  EXPECT_EQ(pool.bound_bytes, 24 * kGiB);
  EXPECT_EQ(pool.pool_bytes, 32 * kGiB);
  EXPECT_EQ(pool.pool_held_bytes, 2 * kGiB);

  // A zero total is no size: the host memory stands in, and the report says so.
  in.claimed.global_mem_size = 0;
  in.claimed.heaps.clear();
  const auto zero = memory_pool(in);
  EXPECT_EQ(zero.bound_bytes, 32 * kGiB);
  ASSERT_EQ(zero.clamped.size(), 1u);
  EXPECT_EQ(zero.clamped[0].raw_bytes, 0u);
  EXPECT_EQ(zero.clamped[0].used_bytes, 32 * kGiB);
}

// VK_EXT_memory_budget's heapBudget above the heap's size: free above total.
TEST(MemoryPool, AVulkanBudgetAboveTheHeapIsClampedWithBothFigures) {
  core::DeviceInfo vk;
  vk.id = {core::Api::vulkan, 0};
  vk.device_type = "discrete_gpu";
  vk.global_mem_size = 16 * kGiB;
  vk.heaps = {{16 * kGiB, true}, {64 * kGiB, false}};
  vk.api_limits["heapBudget"] = core::Json::array({20 * kGiB, 60 * kGiB});
  PoolInputs in;
  in.claimed = vk;
  in.views = {vk};
  const auto pool = memory_pool(in);
  EXPECT_FALSE(pool.shared);
  ASSERT_EQ(pool.clamped.size(), 1u);
  EXPECT_EQ(pool.clamped[0].source, "vulkan heapBudget[0]");
  EXPECT_EQ(pool.clamped[0].raw_bytes, 20 * kGiB);
  EXPECT_EQ(pool.clamped[0].total_bytes, 16 * kGiB);
  EXPECT_EQ(pool.clamped[0].used_bytes, 16 * kGiB);
  EXPECT_EQ(pool.device_held_bytes, 0u);

  // A sane budget: the rest of the heap is held by others and the driver.
  in.claimed.api_limits["heapBudget"] = core::Json::array({13 * kGiB, 60 * kGiB});
  in.views = {in.claimed};
  const auto held = memory_pool(in);
  EXPECT_TRUE(held.clamped.empty());
  EXPECT_EQ(held.device_held_bytes, 3 * kGiB);
  EXPECT_EQ(held.device_held_source, "vulkan heapBudget[0] (the heap's size less the budget)");
}

// The fixture file: a shared-memory device whose driver says 40 GiB free of 32 GiB.
TEST(MemoryPool, ASimulatedDriverWithFreeAboveTotalIsClampedAndTheReportKeepsBoth) {
  auto clamps = load_simulate(fixture("free-above-total.json").string());
  ASSERT_TRUE(clamps.is_ok()) << clamps.error().describe();
  PoolInputs in;
  in.clamps = *clamps;
  const auto pool = memory_pool(in);
  EXPECT_TRUE(pool.shared);
  EXPECT_EQ(pool.bound, "host memory");
  EXPECT_EQ(pool.pool_bytes, 32 * kGiB);
  ASSERT_EQ(pool.clamped.size(), 1u);
  EXPECT_EQ(pool.clamped[0].source, "simulate free-above-total driver_free_mem_size");
  EXPECT_EQ(pool.clamped[0].raw_bytes, 40 * kGiB);
  EXPECT_EQ(pool.clamped[0].total_bytes, 32 * kGiB);
  EXPECT_EQ(pool.clamped[0].used_bytes, 32 * kGiB);
  EXPECT_EQ(pool.device_held_bytes, 0u);

  const core::Json j = pool;
  EXPECT_EQ(j["clamped"][0]["raw_bytes"].get<uint64_t>(), 40 * kGiB);
  EXPECT_EQ(j["clamped"][0]["total_bytes"].get<uint64_t>(), 32 * kGiB);
  EXPECT_EQ(j.get<reports::MemoryPool>().clamped[0].raw_bytes, 40 * kGiB);
}

TEST(MemoryPool, ASimulatedDriverFreeBelowTotalIsHeldByOthersOnBothSides) {
  auto clamps = parse_simulate(R"({"name": "busy", "shared_memory": true,
      "global_mem_size": 34359738368, "driver_free_mem_size": 30064771072})",
                               "busy");
  ASSERT_TRUE(clamps.is_ok()) << clamps.error().describe();
  PoolInputs in;
  in.clamps = *clamps;
  const auto pool = memory_pool(in);
  EXPECT_EQ(pool.device_held_bytes, 4 * kGiB);
  EXPECT_EQ(pool.pool_held_bytes, 4 * kGiB);
  EXPECT_NE(pool.device_held_source.find("driver_free_mem_size"), std::string::npos);
}

TEST(MemoryPool, TtmPagesLimitIsReadInPages) {
  gauntlet::testing::TempDir dir("ttm");
  EXPECT_FALSE(read_ttm_pages_limit(dir.path()).has_value());
  std::filesystem::create_directories(dir / "module/ttm/parameters");
  std::ofstream(dir / "module/ttm/parameters/pages_limit") << "31457280\n";
  EXPECT_EQ(read_ttm_pages_limit(dir.path()), 120 * kGiB);
}

TEST(MemoryPool, TheDriverOverheadIsWhatTheStressCouldNotAllocate) {
  reports::StressResult stress;
  stress.curve = {{1, 8 * kGiB, 0.5, true, 0, core::RowStatus::pass, ""},
                  {2, 14 * kGiB, 0.875, true, 0, core::RowStatus::pass, ""},
                  {3, 16 * kGiB, 1.0, false, 0, core::RowStatus::fail,
                   "allocation of chunk 15 (1073741824 bytes) failed"}};
  reports::MemoryPool pool;
  add_driver_overhead(pool, 16 * kGiB, stress, false);
  EXPECT_EQ(pool.driver_overhead_bytes, 2 * kGiB);
  // At the level's cap the stress never reached the device's limit: nothing measured.
  reports::MemoryPool capped;
  add_driver_overhead(capped, 16 * kGiB, stress, true);
  EXPECT_FALSE(capped.driver_overhead_bytes.has_value());
}

// NVIDIA's driver names the processes holding its memory (NVML, here the scripted stand-in
// tests/signals/fake_nvml.cpp): those of other processes are summed, each named, ours left out, one
// whose size NVML does not state named without a figure; the plan's budget loses what they hold.
TEST(MemoryPool, NvmlNamesTheProcessesHoldingAnNvidiaCardsMemory) {
  gauntlet::testing::TempDir dir("pool-nvml");
  const auto script = dir.write("script",
                                "compute_processes=4145:4294967296,777:1073741824\n"
                                "graphics_processes=4145:4294967296,900:na\n");
  ::setenv("GAUNTLET_FAKE_NVML_SCRIPT", script.c_str(), 1);
  auto nvml = signals::Nvml::load(GAUNTLET_FAKE_NVML);
  ASSERT_TRUE(nvml.is_ok()) << nvml.error().message;
  const auto held = read_nvml_held(**nvml, "0000:01:00.0", 777);
  ASSERT_TRUE(held.has_value());
  EXPECT_EQ(held->bytes, 4 * kGiB);
  EXPECT_EQ(held->source,
            "NVML: 2 other processes (pid 4145 4.00 GiB, pid 900, its size not stated)");
  EXPECT_FALSE(read_nvml_held(**nvml, "0000:09:00.0", 777).has_value());

  PoolInputs in;
  in.claimed.id = {core::Api::opencl, 0};
  in.claimed.device_type = "discrete_gpu";
  in.claimed.global_mem_size = 24 * kGiB;
  in.views = {in.claimed};
  in.host = host_of(64 * kGiB, 60 * kGiB);
  in.nvml_held = held;
  const auto pool = memory_pool(in);
  EXPECT_FALSE(pool.shared);
  EXPECT_EQ(pool.device_held_bytes, 4 * kGiB);
  EXPECT_EQ(pool.device_held_source, held->source);
  DeviceFacts facts;
  facts.budget_capped_by_level = true;
  const auto budget = fit_budget(in.claimed, facts, std::nullopt, pool);
  EXPECT_EQ(budget.bytes, static_cast<uint64_t>(static_cast<double>(20 * kGiB) * 0.81));
  EXPECT_NE(budget.basis.find("less 4.00 GiB other processes hold (NVML: 2 other processes"),
            std::string::npos)
      << budget.basis;

  dir.write("script", "compute_processes=777:1073741824\n");
  const auto none = read_nvml_held(**nvml, "0000:02:00.0", 777);
  ASSERT_TRUE(none.has_value());
  EXPECT_EQ(none->bytes, 0u);
  EXPECT_EQ(none->source, "NVML: no other process");
  ::unsetenv("GAUNTLET_FAKE_NVML_SCRIPT");
}

}  // namespace
}  // namespace gauntlet::harness
