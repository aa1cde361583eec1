#pragma once
// Every Vulkan test runs under the validation layer (GAUNTLET_VK_VALIDATION=1 on the test) and
// ends with no validation message recorded.
#include <gtest/gtest.h>

#include <string>

#include "backends/vulkan/vulkan_device.h"
#include "core/options.h"

namespace gauntlet::testing {

class VulkanTest : public ::testing::Test {
 protected:
  void SetUp() override {
    backends::vulkan::clear_validation_messages();
    auto env = core::Options::from_environment();
    ASSERT_TRUE(env.is_ok()) << env.error().describe();
    options_ = *env;
    ASSERT_TRUE(options_.vulkan_validation) << "the test must run with GAUNTLET_VK_VALIDATION=1";
  }

  void TearDown() override {
    auto messages = backends::vulkan::validation_messages();
    std::string all;
    for (const auto& m : messages) all += m + "\n";
    EXPECT_TRUE(messages.empty()) << messages.size() << " validation message(s):\n" << all;
  }

  core::Options options_;
};

}  // namespace gauntlet::testing
