#include "probes/select.h"

#include <gtest/gtest.h>

#include "probes/merge.h"

namespace gauntlet::probes {
namespace {

core::DeviceInfo view(core::Api api, int index, std::string name) {
  core::DeviceInfo d;
  d.id = {api, index};
  d.name = std::move(name);
  return d;
}

Inventory sample_inventory() {
  Inventory inventory;
  ApiEnumeration cl;
  cl.api = core::Api::opencl;
  cl.devices = {view(core::Api::opencl, 0, "Radeon (OpenCL)")};
  cl.devices[0].pci_bus_id = "0000:C1:00.0";
  ApiEnumeration vk;
  vk.api = core::Api::vulkan;
  vk.devices = {view(core::Api::vulkan, 0, "Radeon (Vulkan)"),
                view(core::Api::vulkan, 1, "broken")};
  vk.devices[0].pci_bus_id = "c1:00.0";
  vk.devices[1].usable = false;
  vk.devices[1].unusable_reason = "vkCreateDevice returned VK_ERROR_INITIALIZATION_FAILED";
  ApiEnumeration drm;
  drm.api = core::Api::drm;
  drm.devices = {view(core::Api::drm, 0, "amdgpu")};
  drm.devices[0].pci_bus_id = "0000:c1:00.0";
  ApiEnumeration host;
  host.api = core::Api::host;
  host.devices = {view(core::Api::host, 0, "cpu")};
  inventory.apis = {cl, vk, drm, host};
  return inventory;
}

TEST(Merge, OnePhysicalDeviceThroughThreeApisIsShownOnce) {
  auto merged = merge_views(sample_inventory().devices());
  ASSERT_EQ(merged.size(), 3u);  // the Radeon, the broken Vulkan device, the host
  EXPECT_EQ(merged[0].key, "pci:0000:c1:00.0");
  ASSERT_EQ(merged[0].views.size(), 3u);
  EXPECT_EQ(merged[0].views[1].id.to_string(), "vulkan:0");
  EXPECT_EQ(merged[0].views[2].id.to_string(), "drm:0");
  EXPECT_EQ(merged[1].key, "vulkan:1");
  EXPECT_EQ(merged[2].key, "host");
}

TEST(Merge, UuidMergesWhenThereIsNoBusId) {
  auto a = view(core::Api::opencl, 0, "a");
  auto b = view(core::Api::vulkan, 0, "b");
  a.uuid = b.uuid = "00112233445566778899aabbccddeeff";
  auto merged = merge_views({a, b});
  ASSERT_EQ(merged.size(), 1u);
  EXPECT_EQ(merged[0].key, "uuid:00112233445566778899aabbccddeeff");
}

TEST(Merge, NormalizesBusIds) {
  EXPECT_EQ(normalize_pci_bus_id("0000:C1:00.0"), "0000:c1:00.0");
  EXPECT_EQ(normalize_pci_bus_id("c1:00.0"), "0000:c1:00.0");
  EXPECT_FALSE(normalize_pci_bus_id("opencl:0"));
  EXPECT_FALSE(normalize_pci_bus_id("c1:00.9"));
}

TEST(Select, AllTakesEveryUsableComputeDeviceAndNotesTheUnusable) {
  auto selection = select_devices("all", core::Fallback::none, sample_inventory());
  ASSERT_TRUE(selection.is_ok());
  std::vector<std::string> ids;
  for (const auto& id : selection->devices) ids.push_back(id.to_string());
  EXPECT_EQ(ids, (std::vector<std::string>{"opencl:0", "vulkan:0"}));
  ASSERT_EQ(selection->notes.size(), 1u);
  EXPECT_NE(selection->notes[0].find("VK_ERROR_INITIALIZATION_FAILED"), std::string::npos);
}

// The cpu device is judged with the GPUs; the host is the reference they are all compared with,
// judged only when named.
TEST(Select, AllJudgesTheCpuDeviceAndLeavesTheHostReferenceToBeNamed) {
  auto inventory = sample_inventory();
  inventory.apis.back().devices.push_back(view(core::Api::host, 1, "cpu"));
  auto all = select_devices("all", core::Fallback::none, inventory);
  ASSERT_TRUE(all.is_ok());
  std::vector<std::string> ids;
  for (const auto& id : all->devices) ids.push_back(id.to_string());
  EXPECT_EQ(ids, (std::vector<std::string>{"opencl:0", "vulkan:0", "cpu"}));
  auto named = select_devices("cpu,host", core::Fallback::none, inventory);
  ASSERT_TRUE(named.is_ok());
  ASSERT_EQ(named->devices.size(), 2u);
  EXPECT_EQ(named->devices[0], (core::DeviceId{core::Api::host, 1}));
  EXPECT_EQ(named->devices[0].to_string(), "cpu");
  EXPECT_EQ(named->devices[1].to_string(), "host");
}

TEST(Select, AMissingDeviceIsAnErrorNamingWhatExists) {
  auto selection = select_devices("vulkan:7", core::Fallback::none, sample_inventory());
  ASSERT_FALSE(selection.is_ok());
  const auto& message = selection.error().message;
  EXPECT_NE(message.find("vulkan:7 does not exist"), std::string::npos) << message;
  EXPECT_NE(message.find("opencl:0 (Radeon (OpenCL))"), std::string::npos) << message;
  EXPECT_NE(message.find("vulkan:1 (broken, unusable)"), std::string::npos) << message;
}

TEST(Select, FallbackToHostIsStated) {
  auto selection = select_devices("vulkan:7", core::Fallback::host, sample_inventory());
  ASSERT_TRUE(selection.is_ok());
  ASSERT_EQ(selection->devices.size(), 1u);
  EXPECT_EQ(selection->devices[0].to_string(), "host");
  EXPECT_TRUE(selection->fell_back);
  EXPECT_NE(selection->notes.at(0).find("falling back to host"), std::string::npos);
}

TEST(Select, AnUnusableDeviceIsRefusedWithItsReason) {
  auto selection = select_devices("vulkan:1", core::Fallback::none, sample_inventory());
  ASSERT_FALSE(selection.is_ok());
  EXPECT_NE(selection.error().message.find("VK_ERROR_INITIALIZATION_FAILED"), std::string::npos);
}

TEST(Select, APciBusIdSelectsEveryComputeViewOfThatDevice) {
  auto selection = select_devices("0000:c1:00.0", core::Fallback::none, sample_inventory());
  ASSERT_TRUE(selection.is_ok());
  ASSERT_EQ(selection->devices.size(), 2u);
  EXPECT_EQ(selection->devices[0].to_string(), "opencl:0");
  EXPECT_EQ(selection->devices[1].to_string(), "vulkan:0");
}

TEST(Select, GarbageIsAUsageError) {
  auto selection = select_devices("cuda:0", core::Fallback::host, sample_inventory());
  ASSERT_FALSE(selection.is_ok());
  EXPECT_EQ(selection.error().kind, core::ErrorKind::invalid_argument);
  EXPECT_NE(selection.error().message.find("'cuda:0'"), std::string::npos);
}

}  // namespace
}  // namespace gauntlet::probes
