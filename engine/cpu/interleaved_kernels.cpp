// The cpu device's kernels for q4_0, q8_0, mxfp4 and q4_K rows interleaved eight at a time
// (interleaved.h). Highway compiles this file once per instruction set (foreach_target.h) and picks
// the best one at run time; the integer pair sums are dot_pairs-inl.h's.
#include <algorithm>
#include <cstring>

#include "engine/cpu/dot_kernels.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "engine/cpu/interleaved_kernels.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
// foreach_target.h must come first.
#include "engine/cpu/dot_pairs-inl.h"
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace gauntlet::engine::cpu {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

#if HWY_TARGET != HWY_SCALAR

// Eight interleaved rows (interleaved.h) against NT tokens: per block, each row's codes in its
// own 32-bit lane, so that every row's block sum comes out in its lane and the eight scales apply
// as one vector, as llama.cpp's AVX2 ggml_gemv/gemm_q4_0_8x8_q8_0 do. G takes a block position's
// codes once (Load) and gives one token's eight integer block sums (Dot).
template <class G, size_t NT>
HWY_INLINE void GroupRows(const uint8_t* group, uint64_t nb, const Tokens& tk, float* out,
                          uint64_t stride) {
  const DF df;
  VF acc[NT];
  for (size_t t = 0; t < NT; ++t) acc[t] = hn::Zero(df);
  for (uint64_t b = 0; b < nb; ++b, group += group_block_bytes(G::kType)) {
    const VF dw = G::Scales(group);
    G g;
    g.Load(group + kGroupRows * block_scale_bytes(G::kType));
    for (size_t t = 0; t < NT; ++t) {
      const VI32 dot = g.Dot(tk.q[t] + b * 32, tk.s[t][b]);
      acc[t] = hn::MulAdd(hn::ConvertTo(df, dot), hn::Mul(dw, hn::Set(df, tk.d[t][b])), acc[t]);
    }
  }
  for (size_t t = 0; t < NT; ++t) hn::StoreU(acc[t], df, out + t * stride);
}

// The eight rows' f16 scales at the start of a group's block position.
HWY_INLINE VF GroupF16Scales(const uint8_t* group) {
  const DF df;
  const hn::Rebind<hwy::float16_t, DF> dh;
  return hn::PromoteTo(df, hn::LoadU(dh, reinterpret_cast<const hwy::float16_t*>(group)));
}

// The four 32-byte chunks of a 4-bit type's block position (q4_0, mxfp4) split into their low and
// high nibbles: each row's elements j..j+3 and j+16..j+19 of its block in its 32-bit lane.
HWY_INLINE void GroupNibbles(const uint8_t* codes, VU8* lo, VU8* hi) {
  const DU8 du8;
  const DU16 du16;
  const VU8 low = hn::Set(du8, 0x0F);
  for (size_t c = 0; c < 4; ++c) {
    const VU8 x = hn::LoadU(du8, codes + 32 * c);
    lo[c] = hn::And(x, low);
    hi[c] = hn::And(hn::BitCast(du8, hn::ShiftRight<4>(hn::BitCast(du16, x))), low);
  }
}

// One token's pair sums over chunks [c0, c1) of a 4-bit block position's nibbles (GroupNibbles):
// each chunk's low nibbles against the token's codes 4c..4c+3, its high ones against 16+4c.., the
// four codes the same in every row's lane.
HWY_INLINE VI16 NibblePairs(const VU8* lo, const VU8* hi, const int8_t* a, size_t c0, size_t c1) {
  const D8 d8;
  const D16 d16;
  const D32 d32;
  VI16 sum = hn::Zero(d16);
  for (size_t c = c0; c < c1; ++c) {
    int32_t a_lo, a_hi;
    std::memcpy(&a_lo, a + 4 * c, 4);
    std::memcpy(&a_hi, a + 16 + 4 * c, 4);
    sum = hn::Add(sum, PairsU8(lo[c], hn::BitCast(d8, hn::Set(d32, a_lo))));
    sum = hn::Add(sum, PairsU8(hi[c], hn::BitCast(d8, hn::Set(d32, a_hi))));
  }
  return sum;
}

// The same over chunks [c0, c1) summed into 32-bit lanes: with VNNI four products at a time
// straight into them, elsewhere the pairs widened once at the end.
HWY_INLINE VI32 NibbleSums(const VU8* lo, const VU8* hi, const int8_t* a, size_t c0, size_t c1) {
#ifdef GAUNTLET_X86_VNNI
  const D8 d8;
  const D32 d32;
  VI32 sum_lo = hn::Zero(d32), sum_hi = hn::Zero(d32);  // two chains hide vpdpbusd's latency
  for (size_t c = c0; c < c1; ++c) {
    int32_t a_lo, a_hi;
    std::memcpy(&a_lo, a + 4 * c, 4);
    std::memcpy(&a_hi, a + 16 + 4 * c, 4);
    sum_lo = AddQuads(sum_lo, lo[c], hn::BitCast(d8, hn::Set(d32, a_lo)));
    sum_hi = AddQuads(sum_hi, hi[c], hn::BitCast(d8, hn::Set(d32, a_hi)));
  }
  return hn::Add(sum_lo, sum_hi);
#else
  return Pairs16(NibblePairs(lo, hi, a, c0, c1), hn::Set(D16(), 1));
#endif
}

// q4_0: the codes stay unsigned (0..15) and their 8 comes off through the activations' block
// sums; eight pair sums of at most 2 * 15 * 127 fit a 16-bit lane.
struct GroupQ4_0 {
  static constexpr core::TensorType kType = core::TensorType::q4_0;
  static HWY_INLINE VF Scales(const uint8_t* group) { return GroupF16Scales(group); }
  VU8 lo[4], hi[4];
  HWY_INLINE void Load(const uint8_t* codes) { GroupNibbles(codes, lo, hi); }
  HWY_INLINE VI32 Dot(const int8_t* a, int16_t a_sum) const {
    return hn::Sub(NibbleSums(lo, hi, a, 0, 4), hn::Set(D32(), 8 * a_sum));
  }
};

// q8_0: |w| (once per chunk) times the token's four codes with w's sign (PairsAbs with the roles
// of weight and activation swapped), in pairs of at most 2 * 128 * 127, each chunk's pairs
// widened to 32 bits.
struct GroupQ8_0 {
  static constexpr core::TensorType kType = core::TensorType::q8_0;
  static HWY_INLINE VF Scales(const uint8_t* group) { return GroupF16Scales(group); }
  VI8 w[8], abs_w[8];
  HWY_INLINE void Load(const uint8_t* codes) {
    const D8 d8;
    for (size_t c = 0; c < 8; ++c) {
      w[c] = hn::LoadU(d8, reinterpret_cast<const int8_t*>(codes) + 32 * c);
      abs_w[c] = hn::Abs(w[c]);
    }
  }
  HWY_INLINE VI32 Dot(const int8_t* a, int16_t /*a_sum*/) const {
    const D8 d8;
    const D32 d32;
    VI32 dot[2] = {hn::Zero(d32), hn::Zero(d32)};  // two chains hide vpdpbusd's latency
    for (size_t c = 0; c < 8; ++c) {
      int32_t a4;
      std::memcpy(&a4, a + 4 * c, 4);
      dot[c % 2] = AddQuadsSigned(dot[c % 2], w[c], abs_w[c], hn::BitCast(d8, hn::Set(d32, a4)));
    }
    return hn::Add(dot[0], dot[1]);
  }
};

// mxfp4: each nibble looks its value plus 12 up (0..24, unsigned bytes) and the 12 comes off
// through the activations' block sums, as q4_0's 8 does; four pair sums of at most 2 * 24 * 127
// fit a 16-bit lane, so each half of the block's chunks is widened on its own (signed values with
// the sign trick, as the file-layout kernel takes them, would take a sign and an abs more per
// chunk). The eight E8M0 scales halved as ggml_e8m0_to_fp32_half: exponent field e - 1, or the
// subnormal 2^21 << e for e < 2, which rarely occurs and takes a branch.
struct GroupMxfp4 {
  static constexpr core::TensorType kType = core::TensorType::mxfp4;
  VU8 lo[4], hi[4];
  static HWY_INLINE VF Scales(const uint8_t* group) {
    const DF df;
    const hn::Repartition<uint32_t, DF> du32;
    const auto e = hn::PromoteTo(du32, hn::LoadU(hn::Rebind<uint8_t, decltype(du32)>(), group));
    const auto one = hn::Set(du32, 1);
    auto bits = hn::ShiftLeft<23>(hn::Sub(e, one));
    const auto tiny = hn::Lt(e, hn::Set(du32, 2));
    if (!hn::AllFalse(du32, tiny)) {
      bits = hn::IfThenElse(tiny, hn::Set(du32, 0x00200000u) << hn::Min(e, one), bits);
    }
    return hn::BitCast(df, bits);
  }
  HWY_INLINE void Load(const uint8_t* codes) {
    const D8 d8;
    const DU8 du8;
    const VU8 table = hn::BitCast(du8, hn::Add(Mxfp4Table(), hn::Set(d8, 12)));
    GroupNibbles(codes, lo, hi);
    for (size_t c = 0; c < 4; ++c) {
      lo[c] = hn::TableLookupBytes(table, lo[c]);
      hi[c] = hn::TableLookupBytes(table, hi[c]);
    }
  }
  HWY_INLINE VI32 Dot(const int8_t* a, int16_t a_sum) const {
    return hn::Add(hn::Set(D32(), -12 * a_sum),
                   hn::Add(NibbleSums(lo, hi, a, 0, 2), NibbleSums(lo, hi, a, 2, 4)));
  }
};

// q4_K's sub-block sums: n chunks of unsigned codes against a token's codes four at a time
// (its 4c..4c+3 at a + 4c), times the sub-block's scale in each row's lane. With VNNI the quads
// go straight into 32-bit lanes and the scale multiplies them once; elsewhere the pairs stay in
// 16 bits (at most 4 * 2 * 15 * 128) and madd applies the scale, as llama.cpp's AVX2
// ggml_gemm_q4_K_8x8_q8_K does.
HWY_INLINE VI32 ScaledQuads(const VU8* codes, const int8_t* a, size_t n, VI32 scale) {
  const D8 d8;
  const D32 d32;
#ifdef GAUNTLET_X86_VNNI
  VI32 sum[2] = {hn::Zero(d32), hn::Zero(d32)};  // two chains hide vpdpbusd's latency
  for (size_t c = 0; c < n; ++c) {
    int32_t a4;
    std::memcpy(&a4, a + 4 * c, 4);
    sum[c % 2] = AddQuads(sum[c % 2], codes[c], hn::BitCast(d8, hn::Set(d32, a4)));
  }
  return hn::Mul(hn::Add(sum[0], sum[1]), scale);
#else
  const D16 d16;
  VI16 pairs = hn::Zero(d16);
  for (size_t c = 0; c < n; ++c) {
    int32_t a4;
    std::memcpy(&a4, a + 4 * c, 4);
    pairs = hn::Add(pairs, PairsU8(codes[c], hn::BitCast(d8, hn::Set(d32, a4))));
  }
  return Pairs16(pairs, hn::BitCast(d16, hn::Or(scale, hn::ShiftLeft<16>(scale))));
#endif
}

// Eight interleaved q4_K rows against NT tokens (Q8_K activations), one row per 32-bit lane: per
// block, ggml-quants.c's get_scale_min_k4 for the eight rows at once from their three packed
// words, then each pair of sub-blocks (64 elements: the low nibbles of 32 code bytes, then their
// high nibbles) against every token, the sub-block scales applied in integers; the minimums come
// off through the activations' sums per 16, and the block's two f16 scales once per token.
template <size_t NT>
HWY_INLINE void GroupRowsQ4_K(const uint8_t* group, uint64_t nb, const Tokens& tk, float* out,
                              uint64_t stride) {
  constexpr uint64_t kStep = group_block_bytes(core::TensorType::q4_K);
  // Chunks of one sub-block held at once: a whole one where 32 vector registers hold its 16.
#ifdef GAUNTLET_X86_VNNI
  constexpr size_t kChunks = 8;
#else
  constexpr size_t kChunks = 4;
#endif
  const DF df;
  const D32 d32;
  const DU8 du8;
  const hn::RebindToUnsigned<D32> du32;
  const hn::Rebind<uint16_t, DF> du16;
  const hn::Rebind<hwy::float16_t, DF> dh;
  const VU8 low = hn::Set(du8, 0x0F);
  const auto m6 = hn::Set(du32, 0x3f3f3f3fu), m4 = hn::Set(du32, 0x0f0f0f0fu),
             m2 = hn::Set(du32, 0x03030303u), byte = hn::Set(du32, 0xFFu);
  VF acc[NT];
  for (size_t t = 0; t < NT; ++t) acc[t] = hn::Zero(df);
  for (uint64_t b = 0; b < nb; ++b, group += kStep) {
    // Each lane's f16 pair split in two, each half widened from 16 bits (Highway 1.0.3's
    // TruncateTo gave wrong lanes on AVX3_DL; a saturating demote of values below 2^16 is exact).
    const VI32 scales = hn::LoadU(d32, reinterpret_cast<const int32_t*>(group));
    const VF d = hn::PromoteTo(
        df, hn::BitCast(dh, hn::DemoteTo(du16, hn::And(scales, hn::Set(d32, 0xFFFF)))));
    const VF dmin = hn::PromoteTo(
        df, hn::BitCast(dh, hn::DemoteTo(du16, hn::BitCast(d32, hn::ShiftRight<16>(
                                                                    hn::BitCast(du32, scales))))));
    const auto u0 = hn::LoadU(du32, reinterpret_cast<const uint32_t*>(group + 32));
    const auto u1 = hn::LoadU(du32, reinterpret_cast<const uint32_t*>(group + 64));
    const auto u2 = hn::LoadU(du32, reinterpret_cast<const uint32_t*>(group + 96));
    // Sub-block k's scale is byte k % 4 of sc[k / 4], its minimum byte k % 4 of mn[k / 4].
    const decltype(u0) sc[2] = {
        hn::And(u0, m6),
        hn::Or(hn::And(u2, m4), hn::ShiftLeft<4>(hn::And(hn::ShiftRight<6>(u0), m2)))};
    const decltype(u0) mn[2] = {hn::And(u1, m6),
                                hn::Or(hn::And(hn::ShiftRight<4>(u2), m4),
                                       hn::ShiftLeft<4>(hn::And(hn::ShiftRight<6>(u1), m2)))};
    auto sub = [&](const decltype(u0)* words, size_t k) {
      return hn::BitCast(
          d32, hn::And(hn::ShiftRightSame(words[k / 4], static_cast<int>(8 * (k % 4))), byte));
    };
    VI32 isum[NT], mins[NT];
    for (size_t t = 0; t < NT; ++t) isum[t] = mins[t] = hn::Zero(d32);
    for (size_t k = 0; k < 8; ++k) {
      const VI32 mk = sub(mn, k);
      for (size_t t = 0; t < NT; ++t) {
        const int16_t* s = tk.s[t] + b * 16 + 2 * k;
        mins[t] = hn::Add(mins[t], hn::Mul(mk, hn::Set(d32, s[0] + s[1])));
      }
    }
    const uint8_t* codes = group + 128;
    for (size_t j = 0; j < 4; ++j) {
      const VI32 sc_lo = sub(sc, 2 * j), sc_hi = sub(sc, 2 * j + 1);
      for (size_t c0 = 0; c0 < 8; c0 += kChunks) {
        VU8 lo[kChunks], hi[kChunks];
        for (size_t c = 0; c < kChunks; ++c) {
          const VU8 x = hn::LoadU(du8, codes + 32 * (8 * j + c0 + c));
          lo[c] = hn::And(x, low);
          hi[c] = hn::And(hn::BitCast(du8, hn::ShiftRight<4>(hn::BitCast(du32, x))), low);
        }
        for (size_t t = 0; t < NT; ++t) {
          const int8_t* a = tk.q[t] + b * 256 + 64 * j + 4 * c0;
          isum[t] = hn::Add(isum[t], hn::Add(ScaledQuads(lo, a, kChunks, sc_lo),
                                             ScaledQuads(hi, a + 32, kChunks, sc_hi)));
        }
      }
    }
    for (size_t t = 0; t < NT; ++t) {
      const VF da = hn::Set(df, tk.d[t][b]);
      acc[t] = hn::MulAdd(hn::ConvertTo(df, isum[t]), hn::Mul(d, da), acc[t]);
      acc[t] = hn::NegMulAdd(hn::ConvertTo(df, mins[t]), hn::Mul(dmin, da), acc[t]);
    }
  }
  for (size_t t = 0; t < NT; ++t) hn::StoreU(acc[t], df, out + t * stride);
}

// One group of an interleaved matrix against up to four tokens.
template <size_t NT>
HWY_INLINE void Group(const InterleavedMatrix& m, uint64_t g, const Tokens& tk, float* out,
                      uint64_t stride) {
  switch (m.type) {
    case core::TensorType::q8_0:
      return GroupRows<GroupQ8_0, NT>(m.group(g), m.blocks, tk, out, stride);
    case core::TensorType::mxfp4:
      return GroupRows<GroupMxfp4, NT>(m.group(g), m.blocks, tk, out, stride);
    case core::TensorType::q4_K:
      return GroupRowsQ4_K<NT>(m.group(g), m.blocks, tk, out, stride);
    default:
      return GroupRows<GroupQ4_0, NT>(m.group(g), m.blocks, tk, out, stride);
  }
}

#ifdef GAUNTLET_X86_VNNI
// q4_0 on AVX-512 VNNI: two groups (16 rows) at once in 512-bit vectors, group g's chunk in the
// low half and g + 1's in the high one, so that each vpdpbusd, nibble split and scale serves
// twice the rows of GroupRows<GroupQ4_0> (llama.cpp's AVX-512 ggml_gemm_q4_0_8x8_q8_0 also
// takes 16 rows a step). Each lane's arithmetic is GroupRows's: the same sums, in the same order.
template <size_t NT>
HWY_INLINE void GroupPairQ4_0(const InterleavedMatrix& m, uint64_t g, const Tokens& tk, float* out,
                              uint64_t stride) {
  constexpr uint64_t kStep = group_block_bytes(core::TensorType::q4_0);
  constexpr uint64_t kScales = kGroupRows * block_scale_bytes(core::TensorType::q4_0);
  const uint8_t* a = m.group(g);
  const uint8_t* b = m.group(g + 1);
  const __m512i low = _mm512_set1_epi8(0x0F);
  __m512 acc[NT];
  for (size_t t = 0; t < NT; ++t) acc[t] = _mm512_setzero_ps();
  for (uint64_t blk = 0; blk < m.blocks; ++blk, a += kStep, b += kStep) {
    const __m256i halves = _mm256_inserti128_si256(
        _mm256_castsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(a))),
        _mm_loadu_si128(reinterpret_cast<const __m128i*>(b)), 1);
    const __m512 dw = _mm512_cvtph_ps(halves);
    __m512i lo[4], hi[4];
    for (size_t c = 0; c < 4; ++c) {
      const __m512i x = _mm512_inserti64x4(
          _mm512_castsi256_si512(
              _mm256_loadu_si256(reinterpret_cast<const __m256i*>(a + kScales + 32 * c))),
          _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b + kScales + 32 * c)), 1);
      lo[c] = _mm512_and_si512(x, low);
      hi[c] = _mm512_and_si512(_mm512_srli_epi16(x, 4), low);
    }
    for (size_t t = 0; t < NT; ++t) {
      const int8_t* q = tk.q[t] + blk * 32;
      __m512i sum_lo = _mm512_setzero_si512(), sum_hi = _mm512_setzero_si512();
      for (size_t c = 0; c < 4; ++c) {
        int32_t q_lo, q_hi;
        std::memcpy(&q_lo, q + 4 * c, 4);
        std::memcpy(&q_hi, q + 16 + 4 * c, 4);
        sum_lo = DpbusdEvex(sum_lo, lo[c], _mm512_set1_epi32(q_lo));
        sum_hi = DpbusdEvex(sum_hi, hi[c], _mm512_set1_epi32(q_hi));
      }
      const __m512i dot =
          _mm512_sub_epi32(_mm512_add_epi32(sum_lo, sum_hi), _mm512_set1_epi32(8 * tk.s[t][blk]));
      acc[t] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(dot),
                               _mm512_mul_ps(dw, _mm512_set1_ps(tk.d[t][blk])), acc[t]);
    }
  }
  for (size_t t = 0; t < NT; ++t) _mm512_storeu_ps(out + t * stride, acc[t]);
}
#endif

