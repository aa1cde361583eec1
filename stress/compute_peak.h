#pragma once
// The device's peak arithmetic throughput, as clpeak and vkpeak measure it: kernels of long
// unrolled runs of independent multiply-adds on vector registers (stress/kernels/peak*.{cl,comp}),
// launched large enough that one run takes `target_seconds`, the best of a few runs. f32 FMA
// always; f16 and int8 dot only where the caller says conformance verified them.
#include <string>

#include "backends/device.h"
#include "core/compute_peak.h"
#include "core/device_info.h"
#include "core/isolate.h"
#include "core/options.h"

namespace gauntlet::stress {

struct PeakOptions {
  // Whether conformance verified f16 arithmetic ("f16.arithmetic") and int8 dot products
  // ("int8.dot"); where not, the reason is reported in place of a figure.
  bool f16_verified = false;
  std::string f16_reason = "not verified";
  bool int8_verified = false;
  std::string int8_reason = "not verified";
  double target_seconds = 0.02;  // one timed run
  int reps = 3;                  // timed runs after one warm-up; the best counts
};

// The level's run length and repetitions: quick 20 ms x 3, standard 50 ms x 3, full 100 ms x 5.
PeakOptions peak_options_for(core::Level level);

// Measures on an open device. An error only when the f32 kernel cannot be built or run; a failed
// f16 or int8 kernel leaves its figure absent with the error as its reason.
core::Result<core::ComputePeak> measure_compute_peak(backends::Device& device,
                                                     const PeakOptions& options);

// The rate of one work-item running one FMA chain (each step waits for the one before), in
// GFLOP/s: what a device achieves when nothing is hidden. The peak must be far above it.
core::Result<double> measure_serial_fma_gflops(backends::Device& device);

// Opens `claimed` in an isolated child and measures there; a crash, timeout or error becomes the
// f32 reason (the figures absent).
core::ComputePeak run_compute_peak(const core::DeviceInfo& claimed, const core::Options& options,
                                   const PeakOptions& peak, const core::IsolationLimits& limits);

}  // namespace gauntlet::stress
