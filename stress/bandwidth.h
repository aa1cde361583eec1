#pragma once
// Bandwidth in GB/s (10^9 bytes per second). A copy counts the bytes read and the bytes written,
// for the device and for the host's memcpy alike, so that the two compare.
#include <cstdint>

#include "backends/device.h"
#include "core/json.h"

namespace gauntlet::stress {

// Bytes per measurement: four times the last-level cache of the CPUs these drivers run on (32 MiB
// here), where a 64 MiB read still measured PoCL at 1.4x its 256 MiB rate.
inline constexpr uint64_t kBandwidthBytes = uint64_t{128} << 20;

struct Bandwidth {
  double copy_gbps = 0, read_gbps = 0, write_gbps = 0, h2d_gbps = 0, d2h_gbps = 0;
  uint64_t bytes = 0;  // per measurement
  core::Json to_json() const;
};

// What a measurement covers: every figure, or the copy alone (the speed floor's reference).
enum class BandwidthParts { all, copy_only };

// Device copy (a -> b), read (a) and write (b) kernels and host<->device transfers over
// min(a, b, kBandwidthBytes) bytes; the best of `reps` runs each. Overwrites both buffers.
core::Result<Bandwidth> measure_device_bandwidth(backends::Device& device, backends::Buffer& a,
                                                 backends::Buffer& b, int reps = 3,
                                                 BandwidthParts parts = BandwidthParts::all);

// The host's own memcpy over `bytes` (best of `reps`), read + write counted.
double measure_host_memcpy_gbps(uint64_t bytes, int reps = 3);

}  // namespace gauntlet::stress
