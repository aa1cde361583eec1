// The cpu device's integer pair sums, shared by its kernel files (dot_kernels.cpp for the rows in
// their file's layout, interleaved_kernels.cpp for rows interleaved eight at a time): Highway's
// per-target header, included once per instruction set by each file's foreach_target.h pass. The
// pairs follow llama.cpp's AVX2 kernels (ggml-cpu/arch/x86/quants.c).
#if defined(GAUNTLET_ENGINE_CPU_DOT_PAIRS_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef GAUNTLET_ENGINE_CPU_DOT_PAIRS_INL_H_
#undef GAUNTLET_ENGINE_CPU_DOT_PAIRS_INL_H_
#else
#define GAUNTLET_ENGINE_CPU_DOT_PAIRS_INL_H_
#endif

#include <cstddef>
#include <cstdint>

#include "core/types/nonlinear_values.h"
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace gauntlet::engine::cpu {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

#if HWY_TARGET != HWY_SCALAR

using D8 = hn::CappedTag<int8_t, 32>;
using DU8 = hn::RebindToUnsigned<D8>;
using D16 = hn::Repartition<int16_t, D8>;
using DU16 = hn::RebindToUnsigned<D16>;
using D32 = hn::Repartition<int32_t, D8>;
using DF = hn::Repartition<float, D8>;
using VI8 = hn::Vec<D8>;
using VU8 = hn::Vec<DU8>;
using VI16 = hn::Vec<D16>;
using VI32 = hn::Vec<D32>;
using VF = hn::Vec<DF>;
constexpr size_t kLanes = hn::MaxLanes(D8());

// AVX2 and AVX-512 take llama.cpp's two instructions for what the generic form does in shifts
// (this header is read once per target, so the switch is set afresh each time).
#undef GAUNTLET_X86_PAIRS
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2
#define GAUNTLET_X86_PAIRS 1
#endif

// AVX-512 VNNI (Highway's AVX3_DL target) sums four byte products into a 32-bit lane in one
// instruction (vpdpbusd), where the others take maddubs then madd; llama.cpp's AVX512-VNNI
// builds do the same (ggml-cpu/arch/x86/quants.c, mul_sum_us8_pairs_float).
#undef GAUNTLET_X86_VNNI
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3_DL
#define GAUNTLET_X86_VNNI 1
#endif

#ifdef GAUNTLET_X86_VNNI
// acc + the sums of four byte products u * s per 32-bit lane (u unsigned, s signed): vpdpbusd in
// its EVEX encoding, written out. Highway 1.0.3's AVX3_DL target string enables AVX-VNNI (the
// VEX form of client cores) and not AVX512-VNNI, and GCC then wrote the intrinsic's 256-bit form
// as {vex} vpdpbusd, which Ice Lake and Zen 4 (AVX3_DL by Highway's detection, which asks for
// AVX512-VNNI, but without AVX-VNNI) cannot decode. Every AVX3_DL processor decodes the EVEX form.
HWY_INLINE __m256i DpbusdEvex(__m256i acc, __m256i u, __m256i s) {
  asm("%{evex%} vpdpbusd %2, %1, %0" : "+v"(acc) : "v"(u), "v"(s));
  return acc;
}
HWY_INLINE __m512i DpbusdEvex(__m512i acc, __m512i u, __m512i s) {
  asm("vpdpbusd %2, %1, %0" : "+v"(acc) : "v"(u), "v"(s));
  return acc;
}
#endif

// Lane k: u[2k] * s[2k] + u[2k + 1] * s[2k + 1], u unsigned codes below 64 (no lane saturates).
HWY_INLINE VI16 PairsU8(VU8 u, VI8 s) {
#ifdef GAUNTLET_X86_PAIRS
  return VI16{_mm256_maddubs_epi16(u.raw, s.raw)};
#else
  const D16 d16;
  const DU16 du16;
  const auto uw = hn::BitCast(du16, u);
  const VI16 ue = hn::BitCast(d16, hn::And(uw, hn::Set(du16, 0xFF)));
  const VI16 uo = hn::BitCast(d16, hn::ShiftRight<8>(uw));
  const VI16 sw = hn::BitCast(d16, s);
  return hn::Add(ue * hn::ShiftRight<8>(hn::ShiftLeft<8>(sw)), uo * hn::ShiftRight<8>(sw));
#endif
}

// As PairsU8 for two signed codes (llama.cpp's sign trick: |w| times a with w's sign).
HWY_INLINE VI16 PairsI8(VI8 w, VI8 a) {
#ifdef GAUNTLET_X86_PAIRS
  return VI16{_mm256_maddubs_epi16(_mm256_sign_epi8(w.raw, w.raw), _mm256_sign_epi8(a.raw, w.raw))};
#else
  const D16 d16;
  const VI16 ww = hn::BitCast(d16, w), aw = hn::BitCast(d16, a);
  return hn::Add(hn::ShiftRight<8>(hn::ShiftLeft<8>(ww)) * hn::ShiftRight<8>(hn::ShiftLeft<8>(aw)),
                 hn::ShiftRight<8>(ww) * hn::ShiftRight<8>(aw));
#endif
}

// Lane k of 32 bits: a[2k] * s[2k] + a[2k + 1] * s[2k + 1].
HWY_INLINE VI32 Pairs16(VI16 a, VI16 s) {
#ifdef GAUNTLET_X86_PAIRS
  return VI32{_mm256_madd_epi16(a.raw, s.raw)};
#else
  const D32 d32;
  const VI32 aw = hn::BitCast(d32, a), sw = hn::BitCast(d32, s);
  return hn::Add(
      hn::ShiftRight<16>(hn::ShiftLeft<16>(aw)) * hn::ShiftRight<16>(hn::ShiftLeft<16>(sw)),
      hn::ShiftRight<16>(aw) * hn::ShiftRight<16>(sw));
#endif
}

// Up to four tokens' rounded activations. Each kernel's Row<MR, NT> runs MR weight rows (kRows at
// most) against NT of them: per block, integer sums per token, then the block's float scales, and
// the offsets through the activations' block sums.
struct Tokens {
  const int8_t* q[4];
  const float* d[4];
  const int16_t* s[4];
};

// n (at most 4) f16 scales as floats in one conversion (F16C on AVX2), not a table lookup each.
HWY_INLINE void F16s(const uint16_t* bits, float* out) {
  const hn::CappedTag<float, 4> d4;
  const hn::Rebind<hwy::float16_t, decltype(d4)> dh;
  hn::StoreU(hn::PromoteTo(d4, hn::LoadU(dh, reinterpret_cast<const hwy::float16_t*>(bits))), d4,
             out);
}

// a . w over pairs for signed weight codes: on x86 |a| times w with a's sign (|a| is taken once
// per token and block and serves every row; llama.cpp's sign trick the other way round).
HWY_INLINE VI16 PairsAbs(VI8 w, VI8 a, VI8 abs_a) {
#ifdef GAUNTLET_X86_PAIRS
  return VI16{_mm256_maddubs_epi16(abs_a.raw, _mm256_sign_epi8(w.raw, a.raw))};
#else
  (void)abs_a;
  return PairsI8(w, a);
#endif
}

// acc + the sums of four products u * s per 32-bit lane (u unsigned, s signed). Without VNNI, the
// pairs' 16-bit sums must not saturate: |u * s| summed in pairs stays below 32768 for every code
// this file's kernels pass (at most 2 * 128 * 127).
HWY_INLINE VI32 AddQuads(VI32 acc, VU8 u, VI8 s) {
#ifdef GAUNTLET_X86_VNNI
  return VI32{DpbusdEvex(acc.raw, u.raw, s.raw)};
#else
  return hn::Add(acc, Pairs16(PairsU8(u, s), hn::Set(D16(), 1)));
#endif
}

// acc + the sums of four products w * a per 32-bit lane for signed w and a, through |w| and a
// with w's sign (abs_w = |w|, taken once and reused).
HWY_INLINE VI32 AddQuadsSigned(VI32 acc, VI8 w, VI8 abs_w, VI8 a) {
#ifdef GAUNTLET_X86_VNNI
  return VI32{DpbusdEvex(acc.raw, abs_w.raw, _mm256_sign_epi8(a.raw, w.raw))};
#else
  return hn::Add(acc, Pairs16(PairsAbs(a, w, abs_w), hn::Set(D16(), 1)));
#endif
}

// kvalues_mxfp4 (E2M1 doubled, -12..12) in every 16-byte block of a vector: the table the codes
// look up, one byte shuffle for all of them (llama.cpp's AVX2 ggml_vec_dot_mxfp4_q8_0).
HWY_INLINE VI8 Mxfp4Table() {
  const D8 d8;
  if constexpr (kLanes == 32) {
    const hn::Half<D8> dh;
    const auto t = hn::LoadU(dh, core::types::kMxfp4Values);
    return hn::Combine(d8, t, t);
  } else {
    return hn::LoadU(d8, core::types::kMxfp4Values);
  }
}

// Tokens in chunks that stay in cache while every row of the range passes over them, four at a
// time against each row.
constexpr size_t kTokenChunk = 32;

#endif  // HWY_TARGET != HWY_SCALAR

}  // namespace HWY_NAMESPACE
}  // namespace gauntlet::engine::cpu
HWY_AFTER_NAMESPACE();

#endif  // per-target include guard
