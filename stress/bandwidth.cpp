#include "stress/bandwidth.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <vector>

#include "stress/kernels.h"

namespace gauntlet::stress {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

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
    const double t = seconds_since(start);
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
                                                 backends::Buffer& b, int reps) {
  Bandwidth bw;
  // 64 MiB: past the last-level cache of the CPUs these drivers run on, so DRAM is measured.
  bw.bytes = std::min<uint64_t>({a.size(), b.size(), uint64_t{64} << 20}) / 16 * 16;
  const uint64_t vectors = bw.bytes / 16;
  const BwParams params{static_cast<uint32_t>(vectors)};
  // Two launch shapes, the better one counting: one vector per invocation (what GPUs and PoCL
  // stream best) and 1024 workgroups that loop (what llvmpipe reads best).
  const uint32_t shapes[] = {groups_for(vectors), std::min<uint32_t>(groups_for(vectors), 1024)};
  auto copy = device.build(copy_kernel());
  if (!copy) return copy.error();
  auto read = device.build(read_kernel());
  if (!read) return read.error();
  auto write = device.build(write_kernel());
  if (!write) return write.error();
  auto sink = device.allocate(uint64_t{shapes[0]} * kWorkgroup * 4);
  if (!sink) return sink.error();

  // The shortest time of `kernel` over `buffers` in either shape.
  auto fastest = [&](const backends::Kernel& kernel,
                     std::vector<backends::Buffer*> buffers) -> core::Result<double> {
    double best = 0;
    for (uint32_t groups : shapes) {
      auto t = best_time(reps, [&]() -> core::Status {
        backends::DispatchArgs args;
        args.buffers = buffers;
        args.params = std::as_bytes(std::span(&params, 1));
        args.groups = {groups, 1, 1};
        GAUNTLET_TRY(device.dispatch(kernel, args));
        return device.finish();
      });
      if (!t) return t.error();
      if (best == 0 || *t < best) best = *t;
    }
    return best;
  };
  auto t = fastest(**copy, {&a, &b});
  if (!t) return t.error();
  bw.copy_gbps = gbps(2 * bw.bytes, *t);
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
    const double t = seconds_since(start);
    if (r >= 0 && (best == 0 || t < best)) best = t;
    src[static_cast<size_t>(r + 1) % bytes] = dst[0];  // keeps the copies observable
  }
  return gbps(2 * bytes, best);
}

}  // namespace gauntlet::stress
