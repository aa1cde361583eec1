// ggml-quants.c's iq2xs_init_impl and iq3xs_init_impl: the points of a grid (from the grids of
// iq{1,2,3}_grids.cpp: ggml builds them from its kgrid_2bit_* / kgrid_1bit_2048 / kgrid_256 /
// kgrid_512 codes, whose levels are those of ggml-common.h's grids: iq2 magnitudes 8, 25, 43 are
// levels 0, 1, 2; iq1s values -1, 0, 1 are 0, 1, 2; iq3xxs magnitudes 4, 12, .., 62 are 0..7 (v /
// 8); iq3s magnitudes 1, 3, .., 15 are 0..7 ((v - 1) / 2)), the code map, and each off-grid code's
// neighbours. ggml sorts all points by (distance, index) with qsort and keeps those at the nwant
// smallest distances; that key is a total order, so collecting the points of each of those
// distances in index order gives the same lists without sorting.
#include "core/types/iq_lattice.h"

#include <cfloat>
#include <climits>
#include <stdexcept>

#include "core/types/iq_tables.h"

namespace gauntlet::core::types::iq {

namespace {

// iq2xs_init_impl / iq3xs_init_impl after the grid is laid out: kmap_q2xs (kmap_size 43692 for
// the 8-value grids, 4096 for the 4-value ones) and kneighbors_q2xs, with nwant distances kept.
void build_map_and_neighbours(Lattice& lat, int grid_size, int bits, int kmap_size, int nwant) {
  const int dim = lat.dim;
  lat.bits = bits;
  const int mask = (1 << bits) - 1;
  lat.map.assign(static_cast<size_t>(kmap_size), -1);
  for (int j = 0; j < grid_size; ++j) {
    const int8_t* p = lat.point(j);
    int index = 0;
    for (int k = 0; k < dim; ++k) index |= ((p[k] - 1) / 2) << (bits * k);
    lat.map[static_cast<size_t>(index)] = j;
  }
  std::vector<int> dist2(static_cast<size_t>(grid_size));
  int8_t pos[8];
  for (int i = 0; i < kmap_size; ++i) {
    if (lat.map[static_cast<size_t>(i)] >= 0) continue;
    for (int k = 0; k < dim; ++k) pos[k] = static_cast<int8_t>(2 * ((i >> (bits * k)) & mask) + 1);
    for (int j = 0; j < grid_size; ++j) {
      const int8_t* pg = lat.point(j);
      int d2 = 0;
      for (int k = 0; k < dim; ++k) d2 += (pg[k] - pos[k]) * (pg[k] - pos[k]);
      dist2[static_cast<size_t>(j)] = d2;
    }
    // The nwant smallest distinct distances, ascending.
    int levels[3];
    int nlevels = 0;
    int previous = -1;
    while (nlevels < nwant) {
      int next = INT_MAX;
      for (int d2 : dist2)
        if (d2 > previous && d2 < next) next = d2;
      if (next == INT_MAX) break;
      levels[nlevels++] = next;
      previous = next;
    }
    const size_t offset = lat.neighbours.size();
    lat.map[static_cast<size_t>(i)] = -static_cast<int>(offset + 1);
    lat.neighbours.push_back(0);
    for (int l = 0; l < nlevels; ++l)
      for (int j = 0; j < grid_size; ++j)
        if (dist2[static_cast<size_t>(j)] == levels[l])
          lat.neighbours.push_back(static_cast<uint16_t>(j));
    lat.neighbours[offset] = static_cast<uint16_t>(lat.neighbours.size() - offset - 1);
  }
}

// iq2xs_init_impl (dim 8, 2 bits a level, kmap_size 43692; nwant 2 for iq2_xxs and iq2_xs, 1 for
// iq2_s, 3 for iq1_s and iq1_m) and iq3xs_init_impl (dim 4, 3 bits, 4096; nwant 2 for the 256-point
// grid of iq3_xxs, 3 for the 512-point one of iq3_s).
template <typename Level>
Lattice build(int dim, int grid_size, int nwant, Level level) {
  Lattice lat;
  lat.dim = dim;
  lat.points.resize(static_cast<size_t>(grid_size * dim));
  for (int j = 0; j < grid_size; ++j)
    for (int k = 0; k < dim; ++k)
      lat.points[static_cast<size_t>(dim * j + k)] = static_cast<int8_t>(2 * level(j, k) + 1);
  if (dim == 8)
    build_map_and_neighbours(lat, grid_size, 2, 43692, nwant);
  else
    build_map_and_neighbours(lat, grid_size, 3, 4096, nwant);
  return lat;
}

int byte_of(uint64_t entry, int k) { return static_cast<int>((entry >> (8 * k)) & 0xff); }

}  // namespace

const Lattice& lattice(LatticeGrid grid) {
  switch (grid) {
    case LatticeGrid::iq2xxs: {
      static const Lattice lat =
          build(8, 256, 2, [](int j, int k) { return byte_of(iq2xxs_grid[j], k) / 16; });
      return lat;
    }
    case LatticeGrid::iq2xs: {
      static const Lattice lat =
          build(8, 512, 2, [](int j, int k) { return byte_of(iq2xs_grid[j], k) / 16; });
      return lat;
    }
    case LatticeGrid::iq2s: {
      static const Lattice lat =
          build(8, 1024, 1, [](int j, int k) { return byte_of(iq2s_grid[j], k) / 16; });
      return lat;
    }
    case LatticeGrid::iq1s: {
      static const Lattice lat = build(8, 2048, 3, [](int j, int k) {
        return static_cast<int8_t>(byte_of(iq1s_grid[j], k)) + 1;
      });
      return lat;
    }
    case LatticeGrid::iq3xxs: {
      static const Lattice lat =
          build(4, 256, 2, [](int j, int k) { return byte_of(iq3xxs_grid[j], k) / 8; });
      return lat;
    }
    case LatticeGrid::iq3s: {
      static const Lattice lat =
          build(4, 512, 3, [](int j, int k) { return (byte_of(iq3s_grid[j], k) - 1) / 2; });
      return lat;
    }
  }
  throw std::logic_error("iq lattice: unknown grid");
}

namespace {

// iq2_find_best_neighbour, iq3_find_best_neighbour and iq1_find_best_neighbour2, which differ only
// in the value of a grid coordinate (value) and iq1's whole-grid fallback: the first candidate of
// least sum weight * (scale * value - xval)^2; -1 when none is below FLT_MAX.
template <typename Value>
int nearest(const Lattice& lat, uint32_t u, const float* xval, const float* weight, float scale,
            Value value, bool whole_grid) {
  const auto d2_of = [&](const int8_t* pg) {
    float d2 = 0;
    for (int i = 0; i < lat.dim; ++i) {
      const float q = value(pg[i]);
      const float diff = scale * q - xval[i];
      d2 += weight[i] * diff * diff;
    }
    return d2;
  };
  const uint16_t* neighbours = lat.neighbours_of(u);
  const int num_neighbors = neighbours[0];
  float best_d2 = FLT_MAX;
  int grid_index = -1;
  for (int j = 1; j <= num_neighbors; ++j) {
    const float d2 = d2_of(lat.point(neighbours[j]));
    if (d2 < best_d2) {
      best_d2 = d2;
      grid_index = neighbours[j];
    }
  }
  if (grid_index < 0 && whole_grid) {
    const int grid_size = static_cast<int>(lat.points.size()) / lat.dim;
    for (int j = 0; j < grid_size; ++j) {
      const float d2 = d2_of(lat.point(j));
      if (d2 < best_d2) {
        best_d2 = d2;
        grid_index = j;
      }
    }
  }
  return grid_index;
}

// The levels of point grid_index into L.
void levels_of(const Lattice& lat, int grid_index, int8_t* L) {
  const int8_t* pg = lat.point(grid_index);
  for (int i = 0; i < lat.dim; ++i) L[i] = static_cast<int8_t>((pg[i] - 1) / 2);
}

}  // namespace

int best_neighbour(const Lattice& lat, uint32_t u, const float* xval, const float* weight,
                   float scale, int8_t* L) {
  const int grid_index = nearest(
      lat, u, xval, weight, scale, [](int8_t p) { return static_cast<float>(p); }, false);
  // ggml asserts here: no neighbour came nearer than FLT_MAX (a NaN or infinite distance).
  if (grid_index < 0) throw std::invalid_argument("iq encoders: no grid point near a group (NaN?)");
  levels_of(lat, grid_index, L);
  return grid_index;
}

int best_neighbour_valued(const Lattice& lat, uint32_t u, const float* xval, const float* weight,
                          float scale, const float* values, int8_t* L) {
  const int grid_index = nearest(
      lat, u, xval, weight, scale, [values](int8_t p) { return values[(p - 1) / 2]; }, true);
  if (grid_index < 0)
    throw std::invalid_argument("iq1 encoders: no grid point near a group (NaN?)");
  levels_of(lat, grid_index, L);
  return grid_index;
}

}  // namespace gauntlet::core::types::iq
