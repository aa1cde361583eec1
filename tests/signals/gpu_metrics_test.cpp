// The gpu_metrics decoder over the fixture files of fixtures/gpu_metrics (written by
// make_fixtures.py in the kernel's layouts) and over malformed and cut-short input.
#include "signals/gpu_metrics.h"

#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <vector>

#include "tests/signals/fixtures.h"

namespace gauntlet::signals {
namespace {

using Names = std::vector<std::string>;

std::vector<std::byte> bytes_of(const std::string& name) {
  std::ifstream in(testing::fixtures() / "gpu_metrics" / name, std::ios::binary);
  const std::vector<char> chars((std::istreambuf_iterator<char>(in)),
                                std::istreambuf_iterator<char>());
  std::vector<std::byte> bytes(chars.size());
  std::memcpy(bytes.data(), chars.data(), chars.size());
  return bytes;
}

core::Result<GpuMetrics> decode(const std::string& name) {
  return decode_gpu_metrics(bytes_of(name));
}

std::string error_of(const std::vector<std::byte>& bytes) {
  const auto decoded = decode_gpu_metrics(bytes);
  return decoded ? "decoded" : decoded.error().message;
}

TEST(GpuMetrics, V1_1HasNoIndependentThrottleWordAndLeavesUnfilledFieldsAbsent) {
  const auto m = decode("v1_1.bin");
  ASSERT_TRUE(m) << m.error().message;
  EXPECT_EQ(m->format_revision, 1);
  EXPECT_EQ(m->content_revision, 1);
  EXPECT_EQ(m->temperatures_c.at("edge"), 50.0);
  EXPECT_EQ(m->temperatures_c.at("junction"), 60.0);
  EXPECT_FALSE(m->temperatures_c.contains("mem"));  // 0xffff: not filled by the firmware
  EXPECT_EQ(m->socket_power_w, 120.0);
  EXPECT_EQ(m->gfx_activity_percent, 12.0);
  EXPECT_EQ(m->clocks_mhz.at("gfx"), 1725.0);
  EXPECT_EQ(m->clocks_mhz.at("mem"), 1000.0);
  EXPECT_EQ(m->throttle_status, 0u);
  EXPECT_FALSE(m->indep_throttle_status.has_value());
  EXPECT_TRUE(m->throttle_reasons().empty());
}

TEST(GpuMetrics, V1_2ReportsAnAsicDependentThrottleWordByThatName) {
  const auto m = decode("v1_2.bin");
  ASSERT_TRUE(m) << m.error().message;
  EXPECT_EQ(m->temperatures_c.at("mem"), 70.0);
  EXPECT_EQ(m->throttle_status, 0x20u);
  EXPECT_EQ(m->throttle_reasons(), (Names{"asic_dependent"}));
}

TEST(GpuMetrics, V1_3NamesTheIndependentThrottleBits) {
  const auto m = decode("v1_3.bin");
  ASSERT_TRUE(m) << m.error().message;
  EXPECT_EQ(m->temperatures_c.at("edge"), 65.0);
  EXPECT_EQ(m->temperatures_c.at("junction"), 91.0);
  EXPECT_EQ(m->temperatures_c.at("mem"), 80.0);
  EXPECT_EQ(m->socket_power_w, 245.0);
  EXPECT_EQ(m->clocks_mhz.at("gfx"), 1365.0);
  EXPECT_EQ(m->clocks_mhz.at("soc"), 1200.0);
  EXPECT_EQ(m->indep_throttle_status, (1ull << 0) | (1ull << 36));
  EXPECT_EQ(m->throttle_reasons(), (Names{"ppt0", "temp_hotspot"}));
}

TEST(GpuMetrics, V2_0ReadsCentiDegreesAndMilliwatts) {
  const auto m = decode("v2_0.bin");
  ASSERT_TRUE(m) << m.error().message;
  EXPECT_DOUBLE_EQ(m->temperatures_c.at("gfx"), 58.0);
  EXPECT_DOUBLE_EQ(m->temperatures_c.at("soc"), 50.0);
  EXPECT_DOUBLE_EQ(*m->socket_power_w, 12.0);
  EXPECT_EQ(m->clocks_mhz.at("gfx"), 2000.0);
  EXPECT_EQ(m->clocks_mhz.at("fclk"), 1600.0);
  EXPECT_FALSE(m->indep_throttle_status.has_value());
}

TEST(GpuMetrics, V2_2AndV2_3DecodeTheirThrottleBits) {
  const auto m = decode("v2_2.bin");
  ASSERT_TRUE(m) << m.error().message;
  EXPECT_DOUBLE_EQ(m->temperatures_c.at("gfx"), 61.5);
  EXPECT_DOUBLE_EQ(*m->socket_power_w, 15.0);
  EXPECT_EQ(m->gfx_activity_percent, 80.0);
  EXPECT_EQ(m->throttle_reasons(), (Names{"spl", "temp_gpu"}));
  const auto v23 = decode("v2_3.bin");
  ASSERT_TRUE(v23) << v23.error().message;
  EXPECT_EQ(v23->content_revision, 3);
  EXPECT_DOUBLE_EQ(v23->temperatures_c.at("gfx"), 64.0);
  EXPECT_DOUBLE_EQ(*v23->socket_power_w, 18.0);
  EXPECT_EQ(v23->indep_throttle_status, 0u);
  EXPECT_TRUE(v23->throttle_reasons().empty());
}

TEST(GpuMetrics, MalformedFilesAreRefusedByName) {
  EXPECT_EQ(error_of(bytes_of("truncated.bin")),
            "gpu_metrics header says 120 bytes, the file has 60");
  EXPECT_EQ(error_of(bytes_of("size_mismatch.bin")),
            "gpu_metrics header says 200 bytes, the file has 120");
  EXPECT_EQ(error_of(bytes_of("unknown_revision.bin")), "gpu_metrics format 9.7 not known");
  EXPECT_EQ(error_of(bytes_of("wrong_size_for_revision.bin")),
            "gpu_metrics 1.3 is 120 bytes in the kernel's layout, the file has 96");
  EXPECT_EQ(error_of({}), "gpu_metrics too short: 0 bytes, its header alone is 4");
  EXPECT_EQ(error_of(std::vector<std::byte>(3)),
            "gpu_metrics too short: 3 bytes, its header alone is 4");
}

// v1.4 and v1.5 (MI300) and v3.0 have other layouts: they are named, not read as another.
TEST(GpuMetrics, RevisionsNotDecodedAreNamed) {
  for (const auto& [format, content] : {std::pair{1, 4}, {1, 5}, {3, 0}, {0, 0}, {2, 9}}) {
    std::vector<std::byte> bytes(120);
    bytes[0] = std::byte{120};
    bytes[2] = static_cast<std::byte>(format);
    bytes[3] = static_cast<std::byte>(content);
    EXPECT_EQ(error_of(bytes), "gpu_metrics format " + std::to_string(format) + "." +
                                   std::to_string(content) + " not known");
  }
}

// Every prefix of every fixture: refused by name (ASan, in the asan preset, checks the reads).
TEST(GpuMetrics, EveryCutShortFileIsRefused) {
  for (const char* name :
       {"v1_1.bin", "v1_2.bin", "v1_3.bin", "v2_0.bin", "v2_2.bin", "v2_3.bin"}) {
    const auto bytes = bytes_of(name);
    ASSERT_FALSE(bytes.empty()) << name;
    for (size_t size = 0; size < bytes.size(); ++size) {
      const std::vector<std::byte> prefix(bytes.begin(), bytes.begin() + static_cast<long>(size));
      EXPECT_NE(error_of(prefix), "decoded") << name << " cut to " << size;
    }
  }
}

TEST(GpuMetrics, ThrottlerBitsHaveTheKernelsNames) {
  EXPECT_EQ(smu_throttler_name(0), "ppt0");
  EXPECT_EQ(smu_throttler_name(35), "temp_edge");
  EXPECT_EQ(smu_throttler_name(47), "prochot_gfx");
  EXPECT_EQ(smu_throttler_name(57), "fit");
  EXPECT_EQ(smu_throttler_name(12), "bit12");
}

}  // namespace
}  // namespace gauntlet::signals
