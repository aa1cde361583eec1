// The node gate's pieces without a device: the signals since the last health run over fixture
// sysfs trees and a fake kernel log (the first run keeps, the next judges; a counter reset by a
// reboot is not a move; a link on fewer lanes and throttling at idle are warnings), the deadline,
// and how a verdict settles into its first line and exit code.
#include "harness/health_signals.h"

#include <gtest/gtest.h>

#include <fstream>
#include <thread>

#include "harness/health_deadline.h"
#include "harness/health_identity.h"
#include "reports/health.h"
#include "tests/signals/fixtures.h"

namespace gauntlet::harness {
namespace {

using reports::HealthCheck;
using reports::HealthStatus;
using signals::testing::FixtureCopy;

core::Options health_options(const FixtureCopy& tree, const std::filesystem::path& kmsg) {
  core::Options options;
  options.sysfs_root = tree.root().string();
  options.kmsg_path = kmsg.string();
  return options;
}

const HealthCheck* find_check(const std::vector<HealthCheck>& checks, const std::string& id,
                              HealthStatus status) {
  for (const auto& c : checks) {
    if (c.id == id && c.status == status) return &c;
  }
  return nullptr;
}

TEST(HealthSignals, FirstRunKeepsThenTheNextJudgesWhatMovedAndWhatTheLogSaid) {
  FixtureCopy tree("amdgpu");
  const auto kmsg = tree.root() / "kmsg";
  std::ofstream(kmsg) << "6,7,1000,-;Linux version 6.1.0\n"
                      << "4,8,1100,-;amdgpu 0000:c1:00.0: amdgpu: GPU reset begin!\n";
  const auto options = health_options(tree, kmsg);

  auto first = read_signals_since(options, core::Json::object());
  ASSERT_EQ(first.by_bus_id.count("0000:c1:00.0"), 1u);
  EXPECT_EQ(first.card_of["0000:c1:00.0"], "card0");
  // Nothing to compare with: the reset before the first run is not judged, the position is kept.
  EXPECT_EQ(find_check(first.node_checks, "signals.kernel_log", HealthStatus::critical), nullptr);
  for (const auto& c : first.by_bus_id["0000:c1:00.0"]) EXPECT_NE(c.status, HealthStatus::critical);
  EXPECT_EQ(first.state["kernel_log"]["sequence"], 8u);
  EXPECT_EQ(first.state["devices"]["0000:c1:00.0"]["ras.umc.ce"], 3u);

  tree.write("class/drm/card0/device/ras/umc_err_count", "ue: 0\nce: 4\n");
  std::ofstream(kmsg, std::ios::app)
      << "3,9,1200,-;amdgpu 0000:c1:00.0: amdgpu: ring gfx_0.0.0 timeout, signaled seq=1, "
         "emitted seq=3\n";
  auto next = read_signals_since(options, first.state);
  const auto& card = next.by_bus_id["0000:c1:00.0"];
  const auto* moved = find_check(card, "signals.counters", HealthStatus::critical);
  ASSERT_NE(moved, nullptr);
  EXPECT_EQ(moved->reason, "error counter moved since the last health run: ras.umc.ce +1");
  const auto* line = find_check(card, "signals.kernel_log", HealthStatus::critical);
  ASSERT_NE(line, nullptr);
  EXPECT_EQ(line->reason.rfind("ring_timeout in the kernel log: amdgpu 0000:c1:00.0:", 0), 0u)
      << line->reason;
  EXPECT_EQ(line->metrics["sequence"], 9u);  // record 8's reset was before the last run
  int lines = 0;
  for (const auto& c : card) lines += c.id == "signals.kernel_log" ? 1 : 0;
  EXPECT_EQ(lines, 1);
  EXPECT_EQ(next.state["kernel_log"]["sequence"], 9u);

  // A reboot: counters below the kept ones and record numbers from the start. Nothing moved.
  core::Json kept = next.state;
  kept["devices"]["0000:c1:00.0"]["ras.umc.ce"] = 100;
  std::ofstream(kmsg, std::ios::trunc) << "6,1,10,-;Linux version 6.1.0\n";
  auto rebooted = read_signals_since(options, kept);
  EXPECT_EQ(
      find_check(rebooted.by_bus_id["0000:c1:00.0"], "signals.counters", HealthStatus::critical),
      nullptr);
  const auto* log = find_check(rebooted.node_checks, "signals.kernel_log", HealthStatus::pass);
  ASSERT_NE(log, nullptr);
  EXPECT_EQ(log->metrics["records_read"], 1);
}

TEST(HealthSignals, ALinkOnFewerLanesAndThrottlingAtIdleAreWarnings) {
  FixtureCopy tree("xe");  // 0000:03:00.0: x1 of x16, pl1 throttling, no busy share
  const auto kmsg = tree.root() / "kmsg";
  std::ofstream(kmsg) << "6,1,10,-;Linux version 6.1.0\n";
  auto s = read_signals_since(health_options(tree, kmsg), core::Json::object());
  const auto* idle = find_check(s.by_bus_id["0000:03:00.0"], "signals.idle", HealthStatus::warning);
  ASSERT_NE(idle, nullptr);
  EXPECT_NE(idle->reason.find("link trained at x1 of x16"), std::string::npos) << idle->reason;
  EXPECT_NE(idle->reason.find("throttled at idle (pl1)"), std::string::npos) << idle->reason;
}

TEST(HealthSignals, AnUnreadableKernelLogIsSaidNotFailed) {
  FixtureCopy tree("amdgpu");
  auto s =
      read_signals_since(health_options(tree, tree.root() / "no-such-kmsg"), core::Json::object());
  const auto& log = s.node_checks.front();
  EXPECT_EQ(log.status, HealthStatus::pass);
  EXPECT_TRUE(log.not_run);
  EXPECT_EQ(log.reason.rfind("not run: kernel log not readable (", 0), 0u) << log.reason;
}

// The board's identity against the baseline's: the firmware and the link's lanes and generation;
// the link's current speed drops at idle and is not judged.
TEST(HealthIdentity, AFirmwareUpdateOrALinkOnFewerLanesAsksForReValidation) {
  reports::Report baseline;
  reports::DeviceReport card;
  card.key = "pci:0000:c1:00.0";
  card.name = "a card";
  const core::Json was = {
      {"firmware", "113-D1630200-100"},
      {"link", {{"speed_gts", 16.0}, {"width", 16}, {"max_speed_gts", 16.0}, {"max_width", 16}}}};
  card.telemetry = {{"identity", was}};
  baseline.devices.push_back(card);
  probes::PhysicalDevice present;
  present.key = card.key;

  EXPECT_EQ(compare_device_identity(baseline, present, "vulkan:0", was).status,
            reports::HealthStatus::pass);
  core::Json idle = was;
  idle["link"]["speed_gts"] = 2.5;
  EXPECT_EQ(compare_device_identity(baseline, present, "vulkan:0", idle).status,
            reports::HealthStatus::pass);

  core::Json updated = was;
  updated["firmware"] = "113-D1630200-101";
  const auto firmware = compare_device_identity(baseline, present, "vulkan:0", updated);
  EXPECT_EQ(firmware.status, reports::HealthStatus::warning);
  EXPECT_EQ(firmware.reason, "re-validate: vulkan:0 firmware 113-D1630200-100 -> 113-D1630200-101");

  core::Json narrower = was;
  narrower["link"]["width"] = 8;
  const auto link = compare_device_identity(baseline, present, "vulkan:0", narrower);
  EXPECT_EQ(link.status, reports::HealthStatus::warning);
  EXPECT_EQ(link.reason, "re-validate: vulkan:0 PCIe link width 16 -> 8");

  // Nothing read now (no driver file): nothing to compare, not a change.
  EXPECT_EQ(compare_device_identity(baseline, present, "vulkan:0", core::Json::object()).status,
            reports::HealthStatus::pass);
}

TEST(HealthDeadline, KeepsAReserveAndRefusesWhatDoesNotFit) {
  Deadline deadline(std::chrono::milliseconds{400}, std::chrono::milliseconds{100});
  EXPECT_LE(deadline.left().count(), 300);
  EXPECT_TRUE(deadline.allows(std::chrono::milliseconds{200}));
  EXPECT_FALSE(deadline.allows(std::chrono::milliseconds{350}));
  std::this_thread::sleep_for(std::chrono::milliseconds{320});
  EXPECT_EQ(deadline.left().count(), 0);
  EXPECT_FALSE(deadline.allows(std::chrono::milliseconds{1}));
}

TEST(HealthVerdict, TheWorstCheckDecidesTheLineAndTheExitCode) {
  reports::HealthReport r;
  r.devices.push_back({"vulkan:0", "pci:0000:c1:00.0", "gpu", "0000:c1:00.0", {}, {}, {}});
  HealthCheck ok{"probe", HealthStatus::pass, false, "", 0.1, core::Json::object()};
  HealthCheck cut{"decode", HealthStatus::warning, true, "not run: deadline", 0, {}};
  r.devices[0].checks = {ok, cut};
  reports::settle(r);
  EXPECT_EQ(r.status, HealthStatus::warning);
  EXPECT_EQ(reports::health_first_line(r), "gauntlet: vulkan:0 decode not run: deadline");
  EXPECT_EQ(reports::health_exit_code(r, false), 0);
  EXPECT_EQ(reports::health_exit_code(r, true), 1);

  r.devices[0].checks.push_back(
      {"signals.kernel_log", HealthStatus::critical, false, "reset_begin \"x\"\nmore", 0, {}});
  reports::settle(r);
  EXPECT_EQ(reports::health_first_line(r), "gauntlet: vulkan:0 reset_begin 'x' more");
  EXPECT_EQ(reports::health_exit_code(r, false), 1);

  r.node_checks.push_back(
      {"baseline", HealthStatus::could_not_run, false, "baseline b: bad", 0, {}});
  reports::settle(r);
  EXPECT_EQ(reports::health_first_line(r), "gauntlet: baseline b: bad");
  EXPECT_EQ(reports::health_exit_code(r, false), 2);
}

}  // namespace
}  // namespace gauntlet::harness
