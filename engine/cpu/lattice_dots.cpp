// The lattice types' integer dot products (lattice_dots.h). Each kernel lays a sub-block of 32
// grid values out as signed 8-bit weights (iq2/iq3 magnitudes at most 62 with their signs, iq1's
// -1, 0, 1, iq4's kvalues_iq4nl; tq1_0/tq2_0's trits less 1, q1_0's -1/+1, q2_0's codes less 1,
// nvfp4's kvalues_mxfp4), sums their products with the activation codes in 32 bits, and
// scales as its llama.cpp function does, in the same order: the sub-block sums times their odd
// levels (2s + 1) summed per block of 256, then times the weight's f16 scale and the activations'
// scale. The loops over 32 elements vectorise (this file is built at -O3; GCC also makes an AVX2
// clone on x86-64): 1.9 (iq1_m) to 4.4 GB/s on 2 cores of a Zen 5 (BM_CpuDeviceMatvec), against
// about 0.1 for the exact float products. The block layouts are ggml-common.h's, as
// core/types/iq1.cpp, iq2.cpp and iq3.cpp decode them; the grids are core's (iq_tables.h).
#include "engine/cpu/lattice_dots.h"

#include <array>
#include <cmath>
#include <cstring>

#include "core/fma_clones.h"
#include "core/types/iq_tables.h"
#include "core/types/nonlinear_values.h"

// With GCC on x86-64, an AVX2 clone of each kernel beside the baseline one, picked at load time.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define GAUNTLET_LATTICE_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define GAUNTLET_LATTICE_CLONES
#endif

