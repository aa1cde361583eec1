#include "stress/bandwidth.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <vector>

#include "core/clock.h"
#include "stress/kernels.h"

namespace gauntlet::stress {

namespace {

using Clock = std::chrono::steady_clock;

double gbps(uint64_t bytes, double seconds) {
  return seconds > 0 ? static_cast<double>(bytes) / seconds / 1e9 : 0.0;
}

// Runs `once` `reps` times after one warm-up and returns the shortest time.
template <typename Fn>
core::Result<double> best_time(int reps, Fn once) {
  double best = 0;
  for (int r = -1; r < reps; ++r) {
    const auto start = Clock::now();
    GAUNTLET_TRY(once());
    const double t = core::seconds_since(start);
    if (r >= 0 && (best == 0 || t < best)) best = t;
  }
  return best;
}

}  // namespace

core::Json Bandwidth::to_json() const {
  return {{"copy_gbps", copy_gbps}, {"read_gbps", read_gbps}, {"write_gbps", write_gbps},
          {"h2d_gbps", h2d_gbps},   {"d2h_gbps", d2h_gbps},   {"bytes", bytes}};
}

core::Result<Bandwidth> measure_device_bandwidth(backends::Device& device, backends::Buffer& a,
                                                 backends::Buffer& b, int reps,
                                                 BandwidthParts parts) {
  Bandwidth bw;
  bw.bytes = std::min<uint64_t>({a.size(), b.size(), kBandwidthBytes}) / 16 * 16;
  const uint64_t vectors = bw.bytes / 16;
  const auto shapes = bandwidth_launches(vectors);
  const uint32_t all = shapes[0].groups;
  const auto count = static_cast<uint32_t>(vectors);
  auto copy = device.build(copy_kernel());
  if (!copy) return copy.error();
  auto read = device.build(read_kernel());
  if (!read) return read.error();
  auto write = device.build(write_kernel());
  if (!write) return write.error();
  auto sink = device.allocate(uint64_t{all} * kWorkgroup * 4);
  if (!sink) return sink.error();

  // The shortest time of `kernel` over `buffers` in any shape: one untimed warm-up, each shape
  // once, then the fastest shape reps - 1 more times. Only the fastest shape can give the result,
  // so timing every shape reps times only cost time (on llvmpipe, whose grid-stride shapes run at
  // a third of its best, the quick step's measurement took 4.8 s). The warm-up, which only builds
  // the pipeline and its first dispatch, moves the first 64 KiB: over the whole 128 MiB it took
  // llvmpipe as long as a timed run of its slowest shape.
  const BwLaunch warm_up{1, {std::min(count, 4096u), 0}};
  auto fastest = [&](const backends::Kernel& kernel,
                     std::vector<backends::Buffer*> buffers) -> core::Result<double> {
    auto once = [&](const BwLaunch& shape) -> core::Result<double> {
      backends::DispatchArgs args;
      args.buffers = buffers;
      args.params = std::as_bytes(std::span(&shape.params, 1));
      args.groups = {shape.groups, 1, 1};
      const auto start = Clock::now();
      GAUNTLET_TRY(device.dispatch(kernel, args));
      GAUNTLET_TRY(device.finish());
      return core::seconds_since(start);
    };
    GAUNTLET_TRY(once(warm_up).status());
    double best = 0;
    const BwLaunch* best_shape = &shapes[0];
    for (const BwLaunch& shape : shapes) {
      auto t = once(shape);
      if (!t) return t.error();
      if (best == 0 || *t < best) {
        best = *t;
        best_shape = &shape;
      }
    }
    for (int r = 1; r < reps; ++r) {
      auto t = once(*best_shape);
      if (!t) return t.error();
      best = std::min(best, *t);
    }
    return best;
  };
  // Both buffers are written before anything is timed: on CPU drivers a fresh allocation is
  // untouched pages that all read from one zero page in cache (PoCL's read measured 79 GB/s there,
  // 25-30 GB/s once written).
  for (backends::Buffer* buffer : {&a, &b}) {
    backends::DispatchArgs args;
    args.buffers = {buffer};
    args.params = std::as_bytes(std::span(&shapes[0].params, 1));
    args.groups = {shapes[0].groups, 1, 1};
    GAUNTLET_TRY(device.dispatch(**write, args));
  }
  GAUNTLET_TRY(device.finish());
  auto t = fastest(**copy, {&a, &b});
  if (!t) return t.error();
  bw.copy_gbps = gbps(2 * bw.bytes, *t);
  if (parts == BandwidthParts::copy_only) return bw;
  t = fastest(**read, {&a, sink->get()});
  if (!t) return t.error();
  bw.read_gbps = gbps(bw.bytes, *t);
  t = fastest(**write, {&b});
  if (!t) return t.error();
  bw.write_gbps = gbps(bw.bytes, *t);

  std::vector<std::byte> host(bw.bytes, std::byte{0x3c});
  t = best_time(reps, [&] { return device.upload(a, host); });
  if (!t) return t.error();
  bw.h2d_gbps = gbps(bw.bytes, *t);
  t = best_time(reps, [&] { return device.download(a, host); });
  if (!t) return t.error();
  bw.d2h_gbps = gbps(bw.bytes, *t);
  return bw;
}

double measure_host_memcpy_gbps(uint64_t bytes, int reps) {
  std::vector<std::byte> src(bytes, std::byte{0x5a});
  std::vector<std::byte> dst(bytes, std::byte{0});
  double best = 0;
  for (int r = -1; r < reps; ++r) {
    const auto start = Clock::now();
    std::memcpy(dst.data(), src.data(), bytes);
    const double t = core::seconds_since(start);
    if (r >= 0 && (best == 0 || t < best)) best = t;
    src[static_cast<size_t>(r + 1) % bytes] = dst[0];  // keeps the copies observable
  }
  return gbps(2 * bytes, best);
}

}  // namespace gauntlet::stress
