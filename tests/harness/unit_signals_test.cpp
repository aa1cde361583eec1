// The machine's signals around a unit, over fixture sysfs trees and a fake kernel log: a ring
// timeout written during the unit lands on it as hang_or_reset, a correctable-error count that
// moves fails it as memory_errors, a throttle bit that rises says "measured while throttled",
// and the CPU's unit on this machine says which signals exist and reads the real kernel log.
#include "harness/unit_signals.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <thread>

#include "harness/journal.h"
#include "tests/signals/fixtures.h"

namespace gauntlet::harness {
namespace {

using signals::testing::FixtureCopy;

core::DeviceInfo gpu(const std::string& bus_id) {
  core::DeviceInfo info;
  info.id = {core::Api::vulkan, 0};
  info.pci_bus_id = bus_id;
  return info;
}

core::Options options_for(const FixtureCopy& tree, const std::filesystem::path& kmsg) {
  core::Options options;
  options.sysfs_root = tree.root().string();
  options.kmsg_path = kmsg.string();
  return options;
}

void append(const std::filesystem::path& file, const std::string& line) {
  std::ofstream(file, std::ios::app) << line << "\n";
}

TEST(UnitSignals, ARingTimeoutDuringTheUnitIsAHangOrResetOnItsRow) {
  FixtureCopy tree("amdgpu");
  const auto kmsg = tree.root() / "kmsg";
  append(kmsg, "3,1,100,-;amdgpu 0000:c1:00.0: amdgpu: ring gfx_0.0.0 timeout (before the unit)");
  DeviceWatch watch(gpu("0000:c1:00.0"), options_for(tree, kmsg));

  watch.begin("profiles:vulkan:0:Q8_0");
  append(kmsg, "6,2,200,-;amdgpu 0000:c2:00.0: amdgpu: ring gfx_0.0.0 timeout (another card)");
  append(kmsg, "3,3,300,-;amdgpu 0000:c1:00.0: amdgpu: ring gfx_0.0.0 timeout, signaled seq=7");
  const UnitEvidence e = watch.end();

  ASSERT_EQ(e.kernel.size(), 1u);
  const auto cause = e.cause();
  ASSERT_TRUE(cause.has_value());
  EXPECT_EQ(cause->key, "hang_or_reset");
  EXPECT_NE(cause->subject.find("signaled seq=7"), std::string::npos) << cause->subject;
  ASSERT_EQ(watch.rows().size(), 1u);
  EXPECT_EQ(watch.rows()[0].id, "signals:profiles:vulkan:0:Q8_0");
  EXPECT_EQ(watch.rows()[0].status, core::RowStatus::fail);
  EXPECT_NE(watch.rows()[0].reason.find("hang or reset"), std::string::npos);
  EXPECT_TRUE(watch.telemetry()["units"].contains("profiles:vulkan:0:Q8_0"));
}

// A unit's evidence goes into the journal beside its result: a resumed run, which reads the
// result back rather than running the unit, keeps its cause, its failed row and its telemetry.
TEST(UnitSignals, AResumedRunKeepsTheEvidenceOfAUnitItReadsBack) {
  FixtureCopy tree("amdgpu");
  const auto kmsg = tree.root() / "kmsg";
  append(kmsg, "6,1,100,-;boot");
  const auto journal_path = tree.root() / "report.json.journal";
  {
    auto journal = Journal::open(journal_path, false);
    ASSERT_TRUE(journal.is_ok()) << journal.error().describe();
    DeviceWatch watch(gpu("0000:c1:00.0"), options_for(tree, kmsg));
    watch.begin("profiles:vulkan:0:Q8_0");
    append(kmsg, "3,2,200,-;amdgpu 0000:c1:00.0: amdgpu: GPU reset begin!");
    ASSERT_TRUE(watch.end(&*journal).cause().has_value());
  }
  auto resumed = Journal::open(journal_path, true);
  ASSERT_TRUE(resumed.is_ok()) << resumed.error().describe();
  DeviceWatch watch(gpu("0000:c1:00.0"), options_for(tree, kmsg));
  const core::Json* kept = watch.restore("profiles:vulkan:0:Q8_0", *resumed);
  ASSERT_NE(kept, nullptr);
  const auto cause = evidence_cause(*kept);
  ASSERT_TRUE(cause.has_value());
  EXPECT_EQ(cause->key, "hang_or_reset");
  EXPECT_NE(cause->subject.find("GPU reset begin"), std::string::npos) << cause->subject;
  ASSERT_EQ(watch.rows().size(), 1u);
  EXPECT_EQ(watch.rows()[0].id, "signals:profiles:vulkan:0:Q8_0");
  EXPECT_TRUE(watch.telemetry()["units"].contains("profiles:vulkan:0:Q8_0"));
  EXPECT_EQ(watch.restore("stress:vulkan:0", *resumed), nullptr);
}

TEST(UnitSignals, ACorrectableErrorCountThatMovesIsAMemoryError) {
  FixtureCopy tree("amdgpu");
  const auto kmsg = tree.root() / "kmsg";
  append(kmsg, "6,1,100,-;boot");
  DeviceWatch watch(gpu("0000:c1:00.0"), options_for(tree, kmsg));

  watch.begin("stress:vulkan:0");
  tree.write("class/drm/card0/device/ras/umc_err_count", "ue: 0\nce: 5\n");
  const UnitEvidence e = watch.end();

  const auto cause = e.cause();
  ASSERT_TRUE(cause.has_value());
  EXPECT_EQ(cause->key, "memory_errors");
  EXPECT_EQ(cause->subject, "ras.umc.ce");
  EXPECT_DOUBLE_EQ(cause->figures.at("delta"), 2);
  EXPECT_EQ(describe(*cause), "memory error counter moved: ras.umc.ce +2");
}

TEST(UnitSignals, AThrottleBitThatRisesIsSaidNotACause) {
  FixtureCopy tree("xe");
  tree.write("class/drm/card0/device/current_link_speed", "16.0 GT/s PCIe\n");
  tree.write("class/drm/card0/device/current_link_width", "16\n");
  tree.write("class/drm/card0/device/max_link_width", "16\n");
  const std::string throttle = "class/drm/card0/device/tile0/gt0/freq0/throttle/";
  tree.write(throttle + "status", "0\n");
  tree.write(throttle + "reason_pl1", "0\n");
  const auto kmsg = tree.root() / "kmsg";
  append(kmsg, "6,1,100,-;boot");
  DeviceWatch watch(gpu("0000:03:00.0"), options_for(tree, kmsg));

  watch.begin("profiles:vulkan:0:Q4_K_M");
  std::this_thread::sleep_for(std::chrono::milliseconds(150));
  tree.write(throttle + "status", "1\n");
  tree.write(throttle + "reason_pl1", "1\n");
  std::this_thread::sleep_for(std::chrono::milliseconds(450));
  const UnitEvidence e = watch.end();

  EXPECT_FALSE(e.cause().has_value()) << describe(*e.cause());
  const std::string note = e.throttle_note();
  EXPECT_NE(note.find("measured while throttled (pl1 "), std::string::npos) << note;
  ASSERT_EQ(e.during.size(), 1u);
  EXPECT_GT(e.during[0].throttle_seconds.at("pl1"), 0.2);
  EXPECT_LT(e.during[0].throttle_seconds.at("pl1"), e.during[0].seconds);
  EXPECT_TRUE(watch.rows().empty());
}

TEST(UnitSignals, ALinkBelowItsMaximumThroughTheUnitIsDegraded) {
  FixtureCopy tree("xe");  // 2.5 GT/s against 16 GT/s
  const auto kmsg = tree.root() / "kmsg";
  append(kmsg, "6,1,100,-;boot");
  DeviceWatch watch(gpu("0000:03:00.0"), options_for(tree, kmsg));
  watch.begin("peak:vulkan:0");
  const auto cause = watch.end().cause();
  ASSERT_TRUE(cause.has_value());
  EXPECT_EQ(cause->key, "link_degraded");
  EXPECT_DOUBLE_EQ(cause->figures.at("link.speed_gts"), 2.5);
  EXPECT_DOUBLE_EQ(cause->figures.at("link.max_speed_gts"), 16);
  EXPECT_EQ(describe(*cause).rfind("link degraded: trained at 2.5 GT/s x", 0), 0u)
      << describe(*cause);
  EXPECT_NE(describe(*cause).find(" against 16 GT/s x"), std::string::npos) << describe(*cause);
}

// A devcoredump's path says where the dump went; the reset line beside it says what happened. A
// dump alone is still a hang or reset.
TEST(UnitSignals, TheResetLineNotTheCoredumpNamesTheCause) {
  UnitEvidence e;
  e.kernel.push_back({signals::GpuLogKind::devcoredump, "0000:c1:00.0", std::nullopt,
                      "/sys/class/drm/card0/device/devcoredump/data", "devcoredump written"});
  ASSERT_EQ(e.cause()->subject, "devcoredump written");
  e.kernel.push_back({signals::GpuLogKind::reset_begin, "0000:c1:00.0", std::nullopt, "",
                      "amdgpu: GPU reset begin!"});
  EXPECT_EQ(e.cause()->key, "hang_or_reset");
  EXPECT_EQ(e.cause()->subject, "amdgpu: GPU reset begin!");
}

TEST(UnitSignals, AnUnreadableKernelLogIsSaidOnce) {
  FixtureCopy tree("amdgpu");
  DeviceWatch watch(gpu("0000:c1:00.0"), options_for(tree, tree.root() / "no-such-kmsg"));
  for (const char* unit : {"conform:vulkan:0", "stress:vulkan:0"}) {
    watch.begin(unit);
    watch.end();
  }
  size_t said = 0;
  const auto telemetry = watch.telemetry();
  for (const auto& note : telemetry["notes"]) {
    said += note.get<std::string>().find("kernel log not readable") != std::string::npos;
  }
  EXPECT_EQ(said, 1u) << telemetry.dump();
}

// NVIDIA's path through the scripted NVML stand-in (tests/signals/fake_nvml.cpp) in place of
// libnvidia-ml.so.1: an Xid line, an ECC count that moves and a clock-event reason during a unit.
class UnitSignalsNvml : public ::testing::Test {
 protected:
  void SetUp() override {
    ::setenv("GAUNTLET_FAKE_NVML_SCRIPT", (tree_.root() / "nvml-script").c_str(), 1);
    ::setenv("GAUNTLET_NVML_LIBRARY", GAUNTLET_FAKE_NVML, 1);
    append(kmsg(), "6,1,100,-;boot");
  }
  void TearDown() override {
    ::unsetenv("GAUNTLET_NVML_LIBRARY");
    ::unsetenv("GAUNTLET_FAKE_NVML_SCRIPT");
  }
  void script(const std::string& text) { tree_.write("nvml-script", text); }
  std::filesystem::path kmsg() const { return tree_.root() / "kmsg"; }

