// Helpers shared by the OpenCL C block decoders (core/kernels/types/<type>.cl): 16-bit loads and
// the f16 and bf16 widenings. Everything here is integer arithmetic, exact for every input
// (subnormals, infinities, NaNs with their payloads); PoCL's vload_half is slow.
// Helpers are forced inline: PoCL's compiler left k_sub_scale a call inside the unrolled block loop
// of the matvec, which then spilled and recomputed each block's scales per 16 elements (a 117 MB
// Q4_K_M decode: matvec 18.6 -> 10.7 ms a token once inlined).
#define GAUNTLET_INLINE __attribute__((always_inline)) inline
// OpenCL C 1.2. Blocks are at least 2-byte aligned, so 16-bit loads are plain loads; anything
// wider goes through vloadN of bytes or two 16-bit loads.

// Little-endian u16 at p (p even).
GAUNTLET_INLINE uint load_u16(const __global uchar* p) { return *(const __global ushort*)p; }

// Little-endian u32 at p (p even, not necessarily a multiple of 4).
GAUNTLET_INLINE uint load_u32(const __global uchar* p) {
  const __global ushort* h = (const __global ushort*)p;
  return (uint)h[0] | ((uint)h[1] << 16);
}

// f16 bits (the low 16 bits of h) to f32. Normal numbers rebias the exponent (15 -> 127);
// subnormals m * 2^-24 are normalised by the leading bit's position; inf and NaN keep their
// mantissa bits (shifted into place), as core::f16_to_f32 does. The choices are ?: rather than
// select(): PoCL's select() takes a 16-wide vector by value, which clang warns changes the ABI
// without AVX-512 ("N warnings generated" on every build of a program that includes this).
#define GAUNTLET_F16_TO_F32(NAME, UT, FT)                                                  \
  GAUNTLET_INLINE FT NAME(UT h) {                                                          \
    const UT em = h & (UT)0x7fffu;                                                         \
    const UT normal = (em << 13) + (UT)0x38000000u;                                        \
    const UT special = (em << 13) | (UT)0x7f800000u;                                       \
    /* subnormal: leading bit at 31 - lz moves to bit 23; exponent (31 - lz) - 24 + 127 */ \
    const UT lz = clz(em);                                                                 \
    const UT sub = (((UT)134u - lz) << 23) | ((em << (lz - (UT)8u)) & (UT)0x7fffffu);     \
    UT bits = em >= (UT)0x0400u ? normal : sub;                                            \
    bits = em >= (UT)0x7c00u ? special : bits;                                             \
    bits = em == (UT)0u ? (UT)0u : bits;                                                   \
    return as_##FT(bits | ((h & (UT)0x8000u) << 16));                                      \
  }
GAUNTLET_F16_TO_F32(f16_to_f32, uint, float)
#undef GAUNTLET_F16_TO_F32

// The vector forms take a subnormal as the float product m * 2^-24 (exact: m < 2^10): x86 has no
// vector leading-zero count before AVX-512, and PoCL's emulation of it cost 12 instructions a lane.
#define GAUNTLET_F16_TO_F32_VEC(NAME, UT, IT, FT)                                         \
  GAUNTLET_INLINE FT NAME(UT h) {                                                     \
    const UT em = h & (UT)0x7fffu;                                                    \
    const UT normal = (em << 13) + (UT)0x38000000u;                                   \
    const UT special = (em << 13) | (UT)0x7f800000u;                                  \
    const UT sub = as_##UT(convert_##FT(as_##IT(em)) * 0x1.0p-24f);                   \
    UT bits = em >= (UT)0x0400u ? normal : sub;                                       \
    bits = em >= (UT)0x7c00u ? special : bits;                                        \
    return as_##FT(bits | ((h & (UT)0x8000u) << 16));                                 \
  }
GAUNTLET_F16_TO_F32_VEC(f16_to_f32x8, uint8, int8, float8)
GAUNTLET_F16_TO_F32_VEC(f16_to_f32x16, uint16, int16, float16)
#undef GAUNTLET_F16_TO_F32_VEC

// bf16 bits (the low 16 bits of b) to f32: the top half of the f32.
GAUNTLET_INLINE float bf16_to_f32(uint b) { return as_float(b << 16); }
GAUNTLET_INLINE float16 bf16_to_f32x16(uint16 b) { return as_float16(b << 16); }

// The f16 at p (p even).
GAUNTLET_INLINE float load_f16(const __global uchar* p) { return f16_to_f32(load_u16(p)); }

// The 6-bit scale and min of sub-block j (0..7) from the 12 scale bytes of a q4_K or q5_K block,
// as ggml's get_scale_min_k4: sub-blocks 0..3 are the low 6 bits of bytes j and j + 4; 4..7 take
// their low 4 bits from byte j + 4 and their top 2 bits from the top of bytes j - 4 and j.
GAUNTLET_INLINE uint2 k_scale_min(const __global uchar* scales, uint j) {
  if (j < 4) return (uint2)(scales[j] & 63u, scales[j + 4] & 63u);
  const uint b = scales[j + 4];
  return (uint2)((b & 0x0fu) | ((uint)(scales[j - 4] >> 6) << 4),
                 (b >> 4) | ((uint)(scales[j] >> 6) << 4));
}

