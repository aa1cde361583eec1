// The cpu device's kernels for rows in their file's layout (interleaved rows:
// interleaved_kernels.cpp). Highway compiles this file once per instruction set (foreach_target.h)
// and picks the best one at run time (HWY_DYNAMIC_DISPATCH). Vectors are capped at 32 bytes, one
// q8_0 block. The integer pairs (dot_pairs-inl.h) follow llama.cpp's AVX2 kernels
// (ggml-cpu/arch/x86/quants.c): unsigned weight codes times signed activation codes summed in pairs
// (maddubs), the pairs times a sub-block's scale summed into 32 bits (madd); a code's offset
// (q4_0's 8, q6_K's 32) and q4_K's minimum come off through the activations' block sums; mxfp4's
// codes look their values up in one byte shuffle.
#include "engine/cpu/dot_kernels.h"

#include <algorithm>
#include <cstring>

#include "core/types/nonlinear_values.h"
#include "engine/cpu/lattice_dots.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "engine/cpu/dot_kernels.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
// foreach_target.h must come first.
#include "engine/cpu/dot_pairs-inl.h"
#include "hwy/highway.h"

#ifndef GAUNTLET_ENGINE_CPU_DOT_SCALAR
#define GAUNTLET_ENGINE_CPU_DOT_SCALAR
namespace gauntlet::engine::cpu::scalar {

// The table itself, so that each lookup in the kernels is one load and no call.
inline const float* const kF16 = core::f16_table_data();

inline float f16(const uint8_t* p) {
  uint16_t bits;
  std::memcpy(&bits, p, 2);
  return kF16[bits];
}

// ggml-quants.c's get_scale_min_k4: eight 6-bit scales and minimums from 12 bytes.
inline void scale_min_k4(const uint8_t* q, uint8_t* sc, uint8_t* m) {
  for (int j = 0; j < 4; ++j) {
    sc[j] = q[j] & 63;
    m[j] = q[j + 4] & 63;
  }
  for (int j = 4; j < 8; ++j) {
    sc[j] = static_cast<uint8_t>((q[j + 4] & 0xF) | ((q[j - 4] >> 6) << 4));
    m[j] = static_cast<uint8_t>((q[j + 4] >> 4) | ((q[j] >> 6) << 4));
  }
}

// The same sums one element at a time, for Highway's scalar target (vectors of one lane).
inline float row_dot(core::TensorType type, const uint8_t* row, const QuantizedActs& acts,
                     size_t t) {
  const int8_t* a = acts.codes(t);
  const float* da = acts.scale(t);
  float sum = 0;
  if (type == core::TensorType::q8_0 || type == core::TensorType::q4_0) {
    const bool q8 = type == core::TensorType::q8_0;
    const uint64_t bytes = q8 ? 34 : 18;
    for (uint64_t b = 0; b < acts.n / 32; ++b) {
      const uint8_t* blk = row + b * bytes;
      int isum = 0;
      for (int j = 0; j < 32; ++j) {
        const int w = q8 ? static_cast<int8_t>(blk[2 + j])
                         : (j < 16 ? blk[2 + j] & 15 : blk[2 + j - 16] >> 4) - 8;
        isum += w * a[b * 32 + j];
      }
      sum += f16(blk) * da[b] * static_cast<float>(isum);
    }
  } else if (type == core::TensorType::mxfp4) {
    // llama.cpp's ggml_vec_dot_mxfp4_q8_0: kvalues_mxfp4 times the codes, the half E8M0 scale.
    for (uint64_t b = 0; b < acts.n / 32; ++b) {
      const uint8_t* blk = row + b * 17;
      int isum = 0;
      for (int j = 0; j < 32; ++j) {
        const int code = j < 16 ? blk[1 + j] & 15 : blk[1 + j - 16] >> 4;
        isum += core::types::kMxfp4Values[code] * a[b * 32 + j];
      }
      sum += core::types::e8m0_to_f32_half(blk[0]) * da[b] * static_cast<float>(isum);
    }
  } else if (type == core::TensorType::q4_K) {
    for (uint64_t b = 0; b < acts.n / 256; ++b) {
      const uint8_t* blk = row + b * 144;
      uint8_t sc[8], m[8];
      scale_min_k4(blk + 4, sc, m);
      int isum = 0, mins = 0;
      for (int j = 0; j < 4; ++j) {
        int lo = 0, hi = 0;
        for (int l = 0; l < 32; ++l) {
          lo += (blk[16 + 32 * j + l] & 15) * a[b * 256 + 64 * j + l];
          hi += (blk[16 + 32 * j + l] >> 4) * a[b * 256 + 64 * j + 32 + l];
        }
        isum += sc[2 * j] * lo + sc[2 * j + 1] * hi;
      }
      const int16_t* bs = acts.sum(t) + b * 16;
      for (int j = 0; j < 8; ++j) mins += m[j] * (bs[2 * j] + bs[2 * j + 1]);
      sum += f16(blk) * da[b] * static_cast<float>(isum) -
             f16(blk + 2) * da[b] * static_cast<float>(mins);
    }
  } else if (type == core::TensorType::q6_K) {
    for (uint64_t b = 0; b < acts.n / 256; ++b) {
      const uint8_t* blk = row + b * 210;
      const auto* sc = reinterpret_cast<const int8_t*>(blk + 192);
      int isum = 0;
      for (int e = 0; e < 256; ++e) {
        const int h = e / 128, g = (e % 128) / 32, l = e % 32;
        const uint8_t low = blk[64 * h + l + (g & 1) * 32];
        const uint8_t high = blk[128 + 32 * h + l];
        const int q = ((g < 2 ? low & 15 : low >> 4) | (((high >> (2 * g)) & 3) << 4)) - 32;
        isum += sc[e / 16] * q * a[b * 256 + e];
      }
      sum += f16(blk + 208) * da[b] * static_cast<float>(isum);
    }
  }
  return sum;
}

}  // namespace gauntlet::engine::cpu::scalar
#endif