  FixtureCopy tree_{"pci"};
};

TEST_F(UnitSignalsNvml, AnXidLineDuringTheUnitIsAHangOrReset) {
  script("");
  DeviceWatch watch(gpu("0000:01:00.0"), options_for(tree_, kmsg()));
  watch.begin("profiles:opencl:0:Q8_0");
  append(kmsg(), "4,2,200,-;NVRM: Xid (PCI:0000:01:00): 79, pid=1234, GPU has fallen off the bus.");
  const auto cause = watch.end().cause();
  ASSERT_TRUE(cause.has_value());
  EXPECT_EQ(cause->key, "hang_or_reset");
  EXPECT_DOUBLE_EQ(cause->figures.at("xid"), 79);
}

TEST_F(UnitSignalsNvml, AnEccCountThatMovesIsAMemoryErrorAndAReasonIsSaid) {
  script("reasons=0\n");
  DeviceWatch watch(gpu("0000:01:00.0"), options_for(tree_, kmsg()));
  watch.begin("profiles:opencl:0:Q8_0");
  std::this_thread::sleep_for(std::chrono::milliseconds(150));
  script("reasons=0x4\necc_corrected=7\n");
  std::this_thread::sleep_for(std::chrono::milliseconds(350));
  const UnitEvidence e = watch.end();
  const auto cause = e.cause();
  ASSERT_TRUE(cause.has_value());
  EXPECT_EQ(describe(*cause), "memory error counter moved: ecc.volatile.corrected +7");
  EXPECT_NE(e.throttle_note().find("sw_power_cap"), std::string::npos) << e.throttle_note();
  const auto telemetry = watch.telemetry();
  EXPECT_NE(telemetry["sources"].dump().find("temperature"), std::string::npos) << telemetry.dump();
}

TEST_F(UnitSignalsNvml, WithoutTheLibraryTheReportSaysNvmlNotFound) {
  ::setenv("GAUNTLET_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1", 1);
  DeviceWatch watch(gpu("0000:01:00.0"), options_for(tree_, kmsg()));
  const auto telemetry = watch.telemetry();
  ASSERT_FALSE(telemetry["notes"].empty());
  EXPECT_EQ(telemetry["notes"][0].get<std::string>().rfind("telemetry: NVML not found", 0), 0u);
}

// This machine's CPU: its sysfs exposes no temperature, clock or power (the absent list says
// which sources were looked for), and the real /dev/kmsg is read around the unit where root may.
TEST(UnitSignals, TheCpuOnThisMachineSaysWhichSignalsExist) {
  core::DeviceInfo cpu;
  cpu.id = {core::Api::host, 0};
  DeviceWatch watch(cpu, core::Options{});
  watch.begin("stress:host");
  const UnitEvidence e = watch.end();
  EXPECT_FALSE(e.cause().has_value());
  const auto t = watch.telemetry();
  EXPECT_FALSE(t["absent"].empty());
  const bool kmsg_readable = ::access("/dev/kmsg", R_OK) == 0;
  bool read_at_kmsg = false;
  for (const auto& note : t["notes"]) {
    read_at_kmsg =
        read_at_kmsg || note.get<std::string>() == "kernel log: read at /dev/kmsg around each unit";
  }
  EXPECT_EQ(read_at_kmsg, kmsg_readable) << t.dump();
}

}  // namespace
}  // namespace gauntlet::harness
