#pragma once
// A device's peak arithmetic throughput, measured by kernels built for it (stress/compute_peak.h),
// as plain data: f32 FMA always, f16 and int8 dot only where conformance verified them. A figure
// that was not measured is absent, with the reason. GFLOP/s count 2 per FMA; GOP/s count 2 per
// int8 multiply-add (8 per four-element dot product).
#include <optional>
#include <string>

#include "core/json.h"

namespace gauntlet::core {

struct ComputePeak {
  std::optional<double> f32_gflops;
  std::string f32_reason;  // why f32_gflops is absent
  std::optional<double> f16_gflops;
  std::string f16_reason;
  std::optional<double> int8_gops;
  std::string int8_reason;
  std::string method;  // how it was measured, e.g. the kernels and the launch
  double seconds = 0;  // the whole measurement, kernel builds included
};

// achieved / f32 peak, e.g. a prompt-processing rate against what the device can do at best;
// absent when the f32 peak was not measured (or is not positive).
std::optional<double> ratio_to_peak(double achieved_gflops, const ComputePeak& peak);

// "f32 123.4 GFLOP/s, f16 not verified (...), int8 45.6 GOP/s"
std::string describe(const ComputePeak& peak);

void to_json(Json& j, const ComputePeak& v);
void from_json(const Json& j, ComputePeak& v);

}  // namespace gauntlet::core
