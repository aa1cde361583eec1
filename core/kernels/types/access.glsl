// Reads of the weights for the GLSL block decoders (core/kernels/types/<type>.glsl). The includer
// declares `layout(std430, binding = 0) readonly buffer W { uint w[]; };`: the weights as 32-bit
// words, read at byte offsets without 8- or 16-bit storage (real drivers may not have it).
// Blocks are at least 2-byte aligned (but for mxfp4's 17-byte blocks, which read bytes and
// u32_at_any), so 16-bit fields never straddle a word; a 32-bit read at an offset of 2 mod 4 takes
// two words. The buffer's size must be a whole number of words (pad
// it), or the last word of a row ending at 2 mod 4 lies past the end of w[].

// Where the words come from: the weights' binding (SOURCE_WORD, declared with them by
// gauntlet_add_typed_kernels: w[] or a texel buffer) unless a body stages blocks elsewhere and
// defines WEIGHT_WORD first (gauntlet_add_typed_kernels includes <body>_words.glsl before this file).
#ifndef WEIGHT_WORD
#define WEIGHT_WORD(i) SOURCE_WORD(i)
#endif

// The byte, u16 (off even) and little-endian u32 (off even) at byte offset off.
uint u8_at(uint off) { return (WEIGHT_WORD(off >> 2) >> ((off & 3u) << 3)) & 0xffu; }
uint u16_at(uint off) { return (WEIGHT_WORD(off >> 2) >> ((off & 2u) << 3)) & 0xffffu; }
uint u32_at(uint off) {
  const uint i = off >> 2;
  if ((off & 2u) == 0u) return WEIGHT_WORD(i);
  return (WEIGHT_WORD(i) >> 16) | (WEIGHT_WORD(i + 1u) << 16);
}

// The four bytes of a word, unsigned and sign-extended, lowest first.
uvec4 u8x4(uint word) { return (uvec4(word) >> uvec4(0u, 8u, 16u, 24u)) & 0xffu; }
ivec4 i8x4(uint word) { return ivec4(uvec4(word) << uvec4(24u, 16u, 8u, 0u)) >> 24; }

// f16 bits (the low 16 bits of h) to f32, exact for every value as core::f16_to_f32: normal
// numbers rebias the exponent (15 -> 127), subnormals are m * 2^-24 (an exact product: m has 10
// bits and the result is a normal f32), inf and NaN keep their mantissa bits.
float f16_bits_to_f32(uint h) {
  const uint em = h & 0x7fffu;
  uint bits = (em << 13) + 0x38000000u;
  if (em < 0x0400u) bits = floatBitsToUint(float(em) * uintBitsToFloat(0x33800000u));
  if (em >= 0x7c00u) bits = (em << 13) | 0x7f800000u;
  return uintBitsToFloat(bits | ((h & 0x8000u) << 16));
}
vec4 f16_bits_to_f32(uvec4 h) {
  const uvec4 em = h & 0x7fffu;
  uvec4 bits = (em << 13) + 0x38000000u;
  bits = mix(bits, floatBitsToUint(vec4(em) * uintBitsToFloat(0x33800000u)),
             lessThan(em, uvec4(0x0400u)));
  bits = mix(bits, (em << 13) | 0x7f800000u, greaterThanEqual(em, uvec4(0x7c00u)));
  return uintBitsToFloat(bits | ((h & 0x8000u) << 16));
}
// The two f16 of a word (low half first).
vec2 f16x2_to_f32(uint word) {
  return f16_bits_to_f32(uvec4(word & 0xffffu, word >> 16, 0u, 0u)).xy;
}

// bf16 bits (the low 16 bits of b) to f32: the top half of the f32.
float bf16_bits_to_f32(uint b) { return uintBitsToFloat(b << 16); }
vec2 bf16x2_to_f32(uint word) {
  return uintBitsToFloat(uvec2(word << 16, word & 0xffff0000u));
}

// The f16 at byte offset off (off even).
float f16_at(uint off) { return f16_bits_to_f32(u16_at(off)); }

