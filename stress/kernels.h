#pragma once
// The stress kernels on every backend (OpenCL C, SPIR-V, host reference) and the pattern words
// the host recomputes to check what the device holds.
#include <array>
#include <cstdint>
#include <type_traits>

#include "backends/device.h"

namespace gauntlet::stress {

enum class Pattern : uint32_t { walking_ones = 0, walking_zeros = 1, own_address = 2, random = 3 };

const char* to_string(Pattern pattern);

struct FillParams {
  uint32_t mode;
  uint32_t seed;
  uint32_t offset_lo;
  uint32_t offset_hi;
  uint32_t count;
  uint32_t mask;
};

struct InvertParams {
  uint32_t offset_lo;
  uint32_t offset_hi;
  uint32_t count;
};

struct BwParams {
  uint32_t count;           // 16-byte vectors
  uint32_t per_invocation;  // 0: grid-stride; otherwise one contiguous run per invocation
};

inline uint32_t mix32(uint32_t x) {
  x ^= x >> 16;
  x *= 0x7feb352du;
  x ^= x >> 15;
  x *= 0x846ca68bu;
  x ^= x >> 16;
  return x;
}

// What the fill kernel writes at word `index` (before the mask).
inline uint32_t pattern_word(Pattern pattern, uint32_t seed, uint64_t index) {
  const auto lo = static_cast<uint32_t>(index);
  const auto hi = static_cast<uint32_t>(index >> 32);
  switch (pattern) {
    case Pattern::walking_ones:
      return 1u << (lo & 31u);
    case Pattern::walking_zeros:
      return ~(1u << (lo & 31u));
    case Pattern::own_address:
      return static_cast<uint32_t>(index << 2);
    case Pattern::random:
      return mix32(lo ^ mix32(seed ^ hi));
  }
  return 0;
}

// Calls f with the pattern as a compile-time constant (std::integral_constant), so that a loop over
// words inside f has no switch per word.
template <typename F>
void with_pattern(Pattern pattern, F&& f) {
  switch (pattern) {
    case Pattern::walking_ones:
      return f(std::integral_constant<Pattern, Pattern::walking_ones>{});
    case Pattern::walking_zeros:
      return f(std::integral_constant<Pattern, Pattern::walking_zeros>{});
    case Pattern::own_address:
      return f(std::integral_constant<Pattern, Pattern::own_address>{});
    case Pattern::random:
      return f(std::integral_constant<Pattern, Pattern::random>{});
  }
}

inline constexpr uint32_t kWorkgroup = 64;
inline constexpr uint32_t kMaxGroups = 65535;

backends::KernelSource fill_kernel();
backends::KernelSource invert_kernel();
backends::KernelSource copy_kernel();
backends::KernelSource read_kernel();
backends::KernelSource write_kernel();

// Workgroups for a grid-stride dispatch over `count` words.
uint32_t groups_for(uint64_t count);

// A bandwidth kernel's launch over `count` 16-byte vectors.
struct BwLaunch {
  uint32_t groups;
  BwParams params;
};

// The launches a bandwidth measurement tries, the fastest counting. Grid-stride with one vector
// per invocation is what GPUs and PoCL stream best; a contiguous run per invocation is what
// llvmpipe reads best (each lane of its per-lane loads then walks its own cache lines), measured at
// 2-3x its grid-stride rate.
std::array<BwLaunch, 4> bandwidth_launches(uint64_t count);

}  // namespace gauntlet::stress