HWY_BEFORE_NAMESPACE();
namespace gauntlet::engine::cpu {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

#if HWY_TARGET != HWY_SCALAR

HWY_INLINE float F16(const uint8_t* p) { return scalar::f16(p); }

// The i16 scales of kLanes codes that start at sub-block s of 16 (q6_K).
HWY_INLINE VI16 Scales16(const int8_t* s) {
  const D16 d16;
  if constexpr (kLanes == 32) {
    const hn::Half<D16> dh;
    return hn::Combine(d16, hn::Set(dh, s[1]), hn::Set(dh, s[0]));
  } else {
    return hn::Set(d16, s[0]);
  }
}

// The 16 activation sums of a Q8_K block (per 16) times 16 weights, as 32-bit lanes: the
// K-quants' offsets (q4_K's minimums, q6_K's 32) in vector arithmetic.
HWY_INLINE VI32 Dot16(const int16_t* sums, const int16_t* w) {
  const D16 d16;
  constexpr size_t kN = hn::MaxLanes(D16());
  VI32 r = Pairs16(hn::LoadU(d16, sums), hn::LoadU(d16, w));
  for (size_t p = kN; p < 16; p += kN) {
    r = hn::Add(r, Pairs16(hn::LoadU(d16, sums + p), hn::LoadU(d16, w + p)));
  }
  return r;
}

// The 32-element kernels (q8_0, q4_0, mxfp4): each block's signed weight codes (q4_0's less its 8,
// as llama.cpp's AVX2 ggml_vec_dot_q4_0_q8_0 takes them) against each token's, rows and tokens in a
// tile: each activation load serves every row and each weight load every token. A prompt's tiles
// are two rows by four tokens (eight accumulators and the codes in the 16 AVX2 registers); a
// single token's are four rows, so that four rows stream from memory at once.
template <class W>
struct K32 {
  static constexpr uint64_t kElems = 32, kBytes = W::kBytes;
  static constexpr size_t kRows = 4;
  template <size_t MR, size_t NT>
  static HWY_INLINE void Row(const uint8_t* const* rows, uint64_t nb, const Tokens& tk, float* out,
                             uint64_t stride) {
    const D8 d8;
    const DF df;
    constexpr size_t kParts = 32 / kLanes;
    VF acc[MR][NT];
    for (size_t m = 0; m < MR; ++m) {
      for (size_t t = 0; t < NT; ++t) acc[m][t] = hn::Zero(df);
    }
    for (uint64_t b = 0; b < nb; ++b) {
      VI8 w[MR][kParts];
      const uint8_t* blk[4];
      float dw[4];
      for (size_t m = 0; m < MR; ++m) {
        blk[m] = rows[m] + b * kBytes;
        W::Codes(blk[m] + W::kScaleBytes, w[m]);
      }
      W::Scales(blk, MR, dw);
      for (size_t t = 0; t < NT; ++t) {
        const float da = tk.d[t][b];
        for (size_t p = 0; p < kParts; ++p) {
          const VI8 a = hn::LoadU(d8, tk.q[t] + b * 32 + p * kLanes);
          const VI8 abs_a = hn::Abs(a);
          for (size_t m = 0; m < MR; ++m) {
            const VI32 sum = AddQuadsSigned(hn::Zero(D32()), a, abs_a, w[m][p]);
            acc[m][t] = hn::MulAdd(hn::Set(df, dw[m] * da), hn::ConvertTo(df, sum), acc[m][t]);
          }
        }
      }
    }
    for (size_t m = 0; m < MR; ++m) {
      for (size_t t = 0; t < NT; ++t) {
        out[t * stride + m] = hn::GetLane(hn::SumOfLanes(df, acc[m][t]));
      }
    }
  }
};

// The f16 scales at the start of n blocks (n at most 4), as floats.
HWY_INLINE void F16Scales(const uint8_t* const* blk, size_t n, float* out) {
  uint16_t bits[4] = {};
  for (size_t m = 0; m < n; ++m) std::memcpy(&bits[m], blk[m], 2);
  F16s(bits, out);
}

// q8_0's codes as they lie.
struct WQ8_0 {
  static constexpr uint64_t kBytes = 34, kScaleBytes = 2;
  static HWY_INLINE void Scales(const uint8_t* const* blk, size_t n, float* out) {
    F16Scales(blk, n, out);
  }
  static HWY_INLINE void Codes(const uint8_t* qs, VI8* w) {
    const D8 d8;
    for (size_t p = 0; p < 32 / kLanes; ++p) {
      w[p] = hn::LoadU(d8, reinterpret_cast<const int8_t*>(qs) + p * kLanes);
    }
  }
};

// q4_0's 32 codes (the low nibbles first) less 8.
struct WQ4_0 {
  static constexpr uint64_t kBytes = 18, kScaleBytes = 2;
  static HWY_INLINE void Scales(const uint8_t* const* blk, size_t n, float* out) {
    F16Scales(blk, n, out);
  }
  static HWY_INLINE void Codes(const uint8_t* qs, VI8* w) {
    const D8 d8;
    const DU8 du8;
    const VU8 low = hn::Set(du8, 0x0F);
    const VI8 eight = hn::Set(d8, 8);
    if constexpr (kLanes == 32) {
      const hn::Half<DU8> dh;
      const auto v = hn::LoadU(dh, qs);
      w[0] =
          hn::Sub(hn::BitCast(d8, hn::And(hn::Combine(du8, hn::ShiftRight<4>(v), v), low)), eight);
    } else {
      const VU8 v = hn::LoadU(du8, qs);
      w[0] = hn::Sub(hn::BitCast(d8, hn::And(v, low)), eight);
      w[1] = hn::Sub(hn::BitCast(d8, hn::ShiftRight<4>(v)), eight);
    }
  }
};

// mxfp4's 32 values (the low nibbles first) as signed bytes; its scale the half E8M0
// (ggml_e8m0_to_fp32_half), so that the values times it are the block's.
struct WMxfp4 {
  static constexpr uint64_t kBytes = 17, kScaleBytes = 1;
  static HWY_INLINE void Scales(const uint8_t* const* blk, size_t n, float* out) {
    for (size_t m = 0; m < n; ++m) out[m] = core::types::e8m0_to_f32_half(blk[m][0]);
  }
  static HWY_INLINE void Codes(const uint8_t* qs, VI8* w) {
    const D8 d8;
    const DU8 du8;
    const VU8 low = hn::Set(du8, 0x0F);
    const VI8 table = Mxfp4Table();
    if constexpr (kLanes == 32) {
      const hn::Half<DU8> dh;
      const auto v = hn::LoadU(dh, qs);
      w[0] = hn::TableLookupBytes(
          table, hn::BitCast(d8, hn::And(hn::Combine(du8, hn::ShiftRight<4>(v), v), low)));
    } else {
      const VU8 v = hn::LoadU(du8, qs);
      w[0] = hn::TableLookupBytes(table, hn::BitCast(d8, hn::And(v, low)));
      w[1] = hn::TableLookupBytes(table, hn::BitCast(d8, hn::ShiftRight<4>(v)));
    }
  }
};

using KQ8_0 = K32<WQ8_0>;
using KQ4_0 = K32<WQ4_0>;
using KMxfp4 = K32<WMxfp4>;

// Lanes that sum to q4_K's minimums times the activations' sums per sub-block of 32 (two sums
// of 16 each): with eight 32-bit lanes, lane k is minimum k times its two sums; narrower vectors
// take Dot16 with each minimum repeated twice (the same sums).
HWY_INLINE VI32 MinsDot(const uint8_t* m, const int16_t* sums) {
  const D16 d16;
  const D32 d32;
  if constexpr (hn::MaxLanes(D32()) == 8) {
    const VI32 mins = hn::PromoteTo(d32, hn::LoadU(hn::Rebind<uint8_t, D32>(), m));
    return mins * Pairs16(hn::LoadU(d16, sums), hn::Set(d16, 1));
  } else {
    int16_t m16[16];
    for (int j = 0; j < 16; ++j) m16[j] = m[j / 2];
    return Dot16(sums, m16);
  }
}

// ggml-quants.c's get_scale_min_k4 for all eight sub-blocks at once, in 32-bit words as llama.cpp's
// AVX2 ggml_vec_dot_q4_K_q8_K takes them: the scales in bytes 0-7, the minimums in 8-15.
HWY_INLINE void ScalesMinsK4(const uint8_t* packed, uint8_t* sc) {
  uint32_t u[4];
  std::memcpy(u, packed, 12);
  u[3] = ((u[2] >> 4) & 0x0f0f0f0f) | (((u[1] >> 6) & 0x03030303) << 4);
  const uint32_t mins_lo = u[1] & 0x3f3f3f3f;
  u[1] = (u[2] & 0x0f0f0f0f) | (((u[0] >> 6) & 0x03030303) << 4);
  u[2] = mins_lo;
  u[0] &= 0x3f3f3f3f;
  std::memcpy(sc, u, 16);
}

// A prompt's tiles are two rows by up to four tokens: each activation load serves both rows.
struct KQ4_K {
  static constexpr uint64_t kElems = 256, kBytes = 144;
  static constexpr size_t kRows = 2;
  template <size_t MR, size_t NT>
  static HWY_INLINE void Row(const uint8_t* const* rows, uint64_t nb, const Tokens& tk, float* out,
                             uint64_t stride) {
    const D8 d8;
    const DU8 du8;
    const D16 d16;
    const D32 d32;
    const DF df;
    const VU8 low = hn::Set(du8, 0x0F);
    VF acc[MR][NT];
    for (size_t m = 0; m < MR; ++m) {
      for (size_t t = 0; t < NT; ++t) acc[m][t] = hn::Zero(df);
    }
    for (uint64_t b = 0; b < nb; ++b) {
      uint8_t sc[MR][16];
      for (size_t m = 0; m < MR; ++m) ScalesMinsK4(rows[m] + b * kBytes + 4, sc[m]);
      VI32 sum[MR][NT];
      for (size_t m = 0; m < MR; ++m) {
        for (size_t t = 0; t < NT; ++t) sum[m][t] = hn::Zero(d32);
      }
      for (int j = 0; j < 4; ++j) {
        for (size_t k = 0; k < 32; k += kLanes) {
          VU8 lo[MR], hi[MR];
          for (size_t m = 0; m < MR; ++m) {
            const VU8 v = hn::LoadU(du8, rows[m] + b * kBytes + 16 + 32 * j + k);
            lo[m] = hn::And(v, low);
            hi[m] = hn::ShiftRight<4>(v);
          }
          for (size_t t = 0; t < NT; ++t) {
            const int8_t* a = tk.q[t] + b * 256 + 64 * j + k;
            const VI8 a_lo = hn::LoadU(d8, a), a_hi = hn::LoadU(d8, a + 32);
            for (size_t m = 0; m < MR; ++m) {
              sum[m][t] =
                  hn::Add(sum[m][t],
                          hn::Add(Pairs16(PairsU8(lo[m], a_lo), hn::Set(d16, sc[m][2 * j])),
                                  Pairs16(PairsU8(hi[m], a_hi), hn::Set(d16, sc[m][2 * j + 1]))));
            }
          }
        }
      }
      for (size_t m = 0; m < MR; ++m) {
        const uint8_t* blk = rows[m] + b * kBytes;
        const float d = F16(blk), dmin = F16(blk + 2);
        for (size_t t = 0; t < NT; ++t) {
          const float da = tk.d[t][b];
          acc[m][t] = hn::MulAdd(hn::Set(df, d * da), hn::ConvertTo(df, sum[m][t]), acc[m][t]);
          acc[m][t] =
              hn::MulAdd(hn::Set(df, -dmin * da),
                         hn::ConvertTo(df, MinsDot(sc[m] + 8, tk.s[t] + b * 16)), acc[m][t]);
        }
      }
    }
    for (size_t m = 0; m < MR; ++m) {
      for (size_t t = 0; t < NT; ++t) {
        out[t * stride + m] = hn::GetLane(hn::SumOfLanes(df, acc[m][t]));
      }
    }
  }
};

// q6_K's sixteen scales times the activations' sums per 16, as 32-bit lanes that sum to it.
HWY_INLINE VI32 ScalesDot(const int8_t* sc, const int16_t* sums) {
  const D16 d16;
  if constexpr (hn::MaxLanes(D16()) == 16) {
    return Pairs16(hn::LoadU(d16, sums),
                   hn::PromoteTo(d16, hn::LoadU(hn::Rebind<int8_t, D16>(), sc)));
  } else {
    int16_t sc16[16];
    for (int j = 0; j < 16; ++j) sc16[j] = sc[j];
    return Dot16(sums, sc16);
  }
}

struct KQ6_K {
  static constexpr uint64_t kElems = 256, kBytes = 210;
  static constexpr size_t kRows = 1;
  template <size_t MR, size_t NT>
  static HWY_INLINE void Row(const uint8_t* const* rows, uint64_t nb, const Tokens& tk, float* out,
                             uint64_t stride) {
    const D8 d8;
    const DU8 du8;
    const D32 d32;
    const DF df;
    const VU8 m4 = hn::Set(du8, 0x0F), m2 = hn::Set(du8, 0x03);
    VF acc[NT];
    for (size_t t = 0; t < NT; ++t) acc[t] = hn::Zero(df);
    for (uint64_t b = 0; b < nb; ++b) {
      const uint8_t* blk = rows[0] + b * kBytes;
      const auto* sc = reinterpret_cast<const int8_t*>(blk + 192);
      VI32 sum[NT];
      for (size_t t = 0; t < NT; ++t) sum[t] = hn::Zero(d32);
      for (int h = 0; h < 2; ++h) {
        const uint8_t* ql = blk + 64 * h;
        const uint8_t* qh = blk + 128 + 32 * h;
        const int base = 128 * h;
        for (size_t k = 0; k < 32; k += kLanes) {
          const VU8 l0 = hn::LoadU(du8, ql + k), l1 = hn::LoadU(du8, ql + 32 + k);
          const VU8 hv = hn::LoadU(du8, qh + k);
          const VU8 c[4] = {
              hn::Or(hn::And(l0, m4), hn::ShiftLeft<4>(hn::And(hv, m2))),
              hn::Or(hn::And(l1, m4), hn::ShiftLeft<4>(hn::And(hn::ShiftRight<2>(hv), m2))),
              hn::Or(hn::ShiftRight<4>(l0), hn::ShiftLeft<4>(hn::And(hn::ShiftRight<4>(hv), m2))),
              hn::Or(hn::ShiftRight<4>(l1), hn::ShiftLeft<4>(hn::ShiftRight<6>(hv)))};
          for (int g = 0; g < 4; ++g) {
            const size_t e = base + 32 * g + k;  // the first element these codes hold
            const VI16 s = Scales16(sc + e / 16);
            for (size_t t = 0; t < NT; ++t) {
              sum[t] =
                  hn::Add(sum[t], Pairs16(PairsU8(c[g], hn::LoadU(d8, tk.q[t] + b * 256 + e)), s));
            }
          }
        }
      }
      const float d = F16(blk + 208);
      for (size_t t = 0; t < NT; ++t) {
        const float da = tk.d[t][b];
        acc[t] = hn::MulAdd(hn::Set(df, d * da), hn::ConvertTo(df, sum[t]), acc[t]);
        acc[t] = hn::MulAdd(hn::Set(df, -32 * d * da),
                            hn::ConvertTo(df, ScalesDot(sc, tk.s[t] + b * 16)), acc[t]);
      }
    }
    for (size_t t = 0; t < NT; ++t) {
      out[t * stride] = hn::GetLane(hn::SumOfLanes(df, acc[t]));
    }
  }
};

// MR rows of K against up to four tokens starting at t0.
template <class K, size_t MR>
HWY_INLINE void Tile(const uint8_t* const* rows, uint64_t nb, const QuantizedActs& acts, size_t t0,
                     size_t nt, float* out, uint64_t out_stride) {
  Tokens tk;  // only nt of them are read
  for (size_t t = 0; t < nt; ++t) {
    tk.q[t] = acts.codes(t0 + t);
    tk.d[t] = acts.scale(t0 + t);
    tk.s[t] = acts.sum(t0 + t);
  }
  switch (nt) {
    case 4:
      return K::template Row<MR, 4>(rows, nb, tk, out, out_stride);
    case 3:
      return K::template Row<MR, 3>(rows, nb, tk, out, out_stride);
    case 2:
      return K::template Row<MR, 2>(rows, nb, tk, out, out_stride);
    default:
      return K::template Row<MR, 1>(rows, nb, tk, out, out_stride);
  }
}

template <class K>
void Rows(const std::byte* w, uint64_t row_bytes, uint64_t r0, uint64_t r1,
          const QuantizedActs& acts, float* out, uint64_t out_stride) {
  const uint64_t nb = acts.n / K::kElems;
  auto row = [&](uint64_t r) { return reinterpret_cast<const uint8_t*>(w + r * row_bytes); };
  uint64_t r = r0;
  if constexpr (K::kRows == 4) {
    if (acts.tokens == 1) {
      Tokens tk{};
      tk.q[0] = acts.codes(0);
      tk.d[0] = acts.scale(0);
      tk.s[0] = acts.sum(0);
      for (; r + 4 <= r1; r += 4) {
        const uint8_t* rows[4] = {row(r), row(r + 1), row(r + 2), row(r + 3)};
        K::template Row<4, 1>(rows, nb, tk, out + r, out_stride);
      }
    }
  }
  for (size_t c0 = 0; c0 < acts.tokens && r < r1; c0 += kTokenChunk) {
    const size_t c1 = std::min(acts.tokens, c0 + kTokenChunk);
    for (uint64_t q = r; q < r1;) {
      const uint8_t* rows[2] = {row(q), row(q + 1)};
      bool two = false;
      // Two rows share each activation load of a prompt; a lone token streams one row at a time
      // (two rows side by side read q4_K's blocks a fifth slower, BM_CpuDot).
      if constexpr (K::kRows > 1) two = q + 1 < r1 && acts.tokens > 1;
      for (size_t t0 = c0; t0 < c1; t0 += 4) {
        const size_t nt = std::min<size_t>(4, c1 - t0);
        float* o = out + t0 * out_stride + q;
        if constexpr (K::kRows > 1) {
          if (two) {
            Tile<K, 2>(rows, nb, acts, t0, nt, o, out_stride);
            continue;
          }
        }
        Tile<K, 1>(rows, nb, acts, t0, nt, o, out_stride);
      }
      q += two ? 2 : 1;
    }
  }
}

#endif  // HWY_TARGET != HWY_SCALAR

void FastRows(core::TensorType type, const std::byte* w, uint64_t row_bytes, uint64_t r0,
              uint64_t r1, const QuantizedActs& acts, float* out, uint64_t out_stride) {
#if HWY_TARGET == HWY_SCALAR
  for (uint64_t r = r0; r < r1; ++r) {
    for (size_t t = 0; t < acts.tokens; ++t) {
      out[t * out_stride + r] =
          scalar::row_dot(type, reinterpret_cast<const uint8_t*>(w + r * row_bytes), acts, t);
    }
  }
#else
  switch (type) {
    case core::TensorType::q8_0:
      return Rows<KQ8_0>(w, row_bytes, r0, r1, acts, out, out_stride);
    case core::TensorType::q4_0:
      return Rows<KQ4_0>(w, row_bytes, r0, r1, acts, out, out_stride);
    case core::TensorType::mxfp4:
      return Rows<KMxfp4>(w, row_bytes, r0, r1, acts, out, out_stride);
    case core::TensorType::q4_K:
      return Rows<KQ4_K>(w, row_bytes, r0, r1, acts, out, out_stride);
    case core::TensorType::q6_K:
      return Rows<KQ6_K>(w, row_bytes, r0, r1, acts, out, out_stride);
    default:
      return;
  }
#endif
}

const char* TargetName() { return hwy::TargetName(HWY_TARGET); }

}  // namespace HWY_NAMESPACE
}  // namespace gauntlet::engine::cpu
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace gauntlet::engine::cpu {

HWY_EXPORT(FastRows);
HWY_EXPORT(TargetName);

std::optional<ActKind> fast_kernel_acts(core::TensorType type) {
  switch (type) {
    case core::TensorType::q8_0:
    case core::TensorType::q4_0:
    case core::TensorType::mxfp4:
      return ActKind::q8_0;
    case core::TensorType::q4_K:
    case core::TensorType::q6_K:
      return ActKind::q8_K;
    default:
      // The i-quants (lattice_dots.h) take what llama.cpp's CPU backend gives them.
      if (const LatticeKernel* k = lattice_kernel(type)) return k->acts;
      return std::nullopt;
  }
}

void fast_rows(core::TensorType type, const std::byte* w, uint64_t row_bytes, uint64_t r0,
               uint64_t r1, const QuantizedActs& acts, float* out, uint64_t out_stride) {
  if (lattice_kernel(type) != nullptr) {
    return lattice_rows(type, w, row_bytes, r0, r1, acts, out, out_stride);
  }
  HWY_DYNAMIC_DISPATCH(FastRows)(type, w, row_bytes, r0, r1, acts, out, out_stride);
}

const char* simd_target() { return HWY_DYNAMIC_DISPATCH(TargetName)(); }

}  // namespace gauntlet::engine::cpu
#endif
