#pragma once
// Running one kernel with guard regions: every buffer gets kGuardBytes of canary after its
// payload; after the dispatch the canary of every output must be untouched.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "backends/device.h"

namespace gauntlet::conformance {

using core::Result;
using core::Status;

inline constexpr size_t kGuardBytes = 256;
inline constexpr std::byte kCanary{0xA5};

using Bytes = std::vector<std::byte>;

template <typename T>
Bytes to_bytes(const std::vector<T>& values) {
  Bytes out(values.size() * sizeof(T));
  std::memcpy(out.data(), values.data(), out.size());
  return out;
}

template <typename T>
std::vector<T> from_bytes(const Bytes& bytes) {
  std::vector<T> out(bytes.size() / sizeof(T));
  std::memcpy(out.data(), bytes.data(), out.size() * sizeof(T));
  return out;
}

struct KernelRun {
  std::vector<Bytes> buffers;  // every binding's payload; outputs start as canary
  std::vector<bool> is_output;
  Bytes params;
  std::array<uint32_t, 3> groups{1, 1, 1};
  size_t dynamic_local_bytes = 0;
  size_t declared_local_bytes = 0;  // DispatchArgs::declared_local_bytes
};

// The first canary byte found changed, as "guard region of buffer 3 overwritten at byte 0 past
// its 4096-byte payload (canary 0xa5, found 0x00)"; empty when every guard is intact.
std::string check_guard(const Bytes& whole, size_t payload, size_t buffer_index);

// Builds `kernel`, uploads payload + guard per buffer, dispatches, downloads outputs into
// run.buffers (payload only). A guard overwrite is an error of kind internal whose message
// starts with "guard region".
Status run_kernel(backends::Device& device, const backends::Kernel& kernel, KernelRun& run);

// The same on a freshly built kernel.
Status build_and_run(backends::Device& device, const backends::KernelSource& source,
                     KernelRun& run);

}  // namespace gauntlet::conformance
