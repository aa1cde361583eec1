#include "backends/drm/drm_enumerate.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

#include "tests/support/temp_dir.h"

namespace gauntlet::backends::drm {
namespace {

namespace fs = std::filesystem;

Roots fixture(const std::string& name) {
  fs::path root = fs::path(GAUNTLET_SOURCE_DIR) / "tests/drm/fixtures" / name;
  return Roots{root / "sys", root / "dev"};
}

std::vector<core::DeviceInfo> enumerate_ok(const Roots& roots) {
  auto devices = enumerate(roots);
  EXPECT_TRUE(devices) << devices.error().describe();
  return devices ? *devices : std::vector<core::DeviceInfo>{};
}

TEST(DrmEnumerate, RealRootsUseLibdrmAndFindNothingWithoutDevDri) {
  Roots roots;
  ASSERT_TRUE(roots.is_system());
  if (fs::exists("/dev/dri")) GTEST_SKIP() << "this machine has /dev/dri; the test expects none";
  auto devices = enumerate(roots);
  ASSERT_TRUE(devices) << devices.error().describe();
  EXPECT_TRUE(devices->empty());
}

TEST(DrmEnumerate, RootsComeFromOptions) {
  core::Options options;
  options.sysfs_root = "/tmp/s";
  options.dev_root = "/tmp/d";
  Roots roots = Roots::from_options(options);
  EXPECT_EQ(roots.sysfs, fs::path("/tmp/s"));
  EXPECT_EQ(roots.dev, fs::path("/tmp/d"));
  EXPECT_FALSE(roots.is_system());
  EXPECT_TRUE(Roots::from_options(core::Options{}).is_system());
}

TEST(DrmEnumerate, AmdgpuDiscreteGpu) {
  auto devices = enumerate_ok(fixture("amdgpu"));
  ASSERT_EQ(devices.size(), 1u);  // card0 and renderD128 are one device; card0-DP-1 is skipped
  const auto& gpu = devices[0];
  EXPECT_EQ(gpu.id, (core::DeviceId{core::Api::drm, 0}));
  EXPECT_EQ(gpu.vendor_id, 0x1002u);
  EXPECT_EQ(gpu.device_id, 0x744cu);
  EXPECT_EQ(gpu.vendor, "AMD");
  EXPECT_EQ(gpu.driver_name, "amdgpu");
  ASSERT_TRUE(gpu.pci_bus_id.has_value());
  EXPECT_EQ(*gpu.pci_bus_id, "0000:c1:00.0");
  EXPECT_EQ(gpu.global_mem_size, 16ull << 30);
  EXPECT_FALSE(gpu.host_unified_memory);
  EXPECT_EQ(gpu.device_type, "discrete_gpu");
  ASSERT_EQ(gpu.heaps.size(), 2u);
  EXPECT_EQ(gpu.heaps[0].size, 16ull << 30);
  EXPECT_TRUE(gpu.heaps[0].device_local);
  EXPECT_EQ(gpu.heaps[1].size, 33554432000ull);
  EXPECT_FALSE(gpu.heaps[1].device_local);
  EXPECT_EQ(gpu.api_limits["vis_vram_total"].get<uint64_t>(), 256ull << 20);
  // What every process held at enumeration: the fit subtracts it (harness/memory_pool.h).
  EXPECT_EQ(gpu.api_limits["vram_used"].get<uint64_t>(), 1536ull << 20);
  EXPECT_EQ(gpu.api_limits["gtt_used"].get<uint64_t>(), 100ull << 20);
  EXPECT_EQ(gpu.api_limits["nodes"], (core::Json{"card0", "renderD128"}));
  EXPECT_EQ(gpu.api_limits["render_node"].get<std::string>(),
            (fixture("amdgpu").dev / "dri/renderD128").string());
  EXPECT_EQ(gpu.api_limits["render_node_access"], "read-write");
  EXPECT_TRUE(gpu.usable) << gpu.unusable_reason;
  EXPECT_EQ(gpu.name, "AMD GPU 0x744c (amdgpu)");
}

TEST(DrmEnumerate, IntelIntegratedGpuBesideADisplayOnlyNode) {
  auto devices = enumerate_ok(fixture("intel"));
  ASSERT_EQ(devices.size(), 2u);
  // card0: simpledrm's boot framebuffer, a platform device with no render node.
  const auto& fb = devices[0];
  EXPECT_EQ(fb.id.index, 0);
  EXPECT_EQ(fb.driver_name, "simple-framebuffer");
  EXPECT_FALSE(fb.pci_bus_id.has_value());
  EXPECT_FALSE(fb.usable);
  EXPECT_NE(fb.unusable_reason.find("no render node"), std::string::npos) << fb.unusable_reason;
  // card1 + renderD128: the i915 GPU.
  const auto& gpu = devices[1];
  EXPECT_EQ(gpu.id.index, 1);
  EXPECT_EQ(gpu.vendor_id, 0x8086u);
  EXPECT_EQ(gpu.device_id, 0x46a6u);
  EXPECT_EQ(gpu.driver_name, "i915");
  ASSERT_TRUE(gpu.pci_bus_id.has_value());
  EXPECT_EQ(*gpu.pci_bus_id, "0000:00:02.0");
  EXPECT_EQ(gpu.global_mem_size, 0u);
  EXPECT_TRUE(gpu.heaps.empty());
  EXPECT_TRUE(gpu.host_unified_memory);
  EXPECT_EQ(gpu.device_type, "integrated_gpu");
  EXPECT_EQ(gpu.api_limits["nodes"], (core::Json{"card1", "renderD128"}));
  EXPECT_TRUE(gpu.usable) << gpu.unusable_reason;
}

TEST(DrmEnumerate, PanfrostMaliPlatformDevice) {
  auto devices = enumerate_ok(fixture("panfrost"));
  ASSERT_EQ(devices.size(), 1u);
  const auto& gpu = devices[0];
  EXPECT_EQ(gpu.driver_name, "panfrost");
  EXPECT_FALSE(gpu.pci_bus_id.has_value());
  EXPECT_EQ(gpu.api_limits["bus"], "platform");
  EXPECT_EQ(gpu.api_limits["platform_device"], "ff9a0000.gpu");
  EXPECT_EQ(gpu.api_limits["of_compatible"], (core::Json{"rockchip,rk3399-mali", "arm,mali-t860"}));
  EXPECT_EQ(gpu.vendor_id, 0x13b5u);  // ARM, as Mali's Vulkan and OpenCL drivers report it
  EXPECT_EQ(gpu.vendor, "ARM");
  EXPECT_EQ(gpu.global_mem_size, 0u);
  EXPECT_TRUE(gpu.host_unified_memory);
  EXPECT_EQ(gpu.device_type, "integrated_gpu");
  EXPECT_EQ(gpu.name, "ARM arm,mali-t860 (panfrost)");
  EXPECT_TRUE(gpu.usable) << gpu.unusable_reason;
}

TEST(DrmEnumerate, MalformedTreeStatesEachProblem) {
  Roots roots = fixture("malformed");
  auto devices = enumerate_ok(roots);
  ASSERT_EQ(devices.size(), 2u);
  const auto& bad = devices[0];
  EXPECT_FALSE(bad.usable);
  const std::string& reason = bad.unusable_reason;
  EXPECT_NE(reason.find("vendor: 'zzz' is not a hex id"), std::string::npos) << reason;
  EXPECT_NE(reason.find("uevent"), std::string::npos) << reason;
  EXPECT_NE(reason.find("mem_info_vram_total: 'lots' is not a byte count"), std::string::npos)
      << reason;
  EXPECT_NE(reason.find((roots.dev / "dri/renderD128").string() + " does not exist"),
            std::string::npos)
      << reason;
  EXPECT_EQ(bad.vendor_id, 0u);
  EXPECT_EQ(bad.device_id, 0x1234u);  // the readable file is still used
  EXPECT_EQ(bad.api_limits["render_node_access"], "missing");
  EXPECT_GE(bad.api_limits["problems"].size(), 4u);

  const auto& orphan = devices[1];
  EXPECT_EQ(orphan.api_limits["nodes"], (core::Json{"card1"}));
  EXPECT_FALSE(orphan.usable);
  EXPECT_NE(orphan.unusable_reason.find("card1/device is missing"), std::string::npos)
      << orphan.unusable_reason;
}

TEST(DrmEnumerate, MissingRootIsAClearError) {
  auto devices = enumerate(Roots{"/nonexistent/gauntlet-sys", "/dev"});
  ASSERT_FALSE(devices);
  EXPECT_EQ(devices.error().kind, core::ErrorKind::not_found);
  EXPECT_NE(devices.error().message.find("/nonexistent/gauntlet-sys"), std::string::npos);
  EXPECT_NE(devices.error().message.find("GAUNTLET_SYSFS_ROOT"), std::string::npos);
}

TEST(DrmEnumerate, TreeWithoutClassDrmIsEmpty) {
  gauntlet::testing::TempDir dir("drm-empty");
  fs::create_directories(dir / "sys");
  fs::create_directories(dir / "dev");
  auto devices = enumerate(Roots{dir / "sys", dir / "dev"});
  ASSERT_TRUE(devices) << devices.error().describe();
  EXPECT_TRUE(devices->empty());
}

TEST(DrmEnumerate, RenderNodeThisUserMayNotOpen) {
  if (::geteuid() == 0) GTEST_SKIP() << "root may open any node; run as a normal user";
  gauntlet::testing::TempDir dir("drm-perm");
  fs::copy(fs::path(GAUNTLET_SOURCE_DIR) / "tests/drm/fixtures/amdgpu", dir.path(),
           fs::copy_options::recursive | fs::copy_options::copy_symlinks);
  ::chmod((dir / "dev/dri/renderD128").c_str(), 0);
  auto devices = enumerate(Roots{dir / "sys", dir / "dev"});
  ASSERT_TRUE(devices) << devices.error().describe();
  ASSERT_EQ(devices->size(), 1u);
  EXPECT_FALSE((*devices)[0].usable);
  EXPECT_EQ((*devices)[0].api_limits["render_node_access"], "denied");
  EXPECT_NE((*devices)[0].unusable_reason.find("may not open"), std::string::npos);
}

}  // namespace
}  // namespace gauntlet::backends::drm
