#include "harness/simulate.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>

#include "tests/support/temp_dir.h"

namespace gauntlet::harness {
namespace {

core::DeviceInfo big_device() {
  core::DeviceInfo d;
  d.id = {core::Api::vulkan, 0};
  d.local_mem_size = 65536;
  d.global_mem_size = 24ull << 30;
  d.max_mem_alloc_size = 8ull << 30;
  d.features.bf16 = true;
  d.features.fp16_arithmetic = true;
  return d;
}

TEST(Simulate, PresetsLoadAndClamp) {
  auto names = simulate_preset_names();
  EXPECT_EQ(names, (std::vector<std::string>{"m2-32k-local", "mali-3g-no-bf16", "arc-16g", "arc-8g",
                                             "rtx-24g", "h100-80g", "h200-141g", "strix-halo-128g",
                                             "gb10-128g"}));
  auto m2 = load_simulate("m2-32k-local");
  ASSERT_TRUE(m2.is_ok()) << m2.error().describe();
  auto clamped = apply_clamps(big_device(), *m2);
  EXPECT_EQ(clamped.local_mem_size, 32768u);
  EXPECT_EQ(clamped.global_mem_size, 24ull << 30);
  EXPECT_EQ(clamp_local_memory(65536, *m2), 32768u);
  EXPECT_EQ(clamp_local_memory(16384, *m2), 16384u);

  auto mali = load_simulate("mali-3g-no-bf16");
  ASSERT_TRUE(mali.is_ok());
  auto small = apply_clamps(big_device(), *mali);
  EXPECT_EQ(small.global_mem_size, 3ull << 30);
  EXPECT_FALSE(small.features.bf16);
  EXPECT_TRUE(small.features.fp16_arithmetic);
  EXPECT_TRUE(feature_disabled(*mali, "bf16"));
  EXPECT_EQ(clamp_memory_budget(20ull << 30, *mali), 3ull << 30);

  auto arc = load_simulate("arc-16g");
  ASSERT_TRUE(arc.is_ok());
  EXPECT_EQ(apply_clamps(big_device(), *arc).global_mem_size, 16ull << 30);
  auto arc8 = load_simulate("arc-8g");
  ASSERT_TRUE(arc8.is_ok());
  EXPECT_EQ(apply_clamps(big_device(), *arc8).global_mem_size, 8ull << 30);
}

TEST(Simulate, BadFilesAreNamedErrors) {
  gauntlet::testing::TempDir dir("simulate");
  const auto path = dir / "sim.json";
  std::ofstream(path) << R"({"local_mem_size": -5})";
  auto negative = load_simulate(path.string());
  ASSERT_FALSE(negative.is_ok());
  EXPECT_NE(negative.error().message.find("local_mem_size"), std::string::npos);

  std::ofstream(path) << R"({"features_off": ["warp_drive"]})";
  auto unknown = load_simulate(path.string());
  ASSERT_FALSE(unknown.is_ok());
  EXPECT_NE(unknown.error().message.find("warp_drive"), std::string::npos);

  std::ofstream(path) << R"({"local_mem_size": 1)";
  EXPECT_FALSE(load_simulate(path.string()).is_ok());

  auto missing = load_simulate("no-such-preset");
  ASSERT_FALSE(missing.is_ok());
  EXPECT_NE(missing.error().message.find("m2-32k-local"), std::string::npos);
}

TEST(Simulate, SharedMemoryPresetsAndTheirBadFiles) {
  auto strix = load_simulate("strix-halo-128g");
  ASSERT_TRUE(strix.is_ok()) << strix.error().describe();
  EXPECT_TRUE(strix->shared_memory);
  EXPECT_EQ(strix->host_mem_size, 128ull << 30);
  EXPECT_EQ(strix->global_mem_size, 120ull << 30);
  EXPECT_EQ(strix->memory_bound, "ttm.pages_limit");
  auto gb10 = load_simulate("gb10-128g");
  ASSERT_TRUE(gb10.is_ok()) << gb10.error().describe();
  EXPECT_EQ(gb10->memory_bound, "host memory");
  EXPECT_EQ(load_simulate("arc-16g")->memory_bound, "VRAM");
  EXPECT_FALSE(load_simulate("arc-16g")->shared_memory);

  const std::pair<const char*, const char*> bad[] = {
      {R"({"shared_memory": true})", "needs 'global_mem_size'"},
      {R"({"global_mem_size": 1024, "host_mem_size": 2048})", "set 'shared_memory'"},
      {R"({"global_mem_size": 1024, "memory_bound": "GTT"})", "set 'shared_memory'"},
      {R"({"shared_memory": true, "global_mem_size": 1024, "memory_bound": "VRAM"})", "not VRAM"},
      {R"({"shared_memory": true, "global_mem_size": 1024, "memory_bound": "swap"})",
       "must be one of"},
      {R"({"shared_memory": "yes", "global_mem_size": 1024})", "true or false"},
      {R"({"global_mem_size": 1024, "driver_free_mem_size": 0})", "positive integer"},
  };
  for (const auto& [text, message] : bad) {
    auto parsed = parse_simulate(text, "bad.json");
    ASSERT_FALSE(parsed.is_ok()) << text;
    EXPECT_NE(parsed.error().message.find(message), std::string::npos)
        << text << ": " << parsed.error().message;
    EXPECT_EQ(parsed.error().kind, core::ErrorKind::invalid_argument);
  }
}

}  // namespace
}  // namespace gauntlet::harness
