#include "backends/drm/drm_sysfs.h"

#include <gtest/gtest.h>

namespace gauntlet::backends::drm {
namespace {

TEST(DrmSysfs, ParsesHexIdsWithAndWithoutPrefix) {
  auto a = parse_hex_id("0x1002\n", "vendor");
  ASSERT_TRUE(a) << a.error().describe();
  EXPECT_EQ(*a, 0x1002u);
  auto b = parse_hex_id("744C", "PCI_ID");
  ASSERT_TRUE(b);
  EXPECT_EQ(*b, 0x744cu);
}

TEST(DrmSysfs, RejectsGarbageIdsNamingTheFileAndText) {
  for (const char* bad : {"zzz", "", "0x", "0x12345678901", "12 34", "-1"}) {
    auto id = parse_hex_id(bad, "/sys/x/vendor");
    ASSERT_FALSE(id) << "accepted '" << bad << "'";
    EXPECT_NE(id.error().message.find("/sys/x/vendor"), std::string::npos);
    EXPECT_EQ(id.error().kind, core::ErrorKind::invalid_argument);
  }
}

TEST(DrmSysfs, ParsesUeventLines) {
  auto map = parse_uevent("DRIVER=amdgpu\nPCI_SLOT_NAME=0000:c1:00.0\nnot a pair\n=x\nOF_X=a=b");
  EXPECT_EQ(map.size(), 3u);
  EXPECT_EQ(map["DRIVER"], "amdgpu");
  EXPECT_EQ(map["PCI_SLOT_NAME"], "0000:c1:00.0");
  EXPECT_EQ(map["OF_X"], "a=b");
}

TEST(DrmSysfs, OrdersNodesPrimaryFirstNumerically) {
  NodeGroup group = make_group("/s", {"renderD129", "card10", "renderD128", "card2"});
  EXPECT_EQ(group.nodes, (std::vector<std::string>{"card2", "card10", "renderD128", "renderD129"}));
  EXPECT_EQ(group.device_dir, std::filesystem::path("/s/class/drm/card2/device"));
  EXPECT_EQ(node_order(group), 2);
  EXPECT_EQ(node_order(make_group("/s", {"renderD130"})), 1'000'130);
}

TEST(DrmSysfs, NamesVendors) {
  EXPECT_EQ(vendor_name(0x1002), "AMD");
  EXPECT_EQ(vendor_name(0x8086), "Intel");
  EXPECT_EQ(vendor_name(0x13b5), "ARM");
  EXPECT_EQ(vendor_name(0xabcd), "vendor 0xabcd");
}

}  // namespace
}  // namespace gauntlet::backends::drm
