#pragma once
// The device under test for the engine_device suites: one executable per API, the same tests,
// compiled once (test_api.cpp, built into each executable with GAUNTLET_TEST_API "opencl" or
// "vulkan", names the API). Vulkan runs under the validation layer and every test ends with no
// validation message.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "backends/catalog.h"
#include "build_options.h"
#include "core/options.h"
#include "engine/model/gguf.h"
#include "engine/model/synthetic.h"
#include "tests/support/temp_dir.h"
#ifdef GAUNTLET_WITH_VULKAN
#include "backends/vulkan/vulkan_device.h"
#endif

namespace gauntlet::engine::test {

// "opencl" or "vulkan": the executable's (test_api.cpp).
const char* test_api();
inline bool testing_vulkan() { return std::string(test_api()) == "vulkan"; }

inline core::DeviceId test_device_id() {
  auto id = core::DeviceId::parse(std::string(test_api()) + ":0");
  return *id;
}

inline std::vector<std::string> vulkan_validation_messages() {
#ifdef GAUNTLET_WITH_VULKAN
  if (testing_vulkan()) return backends::vulkan::validation_messages();
#endif
  return {};
}
inline void clear_vulkan_validation_messages() {
#ifdef GAUNTLET_WITH_VULKAN
  if (testing_vulkan()) backends::vulkan::clear_validation_messages();
#endif
}

class DeviceTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    auto env = core::Options::from_environment();
    ASSERT_TRUE(env.is_ok()) << env.error().describe();
    if (testing_vulkan()) {
      ASSERT_TRUE(env->vulkan_validation) << "the test must run with GAUNTLET_VK_VALIDATION=1";
    }
    auto d = backends::open(test_device_id(), *env);
    ASSERT_TRUE(d.is_ok()) << "no " << test_api()
                           << ":0 (is the driver installed?): " << d.error().describe();
    device_ = std::move(*d);
  }
  static void TearDownTestSuite() { device_.reset(); }
  void SetUp() override {
    ASSERT_NE(device_, nullptr) << test_api() << ":0 could not be opened";
    clear_vulkan_validation_messages();
  }
  void TearDown() override {
    auto messages = vulkan_validation_messages();
    std::string all;
    for (const auto& m : messages) all += m + "\n";
    EXPECT_TRUE(messages.empty()) << messages.size() << " validation message(s):\n" << all;
  }
  backends::Device& device() { return *device_; }

  static inline std::unique_ptr<backends::Device> device_;
};

// DeviceTest with the host backend opened beside the device, for tests that split a model
// between them or run the host's share.
class DeviceAndHostTest : public DeviceTest {
 protected:
  static void SetUpTestSuite() {
    DeviceTest::SetUpTestSuite();
    auto env = core::Options::from_environment();
    ASSERT_TRUE(env.is_ok());
    auto h = backends::open(*core::DeviceId::parse("host"), *env);
    ASSERT_TRUE(h.is_ok()) << h.error().describe();
    host_ = std::move(*h);
  }
  static void TearDownTestSuite() {
    host_.reset();
    DeviceTest::TearDownTestSuite();
  }
  static inline std::unique_ptr<backends::Device> host_;
};

inline std::vector<float> random_floats(size_t n, uint64_t seed, float scale = 1.0f) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> dist(-scale, scale);
  std::vector<float> v(n);
  for (auto& x : v) x = dist(rng);
  return v;
}

// A synthetic model written to a temporary file and opened (the file is removed at once);
// `overrides` as `model make --tensor-type`, `imatrix` as its --imatrix.
inline std::unique_ptr<model::GgufFile> synthetic_file(
    const model::ModelShape& shape, model::FileType format, uint64_t seed = 5,
    std::span<const model::TensorTypeOverride> overrides = {},
    const model::Imatrix* imatrix = nullptr) {
  const auto path = gauntlet::testing::temp_file_path("engine-device-" + shape.name + "-" +
                                                      model::to_string(format) + ".gguf");
  auto written = model::write_synthetic_model(shape, format, seed, path, true, overrides, imatrix);
  EXPECT_TRUE(written.is_ok()) << written.error().describe();
  auto file = model::GgufFile::open(path);
  EXPECT_TRUE(file.is_ok()) << file.error().describe();
  std::error_code ec;
  std::filesystem::remove(path, ec);
  return file.is_ok() ? std::move(*file) : nullptr;
}

}  // namespace gauntlet::engine::test
