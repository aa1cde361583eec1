#include "core/options.h"

#include <gtest/gtest.h>

#include <cstdlib>

namespace gauntlet::core {
namespace {

TEST(Options, EnvironmentSetsDeviceAndFallback) {
  ::setenv("GAUNTLET_DEVICE", "vulkan:1", 1);
  ::setenv("GAUNTLET_FALLBACK", "host", 1);
  auto options = Options::from_environment();
  ::unsetenv("GAUNTLET_DEVICE");
  ::unsetenv("GAUNTLET_FALLBACK");
  ASSERT_TRUE(options.is_ok());
  EXPECT_EQ(options->device, "vulkan:1");
  EXPECT_EQ(options->fallback, Fallback::host);
  EXPECT_EQ(options->sources.at("device"), "environment GAUNTLET_DEVICE");
}

TEST(Options, ABadFallbackNamesTheValue) {
  ::setenv("GAUNTLET_FALLBACK", "cpu", 1);
  auto options = Options::from_environment();
  ::unsetenv("GAUNTLET_FALLBACK");
  ASSERT_FALSE(options.is_ok());
  EXPECT_NE(options.error().message.find("'cpu'"), std::string::npos);
}

TEST(Options, FaultSwitchesAreFoundBySite) {
  Options options;
  options.test_faults = "probe.opencl=crash,probe.vulkan=hang";
  EXPECT_EQ(options.fault_for("probe.opencl"), "crash");
  EXPECT_EQ(options.fault_for("probe.vulkan"), "hang");
  EXPECT_FALSE(options.fault_for("probe.drm").has_value());
}

TEST(Options, DriverEnvironmentListsOnlyDriverVariables) {
  ::setenv("POCL_MEMORY_LIMIT", "1", 1);
  ::setenv("UNRELATED_THING", "1", 1);
  auto vars = driver_environment();
  ::unsetenv("POCL_MEMORY_LIMIT");
  ::unsetenv("UNRELATED_THING");
  bool pocl = false;
  for (const auto& [name, value] : vars) {
    EXPECT_NE(name, "UNRELATED_THING");
    if (name == "POCL_MEMORY_LIMIT") pocl = value == "1";
  }
  EXPECT_TRUE(pocl);
}

}  // namespace
}  // namespace gauntlet::core
