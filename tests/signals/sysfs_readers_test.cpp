// The sysfs readers over fixture trees (fixtures/make_fixtures.py): an amdgpu card and an APU,
// an xe card, two i915 cards, a PCI device with AER, CPUs, and a tree of malformed files.
#include <gtest/gtest.h>

#include <algorithm>

#include "signals/counters.h"
#include "signals/device_signals.h"
#include "signals/json.h"
#include "signals/pci_link.h"
#include "tests/signals/fixtures.h"

namespace gauntlet::signals {
namespace {

using testing::FixtureCopy;
using testing::fixtures;
using Reasons = std::set<std::string>;

bool mentions(const std::vector<std::string>& notes, const std::string& text) {
  return std::any_of(notes.begin(), notes.end(),
                     [&](const std::string& note) { return note.find(text) != std::string::npos; });
}

TEST(SysfsReaders, AmdgpuCardReadsHwmonDeviceFilesAndGpuMetrics) {
  const Snapshot s = drm_card_signals(fixtures() / "amdgpu", "card0").snapshot();
  EXPECT_EQ(s.device, "0000:c1:00.0");
  EXPECT_EQ(s.temperatures_c.at("edge"), 65.0);
  EXPECT_EQ(s.temperatures_c.at("junction"), 91.0);
  EXPECT_EQ(s.temperatures_c.at("mem"), 80.0);
  EXPECT_EQ(s.power_w, 245.0);
  EXPECT_EQ(s.power_cap_w, 300.0);
  EXPECT_EQ(s.clocks_mhz.at("gfx"), 1365.0);
  EXPECT_EQ(s.clocks_mhz.at("mem"), 1000.0);
  EXPECT_EQ(s.clocks_mhz.at("soc"), 1200.0);  // only gpu_metrics has it
  EXPECT_EQ(s.fan_rpm, 1800.0);
  EXPECT_EQ(s.busy_percent, 87.0);
  EXPECT_EQ(s.vram_used_bytes, 4294967296u);
  EXPECT_EQ(s.vram_total_bytes, 17163091968u);
  EXPECT_EQ(s.gtt_used_bytes, 52428800u);
  EXPECT_EQ(s.throttle_reasons, (Reasons{"ppt0", "temp_hotspot"}));
  ASSERT_TRUE(s.link.has_value());
  EXPECT_EQ(s.link->speed_gts, 16.0);
  EXPECT_FALSE(s.link->degraded());
  EXPECT_FALSE(s.energy_j.has_value());
  EXPECT_TRUE(s.problems.empty()) << s.problems.front();
}

TEST(SysfsReaders, AmdgpuApuTakesGpuMetricsV2AndPowerInput) {
  const Snapshot s = drm_card_signals(fixtures() / "amdgpu", "card1").snapshot();
  EXPECT_EQ(s.device, "0000:c5:00.0");
  EXPECT_EQ(s.temperatures_c.at("edge"), 61.0);
  EXPECT_DOUBLE_EQ(s.temperatures_c.at("gfx"), 61.5);
  EXPECT_DOUBLE_EQ(s.temperatures_c.at("soc"), 55.0);
  EXPECT_EQ(s.power_w, 15.0);  // hwmon power1_input
  EXPECT_EQ(s.clocks_mhz.at("gfx"), 2200.0);
  EXPECT_EQ(s.clocks_mhz.at("fclk"), 1600.0);
  EXPECT_EQ(s.throttle_reasons, (Reasons{"spl", "temp_gpu"}));
  EXPECT_FALSE(s.gtt_used_bytes.has_value());
  EXPECT_TRUE(mentions(s.absent, "mem_info_gtt_used: absent"));
  EXPECT_FALSE(s.link.has_value());
  EXPECT_FALSE(s.fan_rpm.has_value());
  EXPECT_TRUE(s.problems.empty());
  const core::Json j = to_json(s);
  EXPECT_FALSE(j.contains("fan_rpm"));
  EXPECT_FALSE(j.contains("link"));
  EXPECT_EQ(j["temperatures_c"]["gfx"], 61.5);
}

TEST(SysfsReaders, AmdgpuCountersReadRasReplayAndLink) {
  const Counters c = drm_card_signals(fixtures() / "amdgpu", "card0").counters();
  EXPECT_EQ(c.values.at("ras.umc.ce"), 3u);
  EXPECT_EQ(c.values.at("ras.umc.ue"), 0u);
  EXPECT_EQ(c.values.at("ras.gfx.ce"), 0u);
  EXPECT_EQ(c.values.at("pcie_replay"), 2u);
  EXPECT_TRUE(mentions(c.absent, "aer"));
  ASSERT_TRUE(c.link.has_value());
  EXPECT_EQ(c.link->max_width, 16);
  EXPECT_EQ(c.firmware, "113-D1630200-100");
  EXPECT_TRUE(c.problems.empty());
}

TEST(SysfsReaders, CounterDiffNamesTheCounterThatMovedAndByHowMuch) {
  const FixtureCopy tree("amdgpu");
  const DeviceSignals card = drm_card_signals(tree.root(), "card0");
  const Counters before = card.counters();
  tree.write("class/drm/card0/device/ras/umc_err_count", "ue: 0\nce: 5\n");
  const Counters after = card.counters();
  const auto changes = diff(before, after);
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(changes[0].name, "ras.umc.ce");
  EXPECT_EQ(changes[0].before, 3u);
  EXPECT_EQ(changes[0].after, 5u);
  EXPECT_EQ(changes[0].delta, 2);
  EXPECT_TRUE(diff(after, after).empty());
  const core::Json j = to_json(changes);
  EXPECT_EQ(j[0]["counter"], "ras.umc.ce");
  EXPECT_EQ(j[0]["delta"], 2);
}

TEST(SysfsReaders, XeCardReadsGtFrequencyThrottleReasonsAndEnergy) {
  const Snapshot s = drm_card_signals(fixtures() / "xe", "card0").snapshot();
  EXPECT_EQ(s.device, "0000:03:00.0");
  EXPECT_EQ(s.clocks_mhz.at("gfx"), 1350.0);
  EXPECT_EQ(s.max_clocks_mhz.at("gfx"), 2400.0);
  EXPECT_EQ(s.throttle_reasons, (Reasons{"pl1"}));
  EXPECT_DOUBLE_EQ(*s.energy_j, 123456.789);
  EXPECT_EQ(s.power_cap_w, 150.0);
  EXPECT_EQ(s.temperatures_c.at("pkg"), 70.0);
  ASSERT_TRUE(s.link.has_value());
  EXPECT_TRUE(s.link->degraded());
  EXPECT_TRUE(s.problems.empty());
}

TEST(SysfsReaders, XeStatusWithoutAReasonIsUnspecified) {
  const FixtureCopy tree("xe");
  tree.write("class/drm/card0/device/tile0/gt0/freq0/throttle/reason_pl1", "0\n");
  const Snapshot s = drm_card_signals(tree.root(), "card0").snapshot();
  EXPECT_EQ(s.throttle_reasons, (Reasons{"unspecified"}));
  tree.write("class/drm/card0/device/tile0/gt0/freq0/throttle/status", "0\n");
  EXPECT_TRUE(drm_card_signals(tree.root(), "card0").snapshot().throttle_reasons.empty());
}

TEST(SysfsReaders, I915CardReadsRpsFrequencyAndThrottleReasons) {
  const Snapshot s = drm_card_signals(fixtures() / "i915", "card0").snapshot();
  EXPECT_EQ(s.device, "0000:00:02.0");
  EXPECT_EQ(s.clocks_mhz.at("gfx"), 1100.0);
  EXPECT_EQ(s.max_clocks_mhz.at("gfx"), 1300.0);
  EXPECT_EQ(s.throttle_reasons, (Reasons{"thermal"}));
  EXPECT_TRUE(mentions(s.absent, "hwmon: no hwmon folder"));
  EXPECT_TRUE(s.problems.empty());
}

TEST(SysfsReaders, OlderI915ReadsGtActFreqAndSaysReasonsAreAbsent) {
  const Snapshot s = drm_card_signals(fixtures() / "i915", "card1").snapshot();
  EXPECT_EQ(s.clocks_mhz.at("gfx"), 650.0);
  EXPECT_EQ(s.max_clocks_mhz.at("gfx"), 1150.0);
  EXPECT_TRUE(s.throttle_reasons.empty());
  EXPECT_TRUE(mentions(s.absent, "throttle reasons"));
}

TEST(SysfsReaders, PciDeviceReadsAerCountersAndADegradedLink) {
  const DeviceSignals device = pci_device_signals(fixtures() / "pci/bus/pci/devices/0000:01:00.0");
  EXPECT_EQ(device.device, "0000:01:00.0");
  const Counters c = device.counters();
  EXPECT_EQ(c.values.at("aer.correctable.TOTAL_ERR_COR"), 5u);
  EXPECT_EQ(c.values.at("aer.correctable.BadDLLP"), 4u);
  EXPECT_EQ(c.values.at("aer.nonfatal.TOTAL_ERR_NONFATAL"), 2u);
  EXPECT_EQ(c.values.at("aer.fatal.TOTAL_ERR_FATAL"), 0u);
  ASSERT_TRUE(c.link.has_value());
  EXPECT_EQ(c.link->speed_gts, 2.5);
  EXPECT_EQ(c.link->width, 4);
  EXPECT_TRUE(c.link->degraded());
  EXPECT_TRUE(c.problems.empty());
  EXPECT_EQ(to_json(c)["link"]["degraded"], true);
}

TEST(SysfsReaders, MalformedFilesAreNamedProblemsAndTheirSignalsAbsent) {
  const DeviceSignals card = drm_card_signals(fixtures() / "malformed", "card0");
  const Snapshot s = card.snapshot();
  EXPECT_TRUE(mentions(s.problems, "gpu_busy_percent: 'lots")) << core::Json(s.problems).dump();
  EXPECT_TRUE(mentions(s.problems, "negative value in"));
  EXPECT_TRUE(mentions(s.problems, "gpu_metrics header says 120 bytes, the file has 60"));
  EXPECT_TRUE(mentions(s.problems, "temp1_input: 'hot"));
  EXPECT_TRUE(mentions(s.problems, "power1_average: '12W"));
  EXPECT_TRUE(mentions(s.problems, "not a link speed"));
  EXPECT_TRUE(mentions(s.problems, "current_link_width: 'x16"));
  EXPECT_FALSE(s.busy_percent.has_value());
  EXPECT_FALSE(s.vram_used_bytes.has_value());
  EXPECT_TRUE(s.temperatures_c.empty());
  EXPECT_FALSE(s.power_w.has_value());
  EXPECT_FALSE(s.link.has_value());
  const Counters c = card.counters();
  EXPECT_TRUE(mentions(c.problems, "umc_err_count: 'ue: x"));
  EXPECT_TRUE(mentions(c.problems, "sdma_err_count: 'hello"));
  EXPECT_TRUE(mentions(c.problems, "aer_dev_correctable: 'garbage"));
  EXPECT_TRUE(mentions(c.problems, "pcie_replay_count"));
  EXPECT_TRUE(c.values.empty());
}

TEST(SysfsReaders, AnAbsentCardSaysSoAndHasNoValues) {
  const gauntlet::testing::TempDir empty("signals-empty");
  const DeviceSignals card = drm_card_signals(empty.path(), "card7");
  EXPECT_EQ(card.device, "card7");
  const Snapshot s = card.snapshot();
  EXPECT_TRUE(numeric_signals(s).empty());
  EXPECT_TRUE(s.problems.empty());
  EXPECT_TRUE(mentions(s.absent, "hwmon"));
  EXPECT_TRUE(mentions(s.absent, "link"));
  const Counters c = card.counters();
  EXPECT_TRUE(c.values.empty());
  EXPECT_TRUE(mentions(c.absent, "ras"));
  EXPECT_TRUE(mentions(c.absent, "pcie_replay_count"));
}

TEST(SysfsReaders, CpuReadsCpufreqThermalZonesAndCpuHwmonOnly) {
  const Snapshot s = cpu_signals(fixtures() / "cpu").snapshot();
  EXPECT_EQ(s.device, "cpu");
  EXPECT_EQ(s.clocks_mhz.at("cpu_min"), 2400.0);
  EXPECT_EQ(s.clocks_mhz.at("cpu_max"), 3000.0);
  EXPECT_EQ(s.clocks_mhz.at("cpu_mean"), 2700.0);
  EXPECT_EQ(s.temperatures_c.at("x86_pkg_temp"), 55.0);
  EXPECT_DOUBLE_EQ(s.temperatures_c.at("acpitz"), 27.8);
  EXPECT_DOUBLE_EQ(s.temperatures_c.at("k10temp.tctl"), 61.25);
  EXPECT_EQ(s.temperatures_c.size(), 3u);  // the nvme hwmon is not a CPU's
  EXPECT_TRUE(s.problems.empty());
}

// This machine (a VM) exposes no CPU clocks or temperatures: the snapshot says which are absent.
TEST(SysfsReaders, CpuOnThisMachineSaysWhatIsAbsent) {
  const Snapshot s = cpu_signals("/sys").snapshot();
  std::printf("cpu signals here: %s\n", to_json(s).dump().c_str());
  if (s.clocks_mhz.empty()) {
    EXPECT_TRUE(mentions(s.absent, "cpufreq"));
  }
  if (s.temperatures_c.empty()) {
    EXPECT_TRUE(mentions(s.absent, "thermal"));
  }
}

TEST(PciLinkText, ParsesTheKernelsSpeedStrings) {
  EXPECT_EQ(*parse_link_speed("16.0 GT/s PCIe", "x"), 16.0);
  EXPECT_EQ(*parse_link_speed("2.5 GT/s PCIe", "x"), 2.5);
  EXPECT_EQ(*parse_link_speed("8 GT/s", "x"), 8.0);
  EXPECT_EQ(*parse_link_speed("64.0 GT/s PCIe", "x"), 64.0);
  for (const char* bad : {"Unknown", "", "16.0 MB/s", "GT/s", "-1 GT/s", "16.0GT/s"}) {
    const auto speed = parse_link_speed(bad, "current_link_speed");
    ASSERT_FALSE(speed) << bad;
    EXPECT_NE(speed.error().message.find("not a link speed in current_link_speed"),
              std::string::npos);
  }
}

TEST(PciLinkText, AerCountersRejectGarbage) {
  EXPECT_EQ(parse_aer_counters("RxErr 1\nTOTAL_ERR_COR 1\n", "f")->at("TOTAL_ERR_COR"), 1u);
  EXPECT_FALSE(parse_aer_counters("", "f"));
  EXPECT_FALSE(parse_aer_counters("TOTAL_ERR_COR\n", "f"));
  EXPECT_FALSE(parse_aer_counters("TOTAL_ERR_COR -3\n", "f"));
  EXPECT_FALSE(parse_aer_counters("TOTAL_ERR_COR 99999999999999999999999\n", "f"));
}

TEST(RasText, ParsesUeAndCeAndRejectsTheRest) {
  const auto counts = parse_ras_count("ue: 1\nce: 22\n", "f");
  ASSERT_TRUE(counts);
  EXPECT_EQ(counts->at("ue"), 1u);
  EXPECT_EQ(counts->at("ce"), 22u);
  EXPECT_FALSE(parse_ras_count("ue: 1\n", "f"));
  EXPECT_FALSE(parse_ras_count("ue 1\nce 2\n", "f"));
  EXPECT_FALSE(parse_ras_count("ue: 1\nce: two\n", "f"));
  EXPECT_FALSE(parse_ras_count("xx: 1\nue: 1\nce: 1\n", "f"));
}

}  // namespace
}  // namespace gauntlet::signals