#ifdef GAUNTLET_X86_VNNI
// q4_K on AVX-512 VNNI: two groups (16 rows) at once in 512-bit vectors, as GroupPairQ4_0 takes
// q4_0 (llama.cpp's AVX-512 ggml_gemm_q4_K_8x8_q8_K also takes 16 rows a step). Each lane's
// arithmetic is GroupRowsQ4_K's: the same integer sums, the same float steps.
template <size_t NT>
HWY_INLINE void GroupPairQ4_K(const InterleavedMatrix& m, uint64_t g, const Tokens& tk, float* out,
                              uint64_t stride) {
  constexpr uint64_t kStep = group_block_bytes(core::TensorType::q4_K);
  const uint8_t* a = m.group(g);
  const uint8_t* b = m.group(g + 1);
  // Group g's 32 bytes at `offset` in the low half, g + 1's in the high one.
  auto both = [&](uint64_t offset) {
    return _mm512_inserti64x4(
        _mm512_castsi256_si512(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(a + offset))),
        _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b + offset)), 1);
  };
  const __m512i low = _mm512_set1_epi8(0x0F), m6 = _mm512_set1_epi32(0x3f3f3f3f),
                m4 = _mm512_set1_epi32(0x0f0f0f0f), m2 = _mm512_set1_epi32(0x03030303),
                byte = _mm512_set1_epi32(0xFF), half = _mm512_set1_epi32(0xFFFF);
  __m512 acc[NT];
  for (size_t t = 0; t < NT; ++t) acc[t] = _mm512_setzero_ps();
  for (uint64_t blk = 0; blk < m.blocks; ++blk, a += kStep, b += kStep) {
    const __m512i scales = both(0);
    const __m512 d = _mm512_cvtph_ps(_mm512_cvtepi32_epi16(_mm512_and_si512(scales, half)));
    const __m512 dmin = _mm512_cvtph_ps(_mm512_cvtepi32_epi16(_mm512_srli_epi32(scales, 16)));
    const __m512i u0 = both(32), u1 = both(64), u2 = both(96);
    const __m512i sc[2] = {
        _mm512_and_si512(u0, m6),
        _mm512_or_si512(_mm512_and_si512(u2, m4),
                        _mm512_slli_epi32(_mm512_and_si512(_mm512_srli_epi32(u0, 6), m2), 4))};
    const __m512i mn[2] = {
        _mm512_and_si512(u1, m6),
        _mm512_or_si512(_mm512_and_si512(_mm512_srli_epi32(u2, 4), m4),
                        _mm512_slli_epi32(_mm512_and_si512(_mm512_srli_epi32(u1, 6), m2), 4))};
    auto sub = [&](const __m512i* words, size_t k) {
      return _mm512_and_si512(
          _mm512_srl_epi32(words[k / 4], _mm_cvtsi32_si128(static_cast<int>(8 * (k % 4)))), byte);
    };
    __m512i isum[NT], mins[NT];
    for (size_t t = 0; t < NT; ++t) isum[t] = mins[t] = _mm512_setzero_si512();
    for (size_t k = 0; k < 8; ++k) {
      const __m512i mk = sub(mn, k);
      for (size_t t = 0; t < NT; ++t) {
        const int16_t* s = tk.s[t] + blk * 16 + 2 * k;
        mins[t] = _mm512_add_epi32(mins[t], _mm512_mullo_epi32(mk, _mm512_set1_epi32(s[0] + s[1])));
      }
    }
    for (size_t j = 0; j < 4; ++j) {
      const __m512i sc_lo = sub(sc, 2 * j), sc_hi = sub(sc, 2 * j + 1);
      __m512i lo[8], hi[8];
      for (size_t c = 0; c < 8; ++c) {
        const __m512i x = both(128 + 32 * (8 * j + c));
        lo[c] = _mm512_and_si512(x, low);
        hi[c] = _mm512_and_si512(_mm512_srli_epi32(x, 4), low);
      }
      for (size_t t = 0; t < NT; ++t) {
        const int8_t* q = tk.q[t] + blk * 256 + 64 * j;
        __m512i sum_lo[2] = {_mm512_setzero_si512(), _mm512_setzero_si512()};
        __m512i sum_hi[2] = {_mm512_setzero_si512(), _mm512_setzero_si512()};
        for (size_t c = 0; c < 8; ++c) {
          int32_t q_lo, q_hi;
          std::memcpy(&q_lo, q + 4 * c, 4);
          std::memcpy(&q_hi, q + 32 + 4 * c, 4);
          sum_lo[c % 2] = DpbusdEvex(sum_lo[c % 2], lo[c], _mm512_set1_epi32(q_lo));
          sum_hi[c % 2] = DpbusdEvex(sum_hi[c % 2], hi[c], _mm512_set1_epi32(q_hi));
        }
        isum[t] = _mm512_add_epi32(
            isum[t],
            _mm512_add_epi32(_mm512_mullo_epi32(_mm512_add_epi32(sum_lo[0], sum_lo[1]), sc_lo),
                             _mm512_mullo_epi32(_mm512_add_epi32(sum_hi[0], sum_hi[1]), sc_hi)));
      }
    }
    for (size_t t = 0; t < NT; ++t) {
      const __m512 da = _mm512_set1_ps(tk.d[t][blk]);
      acc[t] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(isum[t]), _mm512_mul_ps(d, da), acc[t]);
      acc[t] = _mm512_fnmadd_ps(_mm512_cvtepi32_ps(mins[t]), _mm512_mul_ps(dmin, da), acc[t]);
    }
  }
  for (size_t t = 0; t < NT; ++t) _mm512_storeu_ps(out + t * stride, acc[t]);
}
#endif

