#pragma once
// The lookup tables of the iq1, iq2 and iq3 weight types, as ggml-common.h (llama.cpp) has them:
// each entry is a row of 8 (uint64_t: bytes) or 4 (uint32_t: bytes) unsigned magnitudes, or for
// iq1s_grid 8 signed bytes in {-1, 0, 1}. The sign bytes ksigns_iq2xs are not a table here:
// sign_byte() is ggml's ksigns_iq2xs[i] (7 sign bits and their parity as the 8th). Internal to
// core/types/.
#include <cstdint>

namespace gauntlet::core::types::iq {

extern const uint64_t iq2xxs_grid[256];
extern const uint64_t iq2xs_grid[512];
extern const uint64_t iq2s_grid[1024];
extern const uint32_t iq3xxs_grid[256];
extern const uint32_t iq3s_grid[512];
extern const uint64_t iq1s_grid[2048];

// ggml's ksigns_iq2xs[s] for s < 128: the 7 sign bits s and, as bit 7, their parity (an even
// number of negative values in each group of 8).
constexpr uint8_t sign_byte(uint32_t s) {
  return static_cast<uint8_t>((s & 127u) | ((__builtin_popcount(s & 127u) & 1u) << 7));
}

// IQ1S_DELTA and IQ1M_DELTA (ggml-common.h): the shift of every iq1 value off the grid.
inline constexpr float kIq1Delta = 0.125f;

}  // namespace gauntlet::core::types::iq