namespace gauntlet::engine::cpu {
namespace {

namespace iq = core::types::iq;

const float* const kF16 = core::f16_table_data();

uint16_t u16_at(const uint8_t* p) {
  uint16_t v;
  std::memcpy(&v, p, 2);
  return v;
}

uint32_t u32_at(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

float f16_at(const uint8_t* p) { return kF16[u16_at(p)]; }

// Byte j of kNegate[s] is 0xff where bit j of s is set: the 8 signs of a group as a byte mask.
constexpr std::array<uint64_t, 256> kNegate = [] {
  std::array<uint64_t, 256> t{};
  for (uint32_t s = 0; s < 256; ++s) {
    for (uint32_t j = 0; j < 8; ++j) {
      if ((s >> j) & 1) t[s] |= uint64_t{0xff} << (8 * j);
    }
  }
  return t;
}();

// A sub-block of 32 weights as grid entries: 4 groups of 8 unsigned magnitudes (byte j of an
// entry is element j) and their sign masks.
struct Groups {
  uint8_t magnitude[32];
  uint8_t negate[32];

  void set(int l, uint64_t entry, uint32_t signs) {
    std::memcpy(magnitude + 8 * l, &entry, 8);
    std::memcpy(negate + 8 * l, &kNegate[signs & 0xff], 8);
  }
};

// Two 4-magnitude entries of the iq3 grids as one 8-magnitude entry.
inline uint64_t pair(uint32_t lo, uint32_t hi) { return lo | (static_cast<uint64_t>(hi) << 32); }

// The products of 32 signed weights (magnitude m negated where its mask is set: (m ^ mask) - mask;
// the magnitudes are at most 62, so they fit in 8 bits either way) with 32 activation codes, in 16
// bits (|product| <= 62 * 127).
inline void signed_products(const Groups& g, const int8_t* a, int16_t* p) {
  for (int j = 0; j < 32; ++j) {
    const auto w = static_cast<int8_t>((g.magnitude[j] ^ g.negate[j]) - g.negate[j]);
    p[j] = static_cast<int16_t>(w * a[j]);
  }
}

// The products of 32 weights in {-1, 0, 1} (iq1s_grid's bytes) with 32 activation codes.
inline void products(const int8_t* w, const int8_t* a, int16_t* p) {
  for (int j = 0; j < 32; ++j) p[j] = static_cast<int16_t>(w[j] * a[j]);
}

// The sum of 32 products, and of their first 16 and last 16 (one loop over all 32: GCC
// vectorises it, where it unrolls a loop of 16 and then sums one element at a time).
inline int32_t total(const int16_t* p) {
  int32_t s = 0;
  for (int j = 0; j < 32; ++j) s += p[j];
  return s;
}

struct Halves {
  int32_t low, high;
};

inline Halves halves(const int16_t* p) {
  int32_t all = 0, high = 0;
  for (int j = 0; j < 32; ++j) {
    all += p[j];
    high += j >= 16 ? p[j] : 0;
  }
  return {all - high, high};
}

// ggml_vec_dot_iq2_xxs_q8_K_generic. Per 32 elements: four bytes index iq2xxs_grid; the next word
// holds four 7-bit sign codes and the level in its top 4 bits.
GAUNTLET_LATTICE_CLONES float dot_iq2_xxs(const uint8_t* row, const int8_t* q, const float* d,
                                          const int16_t*, uint64_t n) {
  const uint64_t blocks = n / 256;
  float sum = 0;
  for (uint64_t b = 0; b < blocks; ++b, row += 66) {
    int32_t bsum = 0;
    for (int ib = 0; ib < 8; ++ib, q += 32) {
      const uint8_t* words = row + 2 + 8 * ib;
      const uint32_t signs_and_level = u32_at(words + 4);
      Groups g;
      for (int l = 0; l < 4; ++l) {
        g.set(l, iq::iq2xxs_grid[words[l]], iq::sign_byte(signs_and_level >> (7 * l)));
      }
      int16_t p[32];
      signed_products(g, q, p);
      bsum += total(p) * static_cast<int32_t>(2 * (signs_and_level >> 28) + 1);
    }
    sum += f16_at(row) * d[b] * static_cast<float>(bsum);
  }
  return 0.125f * sum;
}

// ggml_vec_dot_iq2_xs_q8_K_generic. Each u16 is a 9-bit index into iq2xs_grid and a 7-bit sign
// code; scales[ib] has the levels of the two halves of 32 elements.
GAUNTLET_LATTICE_CLONES float dot_iq2_xs(const uint8_t* row, const int8_t* q, const float* d,
                                         const int16_t*, uint64_t n) {
  const uint64_t blocks = n / 256;
  float sum = 0;
  for (uint64_t b = 0; b < blocks; ++b, row += 74) {
    int32_t bsum = 0;
    for (int ib = 0; ib < 8; ++ib, q += 32) {
      Groups g;
      for (int l = 0; l < 4; ++l) {
        const uint16_t code = u16_at(row + 2 + 2 * (4 * ib + l));
        g.set(l, iq::iq2xs_grid[code & 511], iq::sign_byte(code >> 9));
      }
      const uint8_t levels = row[66 + ib];
      int16_t p[32];
      signed_products(g, q, p);
      const Halves h = halves(p);
      bsum += h.low * (2 * (levels & 0xf) + 1) + h.high * (2 * (levels >> 4) + 1);
    }
    sum += f16_at(row) * d[b] * static_cast<float>(bsum);
  }
  return 0.125f * sum;
}

// ggml_vec_dot_iq2_s_q8_K_generic. Group 4ib + l's 10-bit index into iq2s_grid is qs[4ib + l] and
// two bits of qh[ib]; its signs are the byte qs[32 + 4ib + l]; the levels as iq2_xs.
GAUNTLET_LATTICE_CLONES float dot_iq2_s(const uint8_t* row, const int8_t* q, const float* d,
                                        const int16_t*, uint64_t n) {
  const uint64_t blocks = n / 256;
  float sum = 0;
  for (uint64_t b = 0; b < blocks; ++b, row += 82) {
    const uint8_t* qs = row + 2;
    const uint8_t* qh = row + 66;
    int32_t bsum = 0;
    for (int ib = 0; ib < 8; ++ib, q += 32) {
      Groups g;
      for (int l = 0; l < 4; ++l) {
        const uint32_t index =
            qs[4 * ib + l] | ((static_cast<uint32_t>(qh[ib]) << (8 - 2 * l)) & 0x300);
        g.set(l, iq::iq2s_grid[index], qs[32 + 4 * ib + l]);
      }
      const uint8_t levels = row[74 + ib];
      int16_t p[32];
      signed_products(g, q, p);
      const Halves h = halves(p);
      bsum += h.low * (2 * (levels & 0xf) + 1) + h.high * (2 * (levels >> 4) + 1);
    }
    sum += f16_at(row) * d[b] * static_cast<float>(bsum);
  }
  return 0.125f * sum;
}

// ggml_vec_dot_iq3_xxs_q8_K_generic. qs[0..63] index iq3xxs_grid, one byte per 4 elements; then
// per 32 elements a word of four 7-bit sign codes and the level.
GAUNTLET_LATTICE_CLONES float dot_iq3_xxs(const uint8_t* row, const int8_t* q, const float* d,
                                          const int16_t*, uint64_t n) {
  const uint64_t blocks = n / 256;
  float sum = 0;
  for (uint64_t b = 0; b < blocks; ++b, row += 98) {
    const uint8_t* qs = row + 2;
    int32_t bsum = 0;
    for (int ib = 0; ib < 8; ++ib, q += 32) {
      const uint32_t signs_and_level = u32_at(qs + 64 + 4 * ib);
      Groups g;
      for (int l = 0; l < 4; ++l) {
        const uint8_t* idx = qs + 8 * ib + 2 * l;
        g.set(l, pair(iq::iq3xxs_grid[idx[0]], iq::iq3xxs_grid[idx[1]]),
              iq::sign_byte(signs_and_level >> (7 * l)));
      }
      int16_t p[32];
      signed_products(g, q, p);
      bsum += total(p) * static_cast<int32_t>(2 * (signs_and_level >> 28) + 1);
    }
    sum += f16_at(row) * d[b] * static_cast<float>(bsum);
  }
  return 0.25f * sum;
}

// ggml_vec_dot_iq3_s_q8_K_generic. Group k's 9-bit index into iq3s_grid is qs[k] and a bit of
// qh[k / 8]; 8 elements take their signs from one byte; a nibble of scales is the level of 32.
GAUNTLET_LATTICE_CLONES float dot_iq3_s(const uint8_t* row, const int8_t* q, const float* d,
                                        const int16_t*, uint64_t n) {
  const uint64_t blocks = n / 256;
  float sum = 0;
  for (uint64_t b = 0; b < blocks; ++b, row += 110) {
    const uint8_t* qs = row + 2;
    const uint8_t* qh = row + 66;
    const uint8_t* signs = row + 74;
    const uint8_t* scales = row + 106;
    int32_t bsum = 0;
    for (int ib = 0; ib < 8; ++ib, q += 32) {
      const uint32_t high = qh[ib];
      Groups g;
      for (int l = 0; l < 4; ++l) {
        const uint8_t* idx = qs + 8 * ib + 2 * l;
        const uint32_t lo = idx[0] | ((high << (8 - 2 * l)) & 256);
        const uint32_t hi = idx[1] | ((high << (7 - 2 * l)) & 256);
        g.set(l, pair(iq::iq3s_grid[lo], iq::iq3s_grid[hi]), signs[4 * ib + l]);
      }
      const uint32_t level = (scales[ib / 2] >> (4 * (ib % 2))) & 0xf;
      int16_t p[32];
      signed_products(g, q, p);
      bsum += total(p) * static_cast<int32_t>(2 * level + 1);
    }
    sum += f16_at(row) * d[b] * static_cast<float>(bsum);
  }
  return sum;
}

// ggml_vec_dot_iq1_s_q8_K_generic. Group 4ib + l's 11-bit index into iq1s_grid (values -1, 0, 1)
// is qs[4ib + l] and 3 bits of qh[ib]; qh[ib]'s bits 12..14 are the level of 32 elements and its
// top bit the sign of their delta, which comes in through the activations' sums per 16.
GAUNTLET_LATTICE_CLONES float dot_iq1_s(const uint8_t* row, const int8_t* q, const float* d,
                                        const int16_t* sums, uint64_t n) {
  const uint64_t blocks = n / 256;
  float sum = 0;
  for (uint64_t b = 0; b < blocks; ++b, row += 50, sums += 16) {
    const uint8_t* qs = row + 2;
    int32_t sumi = 0, sumi_delta = 0;
    for (int ib = 0; ib < 8; ++ib, q += 32) {
      const uint32_t qh = u16_at(row + 34 + 2 * ib);
      int8_t w[32];
      for (int l = 0; l < 4; ++l) {
        std::memcpy(w + 8 * l, &iq::iq1s_grid[qs[4 * ib + l] | (((qh >> (3 * l)) & 7) << 8)], 8);
      }
      const auto level = static_cast<int32_t>(2 * ((qh >> 12) & 7) + 1);
      const int32_t delta = qh & 0x8000 ? -1 : 1;
      int16_t p[32];
      products(w, q, p);
      sumi += level * total(p);
      sumi_delta += level * delta * (sums[2 * ib] + sums[2 * ib + 1]);
    }
    sum += f16_at(row) * d[b] *
           (static_cast<float>(sumi) + iq::kIq1Delta * static_cast<float>(sumi_delta));
  }
  return sum;
}

// ggml_vec_dot_iq1_m_q8_K_generic. Group 4ib + l's index is qs[4ib + l] and the low 3 bits of a
// nibble of qh, whose top bit is that group's delta sign; the four u16 of scales hold 3-bit levels
// per 16 and, in their top nibbles, the f16 scale. ggml sums the grid products (sumi1) and the
// delta-signed codes (sumi2) apart and takes sumi1 + IQ1M_DELTA * sumi2; here the weights are
// 8 * (grid value + delta) in {-9, -7, -1, 1, 7, 9}, one sum 8 * sumi1 + sumi2, times 1/8: the same
// float, as both sums stay far below 2^24 (exact in a float, and so is their eighth).
GAUNTLET_LATTICE_CLONES float dot_iq1_m(const uint8_t* row, const int8_t* q, const float* d,
                                        const int16_t*, uint64_t n) {
  const uint64_t blocks = n / 256;
  float sum = 0;
  for (uint64_t b = 0; b < blocks; ++b, row += 56) {
    const uint8_t* qs = row;
    const uint8_t* qh = row + 32;
    uint16_t sc[4];
    std::memcpy(sc, row + 48, 8);
    const auto scale_bits = static_cast<uint16_t>((sc[0] >> 12) | ((sc[1] >> 8) & 0x00f0) |
                                                  ((sc[2] >> 4) & 0x0f00) | (sc[3] & 0xf000));
    int32_t eighths = 0;  // 8 * sumi1 + sumi2 of ggml's function
    for (int ib = 0; ib < 8; ++ib, q += 32) {
      int8_t w[32];
      const uint32_t nibbles = qh[2 * ib] | (static_cast<uint32_t>(qh[2 * ib + 1]) << 8);
      for (int l = 0; l < 4; ++l) {
        const uint32_t index = qs[4 * ib + l] | (((nibbles >> (4 * l)) & 7) << 8);
        std::memcpy(w + 8 * l, &iq::iq1s_grid[index], 8);
      }
      const uint32_t word = sc[ib / 2] >> (6 * (ib % 2));
      const auto level1 = static_cast<int32_t>(2 * (word & 7) + 1);
      const auto level2 = static_cast<int32_t>(2 * ((word >> 3) & 7) + 1);
      // 8 * (grid value + delta): group l's delta is -1 where the top bit of its nibble is set.
      int16_t p[32];
      for (int j = 0; j < 32; ++j) {
        const int32_t delta = 1 - 2 * static_cast<int32_t>((nibbles >> (4 * (j / 8) + 3)) & 1);
        p[j] = static_cast<int16_t>((8 * w[j] + delta) * q[j]);
      }
      const Halves h = halves(p);
      eighths += h.low * level1 + h.high * level2;
    }
    sum += kF16[scale_bits] * d[b] * (iq::kIq1Delta * static_cast<float>(eighths));
  }
  return sum;
}

// ggml_vec_dot_iq4_nl_q8_0_generic. Blocks of 32 {f16 d, u8 qs[16]}: the low nibbles of qs index
// kvalues_iq4nl for elements 0..15, the high ones for 16..31; against Q8_0 activations.
GAUNTLET_LATTICE_CLONES float dot_iq4_nl(const uint8_t* row, const int8_t* q, const float* d,
                                         const int16_t*, uint64_t n) {
  float sum = 0;
  for (uint64_t b = 0; b < n / 32; ++b, row += 18, q += 32) {
    int8_t w[32];
    for (int j = 0; j < 16; ++j) {
      w[j] = core::types::kIq4nlValues[row[2 + j] & 0xf];
      w[j + 16] = core::types::kIq4nlValues[row[2 + j] >> 4];
    }
    int16_t p[32];  // |product| <= 127 * 127
    products(w, q, p);
    sum += d[b] * f16_at(row) * static_cast<float>(total(p));
  }
  return sum;
}

// ggml_vec_dot_iq4_xs_q8_K_generic. Blocks of 256 {f16 d, u16 scales_h, u8 scales_l[4],
// u8 qs[128]}: sub-block ib's 6-bit level is a nibble of scales_l[ib / 2] and bits 2ib, 2ib + 1
// of scales_h (step d * (level - 32)); its 16 bytes of qs as iq4_nl's. Each sub-block's sum is
// scaled and added in float, as there.
GAUNTLET_LATTICE_CLONES float dot_iq4_xs(const uint8_t* row, const int8_t* q, const float* d,
                                         const int16_t*, uint64_t n) {
  float sum = 0;
  for (uint64_t b = 0; b < n / 256; ++b, row += 136) {
    const float d4d8 = f16_at(row) * d[b];
    const uint32_t high = u16_at(row + 2);
    for (int ib = 0; ib < 8; ++ib, q += 32) {
      const uint8_t* qs = row + 8 + 16 * ib;
      int8_t w[32];
      for (int j = 0; j < 16; ++j) {
        w[j] = core::types::kIq4nlValues[qs[j] & 0xf];
        w[j + 16] = core::types::kIq4nlValues[qs[j] >> 4];
      }
      int16_t p[32];
      products(w, q, p);
      const auto level = static_cast<int32_t>(((row[4 + ib / 2] >> (4 * (ib % 2))) & 0xf) |
                                              (((high >> (2 * ib)) & 3) << 4));
      sum += d4d8 * static_cast<float>(level - 32) * static_cast<float>(total(p));
    }
  }
  return sum;
}

// nvfp4's UE4M3 scales, halved (core's ue4m3_to_f32_half), one load each in the kernel.
const std::array<float, 256> kUe4m3Half = [] {
  std::array<float, 256> t{};
  for (uint32_t x = 0; x < 256; ++x) t[x] = core::types::ue4m3_to_f32_half(static_cast<uint8_t>(x));
  return t;
}();

// The E2M1 value doubled of a 4-bit code (kvalues_mxfp4) in byte arithmetic that vectorises, where
// the table is a lookup per element: magnitudes 0..3 as they are, 2 or 3 (bit 0) times 2 for codes
// 4 and 5, times 4 for 6 and 7; bit 3 the sign.
constexpr int8_t e2m1_doubled(uint8_t code) {
  const auto m = static_cast<uint8_t>(code & 7);
  const auto t = static_cast<uint8_t>(2 + (m & 1));
  const auto big = static_cast<uint8_t>(m >= 6 ? t << 2 : t << 1);
  const auto v = static_cast<uint8_t>(m < 4 ? m : big);
  const auto neg = static_cast<uint8_t>(-(code >> 3));
  return static_cast<int8_t>((v ^ neg) - neg);
}

constexpr bool e2m1_matches_core() {
  for (uint8_t c = 0; c < 16; ++c) {
    if (e2m1_doubled(c) != core::types::kMxfp4Values[c]) return false;
  }
  return true;
}
static_assert(e2m1_matches_core(), "e2m1_doubled is kvalues_mxfp4");

// ggml_vec_dot_nvfp4_q8_0 of llama.cpp's x86 builds (arch/x86/quants.c, its AVX2 path, which every
// x86 build from AVX2 up takes). Blocks of 64 {u8 d[4], u8 qs[32]}: four sub-blocks of 16, each
// with a UE4M3 scale d[s] and its codes in qs[8s .. 8s + 7] (element 16s + j in the low nibble of
// byte 8s + j, 16s + 8 + j in the high one) indexing the E2M1 values doubled (kvalues_mxfp4). Two
// sub-blocks are one Q8_0 block. Its float order, not the generic function's: eight lanes, lane l
// holding the integer sum of elements 4l .. 4l + 3 of each Q8_0 block, fused into the lane times
// its sub-block's scale (d[s] times the activations' scale), the lanes then added as hsum_float_8
// adds them (l + 4, then l + 2, then l + 1). The generic order put the cpu device 1.3e-4 (NMSE)
// from llama.cpp's logits on an all-nvfp4 file, where every other type is within 1e-13.
GAUNTLET_FMA_CLONES float dot_nvfp4(const uint8_t* row, const int8_t* q, const float* d,
                                    const int16_t*, uint64_t n) {
  float lanes[8] = {};
  for (uint64_t b = 0; b < n / 64; ++b, row += 36) {
    for (int k = 0; k < 2; ++k, q += 32) {
      const uint8_t* qs = row + 4 + 16 * k;
      uint8_t low[16], high[16], codes[32];
      for (int j = 0; j < 16; ++j) {
        low[j] = qs[j] & 0xf;
        high[j] = qs[j] >> 4;
      }
      for (int h = 0; h < 2; ++h) {
        std::memcpy(codes + 16 * h, low + 8 * h, 8);
        std::memcpy(codes + 16 * h + 8, high + 8 * h, 8);
      }
      int8_t w[32];
      for (int j = 0; j < 32; ++j) w[j] = e2m1_doubled(codes[j]);
      int16_t p[32];
      products(w, q, p);
      const float dy = d[2 * b + k];
      const float scale[2] = {kUe4m3Half[row[2 * k]] * dy, kUe4m3Half[row[2 * k + 1]] * dy};
      for (int l = 0; l < 8; ++l) {
        const int32_t four = p[4 * l] + p[4 * l + 1] + p[4 * l + 2] + p[4 * l + 3];
        lanes[l] = std::fma(scale[l / 4], static_cast<float>(four), lanes[l]);
      }
    }
  }
  for (int l = 0; l < 4; ++l) lanes[l] = lanes[l + 4] + lanes[l];
  for (int l = 0; l < 2; ++l) lanes[l] += lanes[l + 2];
  return lanes[0] + lanes[1];
}

// ggml_vec_dot_q1_0_q8_0_generic. Blocks of 128 {f16 d, u8 qs[16]}: element j is +1 where bit
// j % 8 of qs[j / 8] is set, else -1 (kNegate's byte masks: (mask & 2) - 1); four Q8_0 blocks,
// each sum times its activation scale added in float, the total times d, as there.
GAUNTLET_LATTICE_CLONES float dot_q1_0(const uint8_t* row, const int8_t* q, const float* d,
                                       const int16_t*, uint64_t n) {
  float sum = 0;
  for (uint64_t b = 0; b < n / 128; ++b, row += 18) {
    float sumi = 0;
    for (int k = 0; k < 4; ++k, q += 32) {
      const uint8_t* bits = row + 2 + 4 * k;
      uint8_t set[32];
      for (int l = 0; l < 4; ++l) std::memcpy(set + 8 * l, &kNegate[bits[l]], 8);
      int8_t w[32];
      for (int j = 0; j < 32; ++j) w[j] = static_cast<int8_t>((set[j] & 2) - 1);
      int16_t p[32];
      products(w, q, p);
      sumi += d[4 * b + k] * static_cast<float>(total(p));
    }
    sum += f16_at(row) * sumi;
  }
  return sum;
}

// A byte of q2_0 codes as its four weights (code - 1), byte j the element at bits 2j.
constexpr std::array<uint32_t, 256> kQ2Weights = [] {
  std::array<uint32_t, 256> t{};
  for (uint32_t v = 0; v < 256; ++v) {
    for (uint32_t j = 0; j < 4; ++j) {
      t[v] |= static_cast<uint32_t>(static_cast<uint8_t>(((v >> (2 * j)) & 3) - 1)) << (8 * j);
    }
  }
  return t;
}();

// ggml_vec_dot_q2_0_q8_0_generic. Blocks of 64 {f16 d, u8 qs[16]}: element j is the 2-bit code at
// bits 2 (j % 4) of qs[j / 4], less 1 (-1, 0, 1, 2); two Q8_0 blocks, summed as q1_0's.
GAUNTLET_LATTICE_CLONES float dot_q2_0(const uint8_t* row, const int8_t* q, const float* d,
                                       const int16_t*, uint64_t n) {
  float sum = 0;
  for (uint64_t b = 0; b < n / 64; ++b, row += 18) {
    float sumi = 0;
    for (int k = 0; k < 2; ++k, q += 32) {
      const uint8_t* qs = row + 2 + 8 * k;
      int8_t w[32];
      for (int l = 0; l < 8; ++l) std::memcpy(w + 4 * l, &kQ2Weights[qs[l]], 4);
      int16_t p[32];
      products(w, q, p);
      sumi += d[2 * b + k] * static_cast<float>(total(p));
    }
    sum += f16_at(row) * sumi;
  }
  return sum;
}

constexpr uint32_t kPow3[4] = {1, 3, 9, 27};

// Trit l of each of `count` bytes of tq1_0, less 1 (ggml's ((uint8_t)(byte * 3^l) * 3) >> 8).
inline void trits(const uint8_t* bytes, uint32_t pow3, int count, int8_t* w) {
  for (int m = 0; m < count; ++m) {
    const auto shifted = static_cast<uint8_t>(bytes[m] * pow3);
    w[m] = static_cast<int8_t>(((static_cast<uint16_t>(shifted) * 3) >> 8) - 1);
  }
}

// ggml_vec_dot_tq1_0_q8_K_generic. Blocks of 256 {u8 qs[48], u8 qh[4], f16 d}: trit l of qs[m]
// is element 32l + m (m < 32), of qs[32 + m] element 160 + 16l + m, of qh[m] element 240 + 4l + m
// (l < 4); one integer sum per block, times d and the activations' scale.
GAUNTLET_LATTICE_CLONES float dot_tq1_0(const uint8_t* row, const int8_t* q, const float* d,
                                        const int16_t*, uint64_t n) {
  float sum = 0;
  for (uint64_t b = 0; b < n / 256; ++b, row += 54, q += 256) {
    int8_t w[256];
    uint32_t pow3 = 1;
    for (int l = 0; l < 5; ++l, pow3 *= 3) {
      int8_t t[48];
      trits(row, pow3, 48, t);
      std::memcpy(w + 32 * l, t, 32);
      std::memcpy(w + 160 + 16 * l, t + 32, 16);
    }
    int8_t h[16];  // qh's trits l < 4, element 240 + 4l + m at h[4l + m]
    for (int i = 0; i < 16; ++i) trits(row + 48 + i % 4, kPow3[i / 4], 1, h + i);
    std::memcpy(w + 240, h, 16);
    int32_t sumi = 0;
    for (int c = 0; c < 8; ++c) {
      int16_t p[32];
      products(w + 32 * c, q + 32 * c, p);
      sumi += total(p);
    }
    sum += static_cast<float>(sumi) * (f16_at(row + 52) * d[b]);
  }
  return sum;
}

// ggml_vec_dot_tq2_0_q8_K_generic. Blocks of 256 {u8 qs[64], f16 d}: element 128h + 32l + m is
// bits 2l, 2l + 1 of qs[32h + m], less 1; one integer sum per block, as tq1_0's.
GAUNTLET_LATTICE_CLONES float dot_tq2_0(const uint8_t* row, const int8_t* q, const float* d,
                                        const int16_t*, uint64_t n) {
  float sum = 0;
  for (uint64_t b = 0; b < n / 256; ++b, row += 66) {
    int32_t sumi = 0;
    for (int c = 0; c < 8; ++c, q += 32) {
      const uint8_t* qs = row + 32 * (c / 4);
      const int shift = 2 * (c % 4);
      int8_t w[32];
      for (int m = 0; m < 32; ++m) w[m] = static_cast<int8_t>(((qs[m] >> shift) & 3) - 1);
      int16_t p[32];
      products(w, q, p);
      sumi += total(p);
    }
    sum += static_cast<float>(sumi) * (d[b] * f16_at(row + 64));
  }
  return sum;
}

// One line per type.
constexpr LatticeKernel kKernels[] = {
    {core::TensorType::iq2_xxs, ActKind::q8_K, dot_iq2_xxs},
    {core::TensorType::iq2_xs, ActKind::q8_K, dot_iq2_xs},
    {core::TensorType::iq2_s, ActKind::q8_K, dot_iq2_s},
    {core::TensorType::iq3_xxs, ActKind::q8_K, dot_iq3_xxs},
    {core::TensorType::iq3_s, ActKind::q8_K, dot_iq3_s},
    {core::TensorType::iq1_s, ActKind::q8_K, dot_iq1_s},
    {core::TensorType::iq1_m, ActKind::q8_K, dot_iq1_m},
    {core::TensorType::iq4_nl, ActKind::q8_0, dot_iq4_nl},
    {core::TensorType::iq4_xs, ActKind::q8_K, dot_iq4_xs},
    {core::TensorType::nvfp4, ActKind::q8_0, dot_nvfp4},
    {core::TensorType::q1_0, ActKind::q8_0, dot_q1_0},
    {core::TensorType::q2_0, ActKind::q8_0, dot_q2_0},
    {core::TensorType::tq1_0, ActKind::q8_K, dot_tq1_0},
    {core::TensorType::tq2_0, ActKind::q8_K, dot_tq2_0},
};

}  // namespace

const LatticeKernel* lattice_kernel(core::TensorType type) {
  for (const auto& k : kKernels) {
    if (k.type == type) return &k;
  }
  return nullptr;
}

float lattice_row_dot(core::TensorType type, const uint8_t* row, const QuantizedActs& acts,
                      size_t t) {
  return lattice_kernel(type)->dot(row, acts.codes(t), acts.scale(t), acts.sum(t), acts.n);
}

void lattice_rows(core::TensorType type, const std::byte* w, uint64_t row_bytes, uint64_t r0,
                  uint64_t r1, const QuantizedActs& acts, float* out, uint64_t out_stride) {
  const LatticeDot dot = lattice_kernel(type)->dot;
  for (uint64_t r = r0; r < r1; ++r) {
    const auto* row = reinterpret_cast<const uint8_t*>(w + r * row_bytes);
    for (size_t t = 0; t < acts.tokens; ++t) {
      out[t * out_stride + r] = dot(row, acts.codes(t), acts.scale(t), acts.sum(t), acts.n);
    }
  }
}

}  // namespace gauntlet::engine::cpu