// Sub-block j's step d * sc and offset dmin * m in a q4_K / q5_K block that starts at blk
// ({f16 d, f16 dmin, scales[12], ...}): its elements are step * q - offset.
GAUNTLET_INLINE float2 k_sub_scale(const __global uchar* blk, uint j) {
  const uint2 sm = k_scale_min(blk + 4, j);
  return (float2)(load_f16(blk) * (float)sm.x, load_f16(blk + 2) * (float)sm.y);
}

// All eight steps (s0..s7) and offsets (s8..sf) of a q4_K / q5_K block at once, k_scale_min's
// rule on byte vectors. The block decoders take a lane of it per chunk: in the matvec's unrolled
// block loop the vector is computed once per block (on PoCL the scalar k_sub_scale per sub-block
// was half of a q4_K block's instructions).
GAUNTLET_INLINE float16 k_sub_scales(const __global uchar* blk) {
  const uchar4 a = vload4(0, blk + 4), b = vload4(0, blk + 8), c = vload4(0, blk + 12);
  const uchar8 sc = (uchar8)(a & (uchar)63, (c & (uchar)15) | ((a >> (uchar)6) << (uchar)4));
  const uchar8 m = (uchar8)(b & (uchar)63, (c >> (uchar)4) | ((b >> (uchar)6) << (uchar)4));
  return (float16)(load_f16(blk) * convert_float8(sc), load_f16(blk + 2) * convert_float8(m));
}

// The matvec's code-word form (engine_matvec.cl's BLOCK_CODE_WORDS) reads codes as eight
// little-endian 32-bit words from 32 bytes at p.
GAUNTLET_INLINE uint8 load_words8(const __global uchar* p) {
  return (uint8)(as_uint4(vload16(0, p)), as_uint4(vload16(0, p + 16)));
}
// q4_K and q5_K in that form: sub-block g's step on every lane, and the offsets dmin * m against
// the sums of each sub-block's first and last 16 activations.
GAUNTLET_INLINE float8 k_group_steps(float16 steps, uint g) { return shuffle(steps, (uint8)(g)); }
GAUNTLET_INLINE float8 k_block_offsets(float16 steps, float8 first, float8 second) {
  return steps.hi * (first + second);
}

// ggml's kvalues_iq4nl (ggml-common.h), the 16 levels of iq4_nl and iq4_xs codes.
__constant char kvalues_iq4nl[16] = {-127, -104, -83, -65, -49, -35, -22, -10,
                                     1,    13,   25,  38,  53,  69,  89,  113};

// A table of 16 bytes looked up by 16 codes (each 0..15) in one instruction, where the OpenCL
// compiler targets x86 with SSSE3 (PoCL compiles kernels for its host CPU): pshufb. OpenCL's own
// shuffle() with a variable mask became per-byte code under PoCL, 5x slower than arithmetic.
// Elsewhere (GPUs) the types keep their arithmetic or per-element lookup.
#if defined(__SSSE3__)
#define GAUNTLET_BYTE_LOOKUP16 1
GAUNTLET_INLINE char16 byte_lookup16(char16 table, uchar16 codes) {
  return __builtin_ia32_pshufb128(table, as_char16(codes));
}
#endif

// The levels of 16 codes (each 0..15), as floats.
#ifdef GAUNTLET_BYTE_LOOKUP16
GAUNTLET_INLINE float16 iq4nl_values16(uchar16 q) {
  return convert_float16(byte_lookup16(vload16(0, kvalues_iq4nl), q));
}
#else
#define GAUNTLET_IQ4NL(c) (float)kvalues_iq4nl[q.s##c]
GAUNTLET_INLINE float16 iq4nl_values16(uchar16 q) {
  return (float16)(GAUNTLET_IQ4NL(0), GAUNTLET_IQ4NL(1), GAUNTLET_IQ4NL(2), GAUNTLET_IQ4NL(3),
                   GAUNTLET_IQ4NL(4), GAUNTLET_IQ4NL(5), GAUNTLET_IQ4NL(6), GAUNTLET_IQ4NL(7),
                   GAUNTLET_IQ4NL(8), GAUNTLET_IQ4NL(9), GAUNTLET_IQ4NL(a), GAUNTLET_IQ4NL(b),
                   GAUNTLET_IQ4NL(c), GAUNTLET_IQ4NL(d), GAUNTLET_IQ4NL(e), GAUNTLET_IQ4NL(f));
}
#undef GAUNTLET_IQ4NL
#endif

#ifdef GAUNTLET_KV_ENCODE
// ggml's best_index_int8: the nearest of the 16 levels (the upper one on ties).
GAUNTLET_INLINE uint iq4nl_nearest(float x) {
  if (x <= kvalues_iq4nl[0]) return 0;
  if (x >= kvalues_iq4nl[15]) return 15;
  int lo = 0, hi = 15;
  while (hi - lo > 1) {
    const int mid = (lo + hi) / 2;
    if (x < kvalues_iq4nl[mid]) {
      hi = mid;
    } else {
      lo = mid;
    }
  }
  return x - kvalues_iq4nl[hi - 1] < kvalues_iq4nl[hi] - x ? hi - 1 : hi;
}
#endif