// One group of an interleaved matrix (two where the kernel takes pairs: `pair`) against up to four
// tokens.
template <size_t NT>
HWY_INLINE void Groups(const InterleavedMatrix& m, uint64_t g, bool pair, const Tokens& tk,
                       float* out, uint64_t stride) {
#ifdef GAUNTLET_X86_VNNI
  if (pair && m.type == core::TensorType::q4_K) return GroupPairQ4_K<NT>(m, g, tk, out, stride);
  if (pair) return GroupPairQ4_0<NT>(m, g, tk, out, stride);
#else
  (void)pair;
#endif
  Group<NT>(m, g, tk, out, stride);
}

// Whether groups are taken two at a time: q4_0 and q4_K on AVX-512 VNNI, for a pass of several
// tokens (a decode's one token went 20% slower through q4_0's pairs here: two weight streams for
// one token).
HWY_INLINE bool TakesGroupPairs(const InterleavedMatrix& m, size_t tokens) {
#ifdef GAUNTLET_X86_VNNI
  return (m.type == core::TensorType::q4_0 || m.type == core::TensorType::q4_K) && tokens > 1;
#else
  (void)m, (void)tokens;
  return false;
#endif
}

#endif  // HWY_TARGET != HWY_SCALAR

// Groups [g0, g1) of an interleaved matrix against every token of `acts`; only where a vector
// holds eight floats (InterleavedAvailable).
void InterleavedRows(const InterleavedMatrix& m, uint64_t g0, uint64_t g1,
                     const QuantizedActs& acts, float* out, uint64_t out_stride) {
#if HWY_TARGET != HWY_SCALAR
  if constexpr (hn::MaxLanes(DF()) == kGroupRows) {
    for (size_t c0 = 0; c0 < acts.tokens; c0 += kTokenChunk) {
      const size_t c1 = std::min(acts.tokens, c0 + kTokenChunk);
      const uint64_t width = TakesGroupPairs(m, acts.tokens) ? 2 : 1;
      for (uint64_t g = g0; g < g1; g += width) {
        const bool pair = width == 2 && g + 1 < g1;
        for (size_t t0 = c0; t0 < c1; t0 += 4) {
          const size_t nt = std::min<size_t>(4, c1 - t0);
          Tokens tk{};
          for (size_t t = 0; t < nt; ++t) {
            tk.q[t] = acts.codes(t0 + t);
            tk.d[t] = acts.scale(t0 + t);
            tk.s[t] = acts.sum(t0 + t);
          }
          float* o = out + t0 * out_stride + g * kGroupRows;
          switch (nt) {
            case 4:
              Groups<4>(m, g, pair, tk, o, out_stride);
              break;
            case 3:
              Groups<3>(m, g, pair, tk, o, out_stride);
              break;
            case 2:
              Groups<2>(m, g, pair, tk, o, out_stride);
              break;
            default:
              Groups<1>(m, g, pair, tk, o, out_stride);
          }
        }
      }
    }
  }
#else
  (void)m, (void)g0, (void)g1, (void)acts, (void)out, (void)out_stride;
#endif
}

bool InterleavedAvailable() {
#if HWY_TARGET != HWY_SCALAR
  return hn::MaxLanes(DF()) == kGroupRows;
#else
  return false;
#endif
}

}  // namespace HWY_NAMESPACE
}  // namespace gauntlet::engine::cpu
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace gauntlet::engine::cpu {

HWY_EXPORT(InterleavedRows);
HWY_EXPORT(InterleavedAvailable);

bool interleaved_kernels() { return HWY_DYNAMIC_DISPATCH(InterleavedAvailable)(); }

void interleaved_rows(const InterleavedMatrix& m, uint64_t g0, uint64_t g1,
                      const QuantizedActs& acts, float* out, uint64_t out_stride) {
  HWY_DYNAMIC_DISPATCH(InterleavedRows)(m, g0, g1, acts, out, out_stride);
}

}  // namespace gauntlet::engine::cpu
#endif
