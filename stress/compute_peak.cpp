#include "stress/compute_peak.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>

#include "backends/catalog.h"
#include "build_options.h"
#include "kernels/peak_cl.h"
#include "kernels/peak_f16_cl.h"
#include "stress/simd_peak.h"
#ifdef GAUNTLET_HAVE_SPIRV
#include "kernels/peak_f16_comp.h"
#include "kernels/peak_f32_comp.h"
#include "kernels/peak_int8_comp.h"
#include "kernels/peak_serial_comp.h"
#endif

namespace gauntlet::stress {

namespace {

using backends::HostInvocation;
using backends::KernelSource;
using Clock = std::chrono::steady_clock;

struct PeakParams {
  uint32_t iterations;
  uint32_t seed;
  uint32_t unused[2];
};

constexpr uint32_t kGroupSize = 64;
constexpr uint32_t kMaxPeakGroups = 16384;
constexpr uint32_t kMaxIterations = 1u << 24;
// Per work-item and iteration: 16 unrolled x 4 chains x 2 FMAs x 4 lanes, 2 FLOP each (int8: 16 x
// 8 dot products of 4 multiply-adds).
constexpr double kOpsPerIteration = 16.0 * 4 * 2 * 4 * 2;
constexpr double kSerialOpsPerIteration = 16.0 * 2 * 2;

#ifdef GAUNTLET_HAVE_SPIRV
#define PEAK_SPIRV(symbol) kernels::symbol
#else
#define PEAK_SPIRV(symbol) std::span<const uint32_t>()
#endif

// The host reference backend's f32 peak: the same chains in C++ on one thread (multiply and add,
// which the compiler may or may not fuse and vectorize for the build's target).
core::Status peak_f32_host(const HostInvocation& call) {
  const auto p = call.params_as<PeakParams>();
  auto out = call.buffer<float>(0);
  const uint64_t items = uint64_t{call.groups[0]} * call.source->workgroup[0];
  for (uint64_t item = 0; item < items && item < out.size(); ++item) {
    float x[4][4], y[4][4];
    for (int k = 0; k < 4; ++k) {
      for (int l = 0; l < 4; ++l) {
        x[k][l] = static_cast<float>(item ^ p.seed) * 1e-9f + k + 0.1f * l;
        y[k][l] = x[k][l] + 0.5f;
      }
    }
    for (uint32_t i = 0; i < p.iterations; ++i) {
      for (int u = 0; u < 16; ++u) {
        for (int k = 0; k < 4; ++k) {
          for (int l = 0; l < 4; ++l) {
            x[k][l] = y[k][l] * x[k][l] + y[k][l];
            y[k][l] = x[k][l] * y[k][l] + x[k][l];
          }
        }
      }
    }
    float sum = 0;
    for (int k = 0; k < 4; ++k) {
      for (int l = 0; l < 4; ++l) sum += x[k][l] + y[k][l];
    }
    out[item] = sum;
  }
  return core::Status::ok();
}

core::Status peak_serial_host(const HostInvocation& call) {
  const auto p = call.params_as<PeakParams>();
  auto out = call.buffer<float>(0);
  float x = static_cast<float>(p.seed) * 1e-9f;
  float y = x + 0.5f;
  for (uint32_t i = 0; i < p.iterations; ++i) {
    for (int u = 0; u < 16; ++u) {
      x = std::fma(y, x, y);
      y = std::fma(x, y, x);
    }
  }
  if (!out.empty()) out[0] = x + y;
  return core::Status::ok();
}

KernelSource source(const char* name, std::string_view cl, std::span<const uint32_t> spirv,
                    backends::HostKernelFn host, uint32_t workgroup) {
  KernelSource s;
  s.name = name;
  s.opencl_c = cl;
  s.spirv = spirv;
  s.host = std::move(host);
  s.workgroup = {workgroup, 1, 1};
  s.buffer_count = 1;
  s.params_bytes = sizeof(PeakParams);
  return s;
}

struct Launch {
  uint32_t groups = 1;
  uint32_t iterations = 4;
};

// Multiplies the work by `factor`: more groups first (up to `max_groups`), then more iterations.
Launch grow(Launch launch, double factor, uint32_t max_groups) {
  const double total = static_cast<double>(launch.groups) * launch.iterations * factor;
  launch.groups = static_cast<uint32_t>(
      std::clamp(std::round(launch.groups * factor), 1.0, static_cast<double>(max_groups)));
  launch.iterations = static_cast<uint32_t>(
      std::clamp(std::round(total / launch.groups), 1.0, static_cast<double>(kMaxIterations)));
  return launch;
}

// The best rate of `source` in operations per second: the launch is grown from `start` until one
// run takes at least half of the target (a target of 0 keeps `start`), then the best of `reps`
// runs counts.
core::Result<double> best_rate(backends::Device& device, const KernelSource& source,
                               double ops_per_item_iteration, Launch start, uint32_t max_groups,
                               double target_seconds, int reps) {
  auto kernel = device.build(source);
  if (!kernel) return kernel.error();
  auto out = device.allocate(size_t{max_groups} * source.workgroup[0] * 4);
  if (!out) return out.error();
  auto once = [&](const Launch& launch) -> core::Result<double> {
    const PeakParams params{launch.iterations, 0x5eed1234u, {0, 0}};
    backends::DispatchArgs args;
    args.buffers = {out->get()};
    args.params = std::as_bytes(std::span(&params, 1));
    args.groups = {launch.groups, 1, 1};
    const auto begin = Clock::now();
    GAUNTLET_TRY(device.dispatch(**kernel, args));
    GAUNTLET_TRY(device.finish());
    return std::chrono::duration<double>(Clock::now() - begin).count();
  };
  Launch launch = start;
  // A warm-up first: drivers compile (PoCL per launch shape) or upload at the first launch.
  auto t = once(launch);
  if (!t) return t.error();
  t = once(launch);
  if (!t) return t.error();
  for (int tries = 0; tries < 16 && *t < target_seconds / 2; ++tries) {
    const Launch next =
        grow(launch, std::clamp(target_seconds / std::max(*t, 1e-6), 2.0, 64.0), max_groups);
    if (next.groups == launch.groups && next.iterations == launch.iterations) break;
    launch = next;
    t = once(launch);
    if (!t) return t.error();
  }
  if (*t < target_seconds / 2) {
    char text[160];
    std::snprintf(text, sizeof text,
                  "%s: a run of the largest launch (%u groups x %u iterations) took only %.3f ms; "
                  "the work was dropped or the figure would be meaningless",
                  source.name.c_str(), launch.groups, launch.iterations, *t * 1e3);
    return core::make_error(core::ErrorKind::internal, text);
  }
  double best = *t;
  for (int r = 0; r < reps; ++r) {
    t = once(launch);
    if (!t) return t.error();
    best = std::min(best, *t);
  }
  const double ops = static_cast<double>(launch.groups) * source.workgroup[0] * launch.iterations *
                     ops_per_item_iteration;
  return ops / best;
}

Launch first_launch(const backends::Device& device) {
  return {std::clamp<uint32_t>(device.info().max_compute_units * 4, 8, kMaxPeakGroups), 4};
}

}  // namespace

PeakOptions peak_options_for(core::Level level) {
  PeakOptions options;
  switch (level) {
    case core::Level::quick:
      options.target_seconds = 0.02;
      options.reps = 3;
      break;
    case core::Level::standard:
      options.target_seconds = 0.05;
      options.reps = 3;
      break;
    case core::Level::full:
      options.target_seconds = 0.1;
      options.reps = 5;
      break;
  }
  return options;
}

namespace {

// The cpu device's peak is the one its kernels can reach: Highway's SIMD FMA on every thread.
core::ComputePeak cpu_peak(const PeakOptions& options) {
  const auto begin = Clock::now();
  const SimdPeak simd = measure_simd_f32_peak(options.target_seconds, options.reps);
  core::ComputePeak peak;
  char method[512];
  std::snprintf(method, sizeof method,
                "cpu: 12 independent chains of %u-lane %s FMAs (Highway, the instruction set its "
                "dot products run with) unrolled 4 times, on all %u threads at once, grown until "
                "one run takes %.0f ms, best of %d runs",
                simd.lanes, simd.target, simd.threads, options.target_seconds * 1e3, options.reps);
  peak.method = method;
  peak.f32_gflops = simd.gflops;
  peak.f16_reason = "not measured: the cpu device computes in f32 and 8-bit integers";
  peak.int8_reason = "not measured: the cpu device's int8 dot products are timed by bench_cpu_dot";
  peak.seconds = std::chrono::duration<double>(Clock::now() - begin).count();
  return peak;
}

}  // namespace

core::Result<core::ComputePeak> measure_compute_peak(backends::Device& device,
                                                     const PeakOptions& options) {
  if (device.info().products == core::Products::int8_simd) return cpu_peak(options);
  const auto begin = Clock::now();
  core::ComputePeak peak;
  const bool host = device.info().id.api == core::Api::host;
  char method[512];
  std::snprintf(method, sizeof method,
                "per work-item 4 independent chains of 4-wide FMAs (x = y*x + y, y = x*y + x) "
                "unrolled 16 times (int8: 8 chains of dot products of 4 packed int8 in 32-bit "
                "integer arithmetic), %u per group, "
                "grown until one run takes %.0f ms, best of %d runs%s",
                kGroupSize, options.target_seconds * 1e3, options.reps,
                host ? "; host: the C++ loop on one thread" : "");
  peak.method = method;
  auto f32 = best_rate(
      device,
      source("peak_f32", kernels::peak_cl, PEAK_SPIRV(peak_f32_comp), peak_f32_host, kGroupSize),
      kOpsPerIteration, first_launch(device), kMaxPeakGroups, options.target_seconds, options.reps);
  if (!f32) return f32.error();
  peak.f32_gflops = *f32 / 1e9;

  const char* host_reason = "not measured: the host reference backend has only an f32 kernel";
  if (host) {
    peak.f16_reason = host_reason;
  } else if (!options.f16_verified) {
    peak.f16_reason = options.f16_reason;
  } else {
    auto f16 = best_rate(
        device,
        source("peak_f16", kernels::peak_f16_cl, PEAK_SPIRV(peak_f16_comp), nullptr, kGroupSize),
        kOpsPerIteration, first_launch(device), kMaxPeakGroups, options.target_seconds,
        options.reps);
    if (f16) {
      peak.f16_gflops = *f16 / 1e9;
    } else {
      peak.f16_reason = "error: " + f16.error().describe();
    }
  }
  if (host) {
    peak.int8_reason = host_reason;
  } else if (!options.int8_verified) {
    peak.int8_reason = options.int8_reason;
  } else {
    auto int8 = best_rate(
        device,
        source("peak_int8", kernels::peak_cl, PEAK_SPIRV(peak_int8_comp), nullptr, kGroupSize),
        kOpsPerIteration, first_launch(device), kMaxPeakGroups, options.target_seconds,
        options.reps);
    if (int8) {
      peak.int8_gops = *int8 / 1e9;
    } else {
      peak.int8_reason = "error: " + int8.error().describe();
    }
  }
  peak.seconds = std::chrono::duration<double>(Clock::now() - begin).count();
  return peak;
}

core::Result<double> measure_serial_fma_gflops(backends::Device& device) {
  // A fixed 16384 iterations (524288 dependent FMAs, about 1-2 ms on PoCL and llvmpipe here), not
  // grown: llvmpipe ran this kernel with 262144 or more iterations in the same 4-8 ms as with
  // 262144 (linear up to 65536; the cause was not found), which would make the chain look fast.
  auto rate = best_rate(
      device,
      source("peak_serial", kernels::peak_cl, PEAK_SPIRV(peak_serial_comp), peak_serial_host, 1),
      kSerialOpsPerIteration, Launch{1, 16384}, 1, 0.0, 5);
  if (!rate) return rate.error();
  return *rate / 1e9;
}

core::ComputePeak run_compute_peak(const core::DeviceInfo& claimed, const core::Options& options,
                                   const PeakOptions& peak, const core::IsolationLimits& limits) {
  const std::string dev = claimed.id.to_string();
  auto run = core::run_isolated("peak.compute", dev, limits, [&]() -> core::Json {
    auto device = backends::open(claimed.id, options);
    if (!device) return {{"error", device.error().describe()}};
    auto measured = measure_compute_peak(**device, peak);
    if (!measured) return {{"error", measured.error().describe()}};
    return core::Json(*measured);
  });
  core::ComputePeak result;
  std::string failure;
  if (!run.completed) {
    failure = core::to_string(run.failure.status) + std::string(": ") + run.failure.reason;
  } else if (run.payload.contains("error")) {
    failure = "error: " + run.payload["error"].get<std::string>();
  } else {
    result = run.payload.get<core::ComputePeak>();
    return result;
  }
  result.f32_reason = failure;
  result.f16_reason = peak.f16_verified ? "not measured: " + failure : peak.f16_reason;
  result.int8_reason = peak.int8_verified ? "not measured: " + failure : peak.int8_reason;
  result.seconds = run.duration_s;
  return result;
}

}  // namespace gauntlet::stress
