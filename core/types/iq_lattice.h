#pragma once
// The lattices the iq1, iq2 and iq3 encoders search, as ggml-quants.c's iq2xs_init_impl and
// iq3xs_init_impl build them (ggml's iq2_data / iq3_data: kgrid_q2xs / kgrid_q3xs, kmap_q2xs /
// kmap_q3xs, kneighbors_q2xs / kneighbors_q3xs), and ggml's nearest-neighbour search on them
// (iq2_find_best_neighbour, iq3_find_best_neighbour). Each lattice is built once, on first use,
// thread-safely. Internal to core/types/.
#include <bit>
#include <cstdint>
#include <vector>

namespace gauntlet::core::types::iq {

// A grid of 8-value (iq1, iq2) or 4-value (iq3) points. Coordinate k of point j is 2l + 1 for its
// level l (0..2 for the 8-value grids, 0..7 for the 4-value ones), as ggml's kgrid_q2xs holds it.
// map is indexed by a code u (level k in bits 2k.. or 3k..): the point with those levels, or, for a
// code off the grid, -(offset + 1) where neighbours[offset] is a count and the count entries after
// it are the points at the nwant smallest distances from the code, by distance then index.
struct Lattice {
  int dim = 0;
  int bits = 0;  // a level's bits in a code: 2 (dim 8) or 3 (dim 4)
  std::vector<int8_t> points;
  std::vector<int> map;
  std::vector<uint16_t> neighbours;

  const int8_t* point(int j) const { return points.data() + dim * j; }
  // The code u of dim levels (level k in bits bits * k..), as ggml's encoders compute it.
  uint32_t code(const int8_t* levels) const {
    uint32_t u = 0;
    for (int i = 0; i < dim; ++i) u |= static_cast<uint32_t>(levels[i] << bits * i);
    return u;
  }
  // The neighbour list of a code whose map entry is negative (count first).
  const uint16_t* neighbours_of(uint32_t u) const { return neighbours.data() + (-map[u] - 1); }
};

// Which of ggml's grids (core/types/iq_tables.h); iq1_s and iq1_m share iq1s.
enum class LatticeGrid { iq2xxs, iq2xs, iq2s, iq1s, iq3xxs, iq3s };

const Lattice& lattice(LatticeGrid grid);

// ggml's iq2_find_best_neighbour (dim 8) and iq3_find_best_neighbour (dim 4): of the code u's
// neighbours, the one whose values scale * point come nearest xval by sum weight * diff^2 (the
// first of equals); writes its levels to L and returns its index.
int best_neighbour(const Lattice& lattice, uint32_t u, const float* xval, const float* weight,
                   float scale, int8_t* L);

// ggml's iq1_find_best_neighbour2 (dim 8): the same search with the value of level l values[l]
// instead of 2l + 1, and, when no neighbour comes nearer than FLT_MAX, the whole grid searched the
// same way. (ggml's whole-grid fallback reads xval[i] with i the grid index, out of bounds; it
// takes the group's own value xval[j] here, as evidently meant.)
int best_neighbour_valued(const Lattice& lattice, uint32_t u, const float* xval,
                          const float* weight, float scale, const float* values, int8_t* L);

// The magnitudes xval of a group of 8 values xb and their 8 sign bits, as quantize_row_iq2_s_impl
// and _iq3_s_impl take them (every sign free).
inline uint8_t free_signs(const float* xb, float* xval) {
  uint8_t s = 0;
  for (int i = 0; i < 8; ++i) {
    if (xb[i] >= 0) {
      xval[i] = xb[i];
    } else {
      xval[i] = -xb[i];
      s |= static_cast<uint8_t>(1 << i);
    }
  }
  return s;
}

// The magnitudes xval of a group of 8 values xb and its 7 sign bits, as quantize_row_iq2_xxs_impl,
// _iq2_xs_impl and _iq3_xxs_impl take them: the 8th sign is the parity of the 7 (ggml's
// ksigns_iq2xs), so with an odd number of negatives the value of least weight * xb^2 (the first
// of equals) takes the other sign: its magnitude is negated.
inline uint8_t even_signs(const float* xb, const float* weight, float* xval) {
  uint8_t s = free_signs(xb, xval);
  if (std::popcount(s) % 2) {
    int imin = 0;
    float min = weight[imin] * xb[imin] * xb[imin];
    for (int i = 1; i < 8; ++i) {
      const float ax = weight[i] * xb[i] * xb[i];
      if (ax < min) {
        min = ax;
        imin = i;
      }
    }
    xval[imin] = -xval[imin];
    s ^= static_cast<uint8_t>(1 << imin);
  }
  return s & 127;
}

}  // namespace gauntlet::core::types::iq
