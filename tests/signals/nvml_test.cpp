// NVML loaded at run time: absent, and present as the scripted stand-in (fake_nvml.cpp, built
// beside this test) that GAUNTLET_NVML_LIBRARY points at.
#include "signals/nvml.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

#include "signals/device_signals.h"
#include "signals/json.h"
#include "signals/sampler.h"
#include "tests/support/temp_dir.h"

namespace gauntlet::signals {
namespace {

using namespace std::chrono_literals;

class NvmlTest : public ::testing::Test {
 protected:
  void SetUp() override {
    fake_ = GAUNTLET_FAKE_NVML;
    ::setenv("GAUNTLET_FAKE_NVML_SCRIPT", script_path().c_str(), 1);
    ::setenv("GAUNTLET_NVML_LIBRARY", fake_.c_str(), 1);
    script("");
  }
  void TearDown() override {
    ::unsetenv("GAUNTLET_NVML_LIBRARY");
    ::unsetenv("GAUNTLET_FAKE_NVML_SCRIPT");
  }
  std::string script_path() const { return (dir_.path() / "script").string(); }
  // Whole at once (written aside, renamed over): the sampler's thread may be reading it.
  void script(const std::string& text) const {
    std::ofstream(script_path() + ".next") << text;
    std::filesystem::rename(script_path() + ".next", script_path());
  }

  gauntlet::testing::TempDir dir_{"signals-nvml"};
  std::string fake_;
};

TEST(Nvml, AnAbsentLibraryIsNamed) {
  ::setenv("GAUNTLET_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1", 1);
  const auto nvml = Nvml::load();
  ::unsetenv("GAUNTLET_NVML_LIBRARY");
  ASSERT_FALSE(nvml);
  EXPECT_EQ(nvml.error().kind, core::ErrorKind::not_found);
  EXPECT_EQ(nvml.error().message.rfind("telemetry: NVML not found (", 0), 0u)
      << nvml.error().message;
  EXPECT_EQ(Nvml::library_name(), "libnvidia-ml.so.1");
}

TEST_F(NvmlTest, ReadsTemperaturePowerClocksReasonsAndLink) {
  script("reasons=0x44\n");
  auto nvml = Nvml::load();
  ASSERT_TRUE(nvml) << nvml.error().message;
  EXPECT_EQ(*(*nvml)->device_count(), 2u);
  EXPECT_EQ(*(*nvml)->bus_id(1), "0000:02:00.0");
  const DeviceSignals gpu = nvml_device_signals(*nvml, 0);
  EXPECT_EQ(gpu.device, "0000:01:00.0");
  const Snapshot s = gpu.snapshot();
  EXPECT_EQ(s.temperatures_c.at("gpu"), 83.0);
  EXPECT_DOUBLE_EQ(*s.power_w, 312.5);
  EXPECT_EQ(s.clocks_mhz.at("gfx"), 1725.0);
  EXPECT_EQ(s.clocks_mhz.at("sm"), 1725.0);
  EXPECT_EQ(s.clocks_mhz.at("mem"), 9501.0);
  EXPECT_EQ(s.throttle_reasons, (std::set<std::string>{"sw_power_cap", "hw_thermal_slowdown"}));
  ASSERT_TRUE(s.link.has_value());
  EXPECT_EQ(s.link->speed_gts, 16.0);
  EXPECT_EQ(s.link->width, 16);
  EXPECT_FALSE(s.link->degraded());
  EXPECT_TRUE(s.problems.empty());
  EXPECT_TRUE(s.absent.empty());
}

TEST_F(NvmlTest, AnUnsupportedSignalIsAbsentNotZero) {
  script("temperature=unsupported\nlink_gen=1\nlink_width=4\n");
  auto nvml = Nvml::load();
  ASSERT_TRUE(nvml) << nvml.error().message;
  const Snapshot s = nvml_device_signals(*nvml, 0).snapshot();
  EXPECT_FALSE(s.temperatures_c.contains("gpu"));
  EXPECT_EQ(s.absent, std::vector<std::string>{"nvml: nvmlDeviceGetTemperature not supported"});
  EXPECT_TRUE(s.link->degraded());
  EXPECT_FALSE(to_json(s).contains("temperatures_c"));
}

TEST_F(NvmlTest, CountersMoveBetweenBeforeAndAfter) {
  auto nvml = Nvml::load();
  ASSERT_TRUE(nvml) << nvml.error().message;
  const DeviceSignals gpu = nvml_device_signals(*nvml, 0);
  const Counters before = gpu.counters();
  EXPECT_EQ(before.values.at("ecc.volatile.corrected"), 0u);
  EXPECT_EQ(before.values.at("ecc.aggregate.corrected"), 10u);
  EXPECT_EQ(before.values.at("remapped_rows.correctable"), 0u);
  EXPECT_EQ(before.values.at("pcie_replay"), 0u);
  EXPECT_EQ(before.firmware, "96.00.89.00.01");
  script("ecc_corrected=7\nremapped_pending=1\n");
  const auto changes = diff(before, gpu.counters());
  ASSERT_EQ(changes.size(), 2u);
  EXPECT_EQ(changes[0].name, "ecc.volatile.corrected");
  EXPECT_EQ(changes[0].delta, 7);
  EXPECT_EQ(changes[1].name, "remapped_rows.pending");
}

TEST_F(NvmlTest, AFailingInitIsNamed) {
  script("init=3\n");
  const auto nvml = Nvml::load();
  ASSERT_FALSE(nvml);
  EXPECT_EQ(nvml.error().message, "telemetry: nvml: nvmlInit_v2 returned 3");
}

TEST_F(NvmlTest, OlderDriversThrottleReasonsAreTheFallback) {
  ::setenv("GAUNTLET_NVML_LIBRARY", GAUNTLET_FAKE_NVML_OLD, 1);
  script("reasons=0x4\n");
  auto nvml = Nvml::load();
  ASSERT_TRUE(nvml) << nvml.error().message;
  EXPECT_EQ(nvml_device_signals(*nvml, 0).snapshot().throttle_reasons,
            (std::set<std::string>{"sw_power_cap"}));
}

TEST_F(NvmlTest, TheSamplerTimesAThermalSlowdownThatRisesDuringTheUnit) {
  auto nvml = Nvml::load();
  ASSERT_TRUE(nvml) << nvml.error().message;
  const DeviceSignals gpu = nvml_device_signals(*nvml, 0);
  Sampler sampler({&gpu}, {std::chrono::milliseconds(10), 32});
  sampler.start();
  std::this_thread::sleep_for(100ms);
  script("reasons=0x40\nclock_sm=1365\ntemperature=91\n");
  std::this_thread::sleep_for(200ms);
  const auto s = sampler.stop().at(0);
  ASSERT_TRUE(s.throttle_seconds.contains("hw_thermal_slowdown"));
  EXPECT_GT(s.throttle_seconds.at("hw_thermal_slowdown"), 0.1);
  EXPECT_EQ(s.signals.at("clock.sm").first, 1725.0);
  EXPECT_EQ(s.signals.at("clock.sm").min, 1365.0);
  EXPECT_EQ(s.signals.at("temperature.gpu").max, 91.0);
}

TEST(NvmlReasons, NamesEveryBit) {
  EXPECT_EQ(nvml_clock_event_names(0x1ff).size(), 9u);
  EXPECT_EQ(nvml_clock_event_names(0x1000), std::vector<std::string>{"bit12"});
  EXPECT_TRUE(nvml_clock_event_names(0).empty());
}

}  // namespace
}  // namespace gauntlet::signals
