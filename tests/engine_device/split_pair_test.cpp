// A model split between two devices, opencl:0 and vulkan:0 (llama.cpp's --device A,B -ts 1,1):
// the split gives the host reference's logits (teacher-forced) and greedy tokens for llama,
// qwen3 and gemma3 (split_cases: F32, Q8_0 and Q4_K_M, micro-batches 1, 512 and 32), and for 4
// sequences.
#include <gtest/gtest.h>

#include "backends/catalog.h"
#include "backends/vulkan/vulkan_device.h"
#include "core/options.h"
#include "engine/model/synthetic.h"
#include "tests/engine_device/split_check.h"
#include "tests/support/temp_dir.h"

namespace gauntlet::engine::test {
namespace {

class EngineSplitPair : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    auto env = core::Options::from_environment();
    ASSERT_TRUE(env.is_ok()) << env.error().describe();
    ASSERT_TRUE(env->vulkan_validation) << "the test must run with GAUNTLET_VK_VALIDATION=1";
    for (const char* name : {"opencl:0", "vulkan:0", "host"}) {
      auto d = backends::open(*core::DeviceId::parse(name), *env);
      ASSERT_TRUE(d.is_ok()) << "no " << name << ": " << d.error().describe();
      devices_.push_back(std::move(*d));
    }
  }
  static void TearDownTestSuite() { devices_.clear(); }
  void SetUp() override {
    ASSERT_EQ(devices_.size(), 3u);
    backends::vulkan::clear_validation_messages();
  }
  void TearDown() override { EXPECT_TRUE(backends::vulkan::validation_messages().empty()); }
  std::vector<backends::Device*> devices() {
    return {devices_[0].get(), devices_[1].get(), devices_[2].get()};
  }
  placement::Placement even(uint32_t n_layer) {
    auto p = placement::from_gpu_layers(n_layer, {-1, {"opencl:0", "vulkan:0"}, {1, 1}});
    EXPECT_TRUE(p.is_ok()) << p.error().describe();
    return *p;
  }
  std::unique_ptr<model::GgufFile> file_of(const model::ModelShape& shape, model::FileType f) {
    const auto path = gauntlet::testing::temp_file_path("split-pair-" + shape.name + ".gguf");
    EXPECT_TRUE(model::write_synthetic_model(shape, f, 5, path, true).is_ok());
    auto file = model::GgufFile::open(path);
    std::error_code ec;
    std::filesystem::remove(path, ec);
    EXPECT_TRUE(file.is_ok());
    return file.is_ok() ? std::move(*file) : nullptr;
  }

  static inline std::vector<std::unique_ptr<backends::Device>> devices_;
};

TEST_F(EngineSplitPair, OpenClThenVulkanGivesTheReference) {
  const auto archs = split_architectures();
  for (const auto& c : split_cases()) {
    const auto& arch = archs[c.arch_index];
    const auto p = even(arch.shape.n_layer);
    const auto per_device = p.slots_per_device();
    ASSERT_GT(per_device[0], 0u);
    ASSERT_GT(per_device[1], 0u);
    EXPECT_EQ(per_device[2], 0u);  // nothing on the host
    auto file = file_of(arch.shape, c.format);
    ASSERT_NE(file, nullptr);
    SCOPED_TRACE(arch.shape.name + " " + model::to_string(c.format) + " ub " +
                 std::to_string(c.micro_batch) + " " + p.describe());
    expect_split_matches_reference(p, devices(), *file, c.micro_batch);
  }
}

TEST_F(EngineSplitPair, FourSequencesAcrossTwoDevices) {
  const auto arch = split_architectures().back();
  auto file = file_of(arch.shape, model::FileType::q8_0);
  ASSERT_NE(file, nullptr);
  expect_sequences_match_reference(even(arch.shape.n_layer), devices(), *file, 4);
}

}  // namespace
}  // namespace gauntlet::engine::test
