// A soak's samples into its cold and steady speeds, and the line every renderer prints of it.
#include "harness/soak.h"

#include <gtest/gtest.h>

#include "reports/soak_lines.h"

namespace gauntlet::harness {
namespace {

// A card that loses 5 % within minutes as its clock falls: 100 tok/s for the first minute, then
// 95 from the third on, sampled every 10 s over 300 s.
reports::SoakResult throttling_card() {
  reports::SoakResult soak;
  soak.profile = "Q4_K_M/f16/kv-f16/wg64-whole/ctx4096/b1";
  soak.seconds = 300;
  for (int t = 10; t <= 300; t += 10) soak.samples.emplace_back(t, t <= 60 ? 100.0 : 95.0);
  return soak;
}

TEST(Soak, ColdIsTheFirstTenthAndSteadyTheLastQuarter) {
  auto soak = throttling_card();
  settle_soak(soak);
  EXPECT_DOUBLE_EQ(soak.cold_tok_s, 100.0);  // samples at 10, 20 and 30 s
  EXPECT_DOUBLE_EQ(soak.steady_tok_s, 95.0);
  EXPECT_NEAR(soak.decline, 0.05, 1e-12);

  reports::SoakResult one;
  one.samples = {{5.2, 40.0}};
  settle_soak(one);
  EXPECT_DOUBLE_EQ(one.cold_tok_s, 40.0);
  EXPECT_DOUBLE_EQ(one.steady_tok_s, 40.0);
  EXPECT_DOUBLE_EQ(one.decline, 0.0);
}

TEST(Soak, TheLineSaysTheDeclineTheHottestTemperatureAndTheSignals) {
  auto soak = throttling_card();
  settle_soak(soak);
  soak.max_temperature_c = 91;
  soak.signals = "measured while throttled (sw_thermal_slowdown 240.0 s of 300.0 s)";
  const auto lines = reports::detail::soak_lines(soak);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0],
            "soak: Q4_K_M/f16/kv-f16/wg64-whole/ctx4096/b1 held 300 s: 100.0 tok/s cold, 95.0 "
            "tok/s steady (5.0 % lower); hottest 91 °C; measured while throttled "
            "(sw_thermal_slowdown 240.0 s of 300.0 s)");
  reports::SoakResult none;
  none.seconds = 300;
  none.error = "no safe profile of the whole model on the device to hold";
  EXPECT_EQ(reports::detail::soak_lines(none),
            std::vector<std::string>{
                "soak: not run: no safe profile of the whole model on the device to hold"});
  EXPECT_TRUE(reports::detail::soak_lines(std::nullopt).empty());
}

// --soak's seconds at any level, outside the budget; at the standard level and above a hold of up
// to a minute of what is left of the budget, none under ten seconds; none at quick.
TEST(Soak, HowLongADeviceIsHeld) {
  core::Options options;
  EXPECT_EQ(hold_seconds(options, 100), 0.0);
  options.level = core::Level::standard;
  EXPECT_EQ(hold_seconds(options, 500), 60.0);
  EXPECT_EQ(hold_seconds(options, 25), 25.0);
  EXPECT_EQ(hold_seconds(options, 9), 0.0);
  ASSERT_TRUE(core::apply_level(options, "soak").is_ok());
  EXPECT_EQ(options.level, core::Level::standard);
  EXPECT_EQ(hold_seconds(options, 0), core::kSoakSeconds);
  options.soak_s = 20;
  options.level = core::Level::quick;
  EXPECT_EQ(hold_seconds(options, 0), 20.0);
  EXPECT_FALSE(core::apply_level(options, "forever").is_ok());
}

// Held busy, every safe profile's figure is scaled by what the hold lost; unsafe ones get none.
TEST(Soak, SafeProfilesGetTheirSteadyFigure) {
  reports::DeviceReport device;
  device.soak = throttling_card();
  settle_soak(*device.soak);
  reports::Profile safe, unsafe;
  safe.verdict = reports::ProfileVerdict::safe;
  safe.figures.tok_s = 40.0;
  unsafe.verdict = reports::ProfileVerdict::unsafe;
  unsafe.figures.tok_s = 40.0;
  device.profiles = {safe, unsafe};
  apply_steady(device);
  ASSERT_TRUE(device.profiles[0].figures.steady_tok_s.has_value());
  EXPECT_NEAR(*device.profiles[0].figures.steady_tok_s, 38.0, 1e-9);
  EXPECT_FALSE(device.profiles[1].figures.steady_tok_s.has_value());
}

TEST(Soak, NoSafeProfileIsSaidNotGuessed) {
  ModelSet models;
  std::vector<Candidate> candidates(1);
  candidates[0].profile.verdict = reports::ProfileVerdict::unsafe;
  EXPECT_FALSE(heaviest_safe(candidates, models).has_value());
}

}  // namespace
}  // namespace gauntlet::harness
