// Runs with OCL_ICD_VENDORS pointing nowhere (set by CTest): the ICD loader then finds no
// platform, which is an empty device list, not an error, and open() says the device is missing.
#include <gtest/gtest.h>

#include <cstdlib>

#include "backends/opencl/opencl_device.h"

namespace gauntlet {
namespace {

TEST(OpenClNoPlatform, EnumerateIsEmptyAndOpenIsNotFound) {
  ASSERT_NE(std::getenv("OCL_ICD_VENDORS"), nullptr) << "run under CTest";
  auto listed = backends::opencl::enumerate();
  ASSERT_TRUE(listed.is_ok()) << listed.error().describe();
  EXPECT_TRUE(listed->empty());
  auto device = backends::opencl::open(0);
  ASSERT_FALSE(device.is_ok());
  EXPECT_EQ(device.error().kind, core::ErrorKind::not_found);
  EXPECT_NE(device.error().describe().find("opencl:0"), std::string::npos);
}

}  // namespace
}  // namespace gauntlet
