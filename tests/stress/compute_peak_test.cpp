// The compute peak on the real drivers, PoCL (OpenCL) and llvmpipe (Vulkan), and on the host
// reference backend. A missing driver is a failure, not a skip.
#include "stress/compute_peak.h"

#include <gtest/gtest.h>

#include <cmath>

#include "backends/catalog.h"
#include "conformance/conformance.h"
#include "core/isolate.h"
#include "core/options.h"
#include "probes/inventory.h"

namespace gauntlet::stress {
namespace {

core::Options environment_options() {
  auto options = core::Options::from_environment();
  EXPECT_TRUE(options.is_ok());
  return options.is_ok() ? *options : core::Options{};
}

bool positive_finite(double v) { return std::isfinite(v) && v > 0; }

// Each measurement runs in a child (as `gauntlet run` does), so that this process holds no driver
// state when a later test forks.
class ComputePeak : public ::testing::TestWithParam<std::string> {};

// The peak is a real figure, and it is what many independent chains achieve: far above one
// work-item running one chain whose every step waits for the one before. A kernel whose work the
// compiler dropped would be "fast" in both (or refused for runs too short to time); one that
// serialised its chains would not beat it.
TEST_P(ComputePeak, F32PeakIsFarAboveOneSerialChain) {
  const auto options = environment_options();
  auto run = core::run_isolated("test.peak", GetParam(), {}, [&]() -> core::Json {
    auto device = backends::open(*core::DeviceId::parse(GetParam()), options);
    if (!device) return {{"error", "(is the driver installed?) " + device.error().describe()}};
    auto peak = measure_compute_peak(**device, peak_options_for(core::Level::quick));
    if (!peak) return {{"error", peak.error().describe()}};
    auto serial = measure_serial_fma_gflops(**device);
    if (!serial) return {{"error", serial.error().describe()}};
    return {{"peak", *peak}, {"serial", *serial}};
  });
  ASSERT_TRUE(run.completed) << run.failure.reason;
  ASSERT_FALSE(run.payload.contains("error")) << run.payload["error"].get<std::string>();
  const auto peak = run.payload["peak"].get<core::ComputePeak>();
  const double serial = run.payload["serial"].get<double>();
  ASSERT_TRUE(peak.f32_gflops.has_value()) << peak.f32_reason;
  EXPECT_TRUE(positive_finite(*peak.f32_gflops)) << *peak.f32_gflops;
  EXPECT_TRUE(positive_finite(serial)) << serial;
  // 11-17x on PoCL and llvmpipe here; the host's one-thread C++ loop only 5x its serial chain.
  const double factor = GetParam() == "host" ? 2 : 4;
  EXPECT_GT(*peak.f32_gflops, factor * serial)
      << GetParam() << ": peak " << *peak.f32_gflops << " GFLOP/s, one chain " << serial;
  std::printf("%s: f32 peak %.1f GFLOP/s, one serial chain %.2f GFLOP/s, measured in %.2f s\n",
              GetParam().c_str(), *peak.f32_gflops, serial, peak.seconds);
  // Not verified: no figure, the reason instead.
  EXPECT_FALSE(peak.f16_gflops.has_value());
  EXPECT_FALSE(peak.f16_reason.empty());
  EXPECT_FALSE(peak.int8_gops.has_value());
  EXPECT_FALSE(peak.int8_reason.empty());
  // The quick level keeps the whole measurement short: here 0.1-0.4 s with the driver's kernel
  // cache warm; PoCL's first build of the kernels (a cold cache, as in CI) took 2-3 s.
  EXPECT_LT(peak.seconds, 5.0);
}

INSTANTIATE_TEST_SUITE_P(Drivers, ComputePeak, ::testing::Values("opencl:0", "vulkan:0", "host"),
                         [](const auto& info) {
                           std::string name = info.param;
                           return name.substr(0, name.find(':'));
                         });

// f16 and int8 as `gauntlet run` decides them: the conformance cases that verify f16 arithmetic
// and int8 dot products run first; each figure is there exactly where its feature was verified,
// measured in an isolated child.
class VerifiedPeak : public ::testing::TestWithParam<std::string> {};

TEST_P(VerifiedPeak, F16AndInt8WhereConformanceVerifiedThem) {
  const auto options = environment_options();
  auto inventory = probes::enumerate_all(options);
  const core::DeviceInfo* claimed = inventory.find(*core::DeviceId::parse(GetParam()));
  ASSERT_NE(claimed, nullptr) << GetParam() << " is not on this machine";
  conformance::ConformanceOptions conf;
  conf.filter = "f16.native.*,int8.dot4*";
  const auto verdicts = conformance::run_conformance(*claimed, options, conf);
  const bool f16 = verdicts.features.at("f16.arithmetic").verdict == conformance::Verdict::verified;
  const bool int8 = verdicts.features.at("int8.dot").verdict == conformance::Verdict::verified;

  PeakOptions peak_options = peak_options_for(core::Level::quick);
  peak_options.f16_verified = f16;
  peak_options.int8_verified = int8;
  const auto peak = run_compute_peak(*claimed, options, peak_options, {});
  ASSERT_TRUE(peak.f32_gflops.has_value()) << peak.f32_reason;
  EXPECT_TRUE(positive_finite(*peak.f32_gflops));
  EXPECT_EQ(peak.f16_gflops.has_value(), f16) << peak.f16_reason;
  EXPECT_EQ(peak.int8_gops.has_value(), int8) << peak.int8_reason;
  EXPECT_TRUE(positive_finite(peak.f16_gflops.value_or(1.0)));
  EXPECT_TRUE(positive_finite(peak.int8_gops.value_or(1.0)));
  std::printf("%s: %s (f16 %s, int8 dot %s by conformance), %.2f s\n", GetParam().c_str(),
              core::describe(peak).c_str(), f16 ? "verified" : "not verified",
              int8 ? "verified" : "not verified", peak.seconds);
}

INSTANTIATE_TEST_SUITE_P(Drivers, VerifiedPeak, ::testing::Values("opencl:0", "vulkan:0"),
                         [](const auto& info) {
                           std::string name = info.param;
                           return name.substr(0, name.find(':'));
                         });

}  // namespace
}  // namespace gauntlet::stress
