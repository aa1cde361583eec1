// Host safety caps from fixture files: meminfo, cgroup v2 and v1, and the level and caller caps.
#include "stress/host_limits.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "tests/support/temp_dir.h"

namespace gauntlet::stress {
namespace {

namespace fs = std::filesystem;
constexpr uint64_t kMiB = 1ull << 20;
constexpr uint64_t kGiB = 1ull << 30;

class Fixture : public ::testing::Test {
 protected:
  void write(const fs::path& rel, const std::string& text) {
    fs::create_directories((root_ / rel).parent_path());
    std::ofstream(root_ / rel) << text;
  }
  HostPaths paths() const {
    HostPaths p;
    p.meminfo = (root_ / "meminfo").string();
    p.self_cgroup = (root_ / "self_cgroup").string();
    p.cgroup_root = (root_ / "cgroup").string();
    p.read_rlimit = false;
    return p;
  }
  gauntlet::testing::TempDir folder_{"host-limits"};
  const fs::path root_ = folder_.path();
};

core::DeviceInfo cpu_device(uint64_t memory, uint64_t max_alloc) {
  core::DeviceInfo info;
  info.id = {core::Api::opencl, 0};
  info.device_type = "cpu";
  info.host_unified_memory = true;
  info.global_mem_size = memory;
  info.max_mem_alloc_size = max_alloc;
  return info;
}

TEST(MeminfoTest, ParsesKilobytesAndRejectsMissingField) {
  const std::string text = "MemTotal:       24684096 kB\nMemAvailable:   20816160 kB\n";
  auto available = parse_meminfo_field(text, "MemAvailable");
  ASSERT_TRUE(available);
  EXPECT_EQ(*available, 20816160ull * 1024);
  EXPECT_FALSE(parse_meminfo_field(text, "SwapTotal"));
}

TEST_F(Fixture, CgroupV2LimitBindsTheCapOfAHostSharingDevice) {
  write("meminfo", "MemTotal: 16777216 kB\nMemAvailable: 12582912 kB\n");  // 12 GiB available
  write("self_cgroup", "0::/jobs/ci\n");
  write("cgroup/jobs/ci/memory.max", std::to_string(3 * kGiB) + "\n");
  write("cgroup/jobs/ci/memory.current", std::to_string(1 * kGiB) + "\n");
  write("cgroup/jobs/memory.max", "max\n");
  auto host = read_host_memory(paths());
  ASSERT_TRUE(host.mem_available);
  EXPECT_EQ(*host.mem_available, 12 * kGiB);
  ASSERT_TRUE(host.cgroup_room);
  EXPECT_EQ(*host.cgroup_room, 2 * kGiB);
  EXPECT_NE(host.cgroup_source.find("memory.max"), std::string::npos);

  // An 8 GiB device at the full level: the cgroup's 2 GiB room less max(512 MiB, 15%) binds.
  Cap cap = compute_cap(cpu_device(8 * kGiB, 2 * kGiB), core::Level::full, 0, 0, host);
  EXPECT_EQ(cap.bound_by, "cgroup memory.max (" + paths().cgroup_root + "/jobs/ci)");
  EXPECT_EQ(cap.bytes, 2 * kGiB - 512 * kMiB);
  EXPECT_EQ(cap.host_margin_bytes, 512 * kMiB);
  EXPECT_NE(cap.margin_rule.find("512 MiB"), std::string::npos);
}

TEST_F(Fixture, ParentCgroupWithTheTighterLimitWins) {
  write("meminfo", "MemAvailable: 12582912 kB\n");
  write("self_cgroup", "0::/a/b\n");
  write("cgroup/a/b/memory.max", std::to_string(8 * kGiB));
  write("cgroup/a/memory.max", std::to_string(4 * kGiB));
  write("cgroup/a/memory.current", std::to_string(1 * kGiB));
  auto host = read_host_memory(paths());
  ASSERT_TRUE(host.cgroup_room);
  EXPECT_EQ(*host.cgroup_room, 3 * kGiB);
}

TEST_F(Fixture, CgroupV1LimitInBytes) {
  write("meminfo", "MemAvailable: 12582912 kB\n");
  write("self_cgroup", "4:memory:/job\n3:cpuset:/\n");
  write("cgroup/memory/job/memory.limit_in_bytes", std::to_string(6 * kGiB));
  write("cgroup/memory/job/memory.usage_in_bytes", std::to_string(2 * kGiB));
  write("cgroup/memory/memory.limit_in_bytes", "9223372036854771712\n");  // v1's "no limit"
  auto host = read_host_memory(paths());
  ASSERT_TRUE(host.cgroup_room);
  EXPECT_EQ(*host.cgroup_room, 4 * kGiB);
  Cap cap = compute_cap(cpu_device(16 * kGiB, 4 * kGiB), core::Level::full, 0, 0, host);
  EXPECT_EQ(cap.bound_by, "cgroup memory.limit_in_bytes (" + paths().cgroup_root + "/memory/job)");
  EXPECT_EQ(cap.bytes, 4 * kGiB - static_cast<uint64_t>(4.0 * kGiB * 0.15));
}

TEST_F(Fixture, MissingFilesLeaveOnlyTheDeviceLimits) {
  auto host = read_host_memory(paths());
  EXPECT_FALSE(host.mem_available);
  EXPECT_FALSE(host.cgroup_room);
  Cap cap = compute_cap(cpu_device(8 * kGiB, 2 * kGiB), core::Level::full, 0, 0, host);
  EXPECT_EQ(cap.bytes, 8 * kGiB);
  EXPECT_EQ(cap.bound_by, "device global memory");
}

TEST(CapTest, LevelsFractionsAndCallerCaps) {
  HostMemory plenty;
  plenty.mem_available = 64 * kGiB;
  auto dev = cpu_device(8 * kGiB, 2 * kGiB);
  Cap quick = compute_cap(dev, core::Level::quick, 0, 0, plenty);
  EXPECT_EQ(quick.bytes, 1 * kGiB);  // min(25% of 8 GiB, 1 GiB)
  EXPECT_EQ(quick.bound_by, "level cap");
  Cap small_quick = compute_cap(cpu_device(2 * kGiB, kGiB), core::Level::quick, 0, 0, plenty);
  EXPECT_EQ(small_quick.bytes, 512 * kMiB);
  Cap standard = compute_cap(dev, core::Level::standard, 0, 0, plenty);
  EXPECT_EQ(standard.bytes, static_cast<uint64_t>(8.0 * kGiB * 0.9));
  Cap fraction = compute_cap(dev, core::Level::full, 0.1, 0, plenty);
  EXPECT_EQ(fraction.bound_by, "max_fraction");
  EXPECT_EQ(fraction.bytes, static_cast<uint64_t>(8.0 * kGiB * 0.1));
  Cap capped = compute_cap(dev, core::Level::full, 0, 100 * kMiB, plenty);
  EXPECT_EQ(capped.bound_by, "cap_bytes");
  EXPECT_EQ(capped.bytes, 100 * kMiB);

  HostMemory tight;
  tight.mem_available = 3 * kGiB;
  Cap host_bound = compute_cap(dev, core::Level::full, 0, 0, tight);
  EXPECT_EQ(host_bound.bound_by, "host available memory");
  EXPECT_LT(host_bound.bytes, 3 * kGiB);
  tight.rlimit_as_room = 1 * kGiB;
  Cap as_bound = compute_cap(dev, core::Level::full, 0, 0, tight);
  EXPECT_EQ(as_bound.bound_by, "RLIMIT_AS");
  EXPECT_EQ(as_bound.bytes, 512 * kMiB);
}

TEST(CapTest, DiscreteGpuIgnoresHostMemory) {
  core::DeviceInfo gpu;
  gpu.id = {core::Api::vulkan, 0};
  gpu.device_type = "discrete_gpu";
  gpu.global_mem_size = 16 * kGiB;
  gpu.max_mem_alloc_size = 4 * kGiB;
  HostMemory tight;
  tight.mem_available = 2 * kGiB;
  Cap cap = compute_cap(gpu, core::Level::full, 0, 0, tight);
  EXPECT_EQ(cap.bytes, 16 * kGiB);
  EXPECT_FALSE(shares_host_memory(gpu));
}

TEST(ApiMaxTest, VulkanStorageBufferRangeBindsBelowAllocationSize) {
  core::DeviceInfo vk;
  vk.id = {core::Api::vulkan, 0};
  vk.global_mem_size = 2 * kGiB;
  vk.max_mem_alloc_size = 2 * kGiB;
  vk.api_limits["maxStorageBufferRange"] = uint64_t{128 * kMiB};
  auto [bytes, name] = api_max_allocation(vk);
  EXPECT_EQ(bytes, 128 * kMiB);
  EXPECT_EQ(name, "maxStorageBufferRange");
  core::DeviceInfo cl = cpu_device(kGiB, 256 * kMiB);
  auto [cl_bytes, cl_name] = api_max_allocation(cl);
  EXPECT_EQ(cl_bytes, 256 * kMiB);
  EXPECT_EQ(cl_name, "max_mem_alloc_size");
}

}  // namespace
}  // namespace gauntlet::stress
