// Runs with POCL_DEVICES="pthread basic" (set by CTest before the ICD loader starts): PoCL then
// offers two devices, and both must enumerate, open and compute.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "backends/opencl/opencl_device.h"
#include "backends/saxpy.h"

namespace gauntlet {
namespace {

TEST(OpenClTwoDevices, PoclDevicesGivesTwoDevices) {
  const char* env = std::getenv("POCL_DEVICES");
  ASSERT_NE(env, nullptr) << "this test runs under CTest with POCL_DEVICES set";
  ASSERT_EQ(std::string(env), "pthread basic");
  auto listed = backends::opencl::enumerate();
  ASSERT_TRUE(listed.is_ok()) << listed.error().describe();
  ASSERT_EQ(listed->size(), 2u);
  bool saw_pthread = false, saw_basic = false;
  for (const auto& info : *listed) {
    saw_pthread |= info.name.rfind("pthread", 0) == 0;
    saw_basic |= info.name.rfind("basic", 0) == 0;
    EXPECT_TRUE(info.usable) << info.unusable_reason;
  }
  EXPECT_TRUE(saw_pthread);
  EXPECT_TRUE(saw_basic);
  EXPECT_EQ((*listed)[1].id.to_string(), "opencl:1");
}

TEST(OpenClTwoDevices, BothDevicesRunSaxpy) {
  std::vector<float> x{1, 2, 3, 4, 5}, y{10, 20, 30, 40, 50};
  for (int index = 0; index < 2; ++index) {
    auto device = backends::opencl::open(index);
    ASSERT_TRUE(device.is_ok()) << device.error().describe();
    auto out = backends::run_saxpy(**device, 2.0f, x, y);
    ASSERT_TRUE(out.is_ok()) << out.error().describe();
    EXPECT_EQ(*out, (std::vector<float>{12, 24, 36, 48, 60})) << (*device)->name();
  }
}

}  // namespace
}  // namespace gauntlet
