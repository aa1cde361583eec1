// The summary a unit's snapshots add up to, and the sampler's thread over a fixture tree whose
// throttle bit rises while it runs.
#include "signals/sampler.h"

#include <gtest/gtest.h>

#include <thread>

#include "signals/json.h"
#include "signals/summary.h"
#include "tests/signals/fixtures.h"

namespace gauntlet::signals {
namespace {

using namespace std::chrono_literals;

Snapshot at_temperature(double celsius, std::set<std::string> reasons = {}) {
  Snapshot s;
  s.device = "0000:c1:00.0";
  s.temperatures_c["edge"] = celsius;
  s.throttle_reasons = std::move(reasons);
  return s;
}

TEST(Summary, KeepsMinMaxMeanAndTheTimeOfEachThrottleReason) {
  SummaryBuilder builder("0000:c1:00.0");
  builder.add(at_temperature(60), 0.0);
  builder.add(at_temperature(70, {"pl1"}), 1.0);
  builder.add(at_temperature(80, {"pl1", "thermal"}), 2.5);
  const DeviceSummary& s = builder.summary();
  EXPECT_EQ(s.samples, 3u);
  EXPECT_EQ(s.seconds, 2.5);
  const SignalStats& edge = s.signals.at("temperature.edge");
  EXPECT_EQ(edge.min, 60);
  EXPECT_EQ(edge.max, 80);
  EXPECT_EQ(edge.mean(), 70);
  EXPECT_EQ(edge.first, 60);
  EXPECT_EQ(edge.last, 80);
  EXPECT_EQ(s.throttle_seconds.at("pl1"), 2.5);
  EXPECT_EQ(s.throttle_seconds.at("thermal"), 1.5);
  const core::Json j = to_json(s);
  EXPECT_EQ(j["signals"]["temperature.edge"]["max"], 80.0);
  EXPECT_EQ(j["throttle_seconds"]["pl1"], 2.5);
  EXPECT_EQ(j["series"].size(), 3u);
}

TEST(Summary, TheSeriesStaysWithinItsBoundAndSpansTheUnit) {
  SummaryBuilder builder("x", 16);
  for (int i = 0; i < 1000; ++i) builder.add(at_temperature(i), i * 0.1);
  const auto& series = builder.summary().series;
  EXPECT_LE(series.size(), 16u);
  EXPECT_GE(series.size(), 8u);
  EXPECT_EQ(series.front().seconds, 0.0);
  EXPECT_GT(series.back().seconds, 50.0);
  for (size_t i = 1; i < series.size(); ++i) EXPECT_GT(series[i].seconds, series[i - 1].seconds);
  EXPECT_EQ(builder.summary().signals.at("temperature.edge").count, 1000u);
}

TEST(Summary, ALinkIsDegradedOnlyIfItNeverReachedItsMaximum) {
  Snapshot slow;
  slow.link = PciLink{2.5, 16, 16.0, 16};
  Snapshot fast;
  fast.link = PciLink{16.0, 16, 16.0, 16};
  SummaryBuilder idle_then_busy("x");
  idle_then_busy.add(slow, 0);
  idle_then_busy.add(fast, 1);
  EXPECT_FALSE(idle_then_busy.summary().link_degraded());
  SummaryBuilder always_slow("x");
  always_slow.add(slow, 0);
  always_slow.add(slow, 1);
  EXPECT_TRUE(always_slow.summary().link_degraded());
}

TEST(Sampler, SeesAThrottleBitThatRisesDuringTheUnit) {
  const testing::FixtureCopy tree("xe");
  const std::string reason = "class/drm/card0/device/tile0/gt0/freq0/throttle/reason_pl1";
  tree.write(reason, "0\n");
  const DeviceSignals card = drm_card_signals(tree.root(), "card0");
  Sampler sampler({&card}, {std::chrono::milliseconds(10), 64});
  sampler.start();
  std::this_thread::sleep_for(100ms);
  tree.write(reason, "1\n");
  std::this_thread::sleep_for(300ms);
  const auto summaries = sampler.stop();
  ASSERT_EQ(summaries.size(), 1u);
  const DeviceSummary& s = summaries[0];
  EXPECT_EQ(s.device, "0000:03:00.0");
  EXPECT_GE(s.samples, 10u);
  ASSERT_TRUE(s.throttle_seconds.contains("pl1"));
  EXPECT_GT(s.throttle_seconds.at("pl1"), 0.15);
  EXPECT_LT(s.throttle_seconds.at("pl1"), s.seconds);
  EXPECT_EQ(s.signals.at("clock.gfx").max, 1350.0);
  EXPECT_TRUE(s.link_degraded());
  EXPECT_LE(s.series.size(), 64u);
  EXPECT_TRUE(s.problems.empty());
}

TEST(Sampler, StopWithoutStartGivesEmptySummaries) {
  const DeviceSignals cpu = cpu_signals(testing::fixtures() / "cpu");
  Sampler sampler({&cpu});
  const auto summaries = sampler.stop();
  ASSERT_EQ(summaries.size(), 1u);
  EXPECT_EQ(summaries[0].device, "cpu");
  EXPECT_EQ(summaries[0].samples, 0u);
}

TEST(Sampler, ADestroyedSamplerStopsItsThread) {
  const DeviceSignals cpu = cpu_signals(testing::fixtures() / "cpu");
  {
    Sampler sampler({&cpu}, {std::chrono::milliseconds(1), 8});
    sampler.start();
    std::this_thread::sleep_for(20ms);
  }
  SUCCEED();
}

}  // namespace
}  // namespace gauntlet::signals