// The 6-bit scale and min of sub-block j (0..7) from the 12 scale bytes at byte offset off of a
// q4_K or q5_K block, as ggml's get_scale_min_k4: sub-blocks 0..3 are the low 6 bits of bytes j
// and j + 4; 4..7 take their low 4 bits from byte j + 4 and their top 2 bits from the top of
// bytes j - 4 and j.
uvec2 k_scale_min(uint off, uint j) {
  if (j < 4u) return uvec2(u8_at(off + j), u8_at(off + j + 4u)) & 63u;
  const uint b = u8_at(off + j + 4u);
  return uvec2((b & 0x0fu) | ((u8_at(off + j - 4u) >> 6) << 4), (b >> 4) | ((u8_at(off + j) >> 6) << 4));
}

// Sub-block j's step d * sc and offset dmin * m in a q4_K / q5_K block at byte offset off
// ({f16 d, f16 dmin, scales[12], ...}): its elements are step * q - offset.
vec2 k_sub_scale(uint off, uint j) {
  const uvec2 sm = k_scale_min(off + 4u, j);
  return vec2(f16_at(off) * float(sm.x), f16_at(off + 2u) * float(sm.y));
}

// Sub-block j's (0..7, any value, not only a constant) step d * sc and offset dmin * m of a q4_K
// or q5_K block whose first 16 bytes are `head` ({f16 d, f16 dmin, scales[12]}), as k_sub_scale:
// shifts and selects on the words, no staged bytes (the matvec's code-word form).
vec2 k_group_step_offset(uvec4 head, uint j) {
  const uint at = 8u * (j & 3u);
  const uint a = (head.y >> at) & 0xffu, b = (head.z >> at) & 0xffu, c = (head.w >> at) & 0xffu;
  const uvec2 low = uvec2(a, b) & 63u;
  const uvec2 high = uvec2((c & 0x0fu) | ((a >> 6) << 4), (c >> 4) | ((b >> 6) << 4));
  return f16x2_to_f32(head.x) * vec2(j < 4u ? low : high);
}

// The little-endian u32 at any byte offset off (blocks of odd size, mxfp4's 17 bytes, start at
// any byte): two words when off is not a multiple of 4.
uint u32_at_any(uint off) {
  const uint i = off >> 2;
  const uint s = (off & 3u) << 3;
  if (s == 0u) return WEIGHT_WORD(i);
  return (WEIGHT_WORD(i) >> s) | (WEIGHT_WORD(i + 1u) << (32u - s));
}

// ggml's kvalues_iq4nl (ggml-common.h), the 16 levels of iq4_nl and iq4_xs codes.
const int KVALUES_IQ4NL[16] =
    int[16](-127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113);
// The levels of four codes, from the same values packed as signed bytes, code 4i + j in byte j of
// word i: indexed by a code that differs between invocations, the array above became per-element
// branches on llvmpipe (its iq4_nl matvec ran at 0.54 of q4_0's).
vec4 iq4nl_values4(uvec4 q) {
  const bvec4 odd_word = notEqual(q & 4u, uvec4(0u)), upper_half = notEqual(q & 8u, uvec4(0u));
  const uvec4 lower = mix(uvec4(0xbfad9881u), uvec4(0xf6eaddcfu), odd_word);
  const uvec4 upper = mix(uvec4(0x26190d01u), uvec4(0x71594535u), odd_word);
  const uvec4 word = mix(lower, upper, upper_half);
  return vec4(ivec4(word << (24u - 8u * (q & 3u))) >> 24);
}

#ifdef GAUNTLET_KV_ENCODE
// ggml's best_index_int8 over kvalues_iq4nl: the nearest of the 16 levels (the upper on ties).
uint iq4nl_nearest(float x) {
  if (x <= float(KVALUES_IQ4NL[0])) return 0u;
  if (x >= float(KVALUES_IQ4NL[15])) return 15u;
  int lo = 0, hi = 15;
  while (hi - lo > 1) {
    const int mid = (lo + hi) / 2;
    if (x < float(KVALUES_IQ4NL[mid])) {
      hi = mid;
    } else {
      lo = mid;
    }
  }
  return uint(x - float(KVALUES_IQ4NL[hi - 1]) < float(KVALUES_IQ4NL[hi]) - x ? hi - 1 : hi);
}
#endif
