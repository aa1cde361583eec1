// nvfp4: 64 elements in 36 bytes {u8 d[4], u8 qs[32]}: four sub-blocks of 16, each with a UE4M3
// scale d[s] and its E2M1 codes in qs[8s .. 8s + 7], element 16s + j in the low nibble of byte
// 8s + j and element 16s + 8 + j in its high nibble; value = kvalues_fp4[code] * UE4M3(d[s]) / 2
// (the E2M1 values doubled, as mxfp4's: 0, 1, 2, 3, 4, 6, 8, 12, then their negatives from code
// 8). Follows ggml's dequantize_row_nvfp4 and ggml_ue4m3_to_fp32: bits 3..6 are the exponent
// (bias 7) and bits 0..2 the mantissa, the top bit is ignored, 0x7f (E4M3's NaN) is 0. Every scale
// and value is exact and normal (the smallest nonzero value is 2^-10), so a plain multiply gives
// the host's bits. Blocks are 4-byte aligned.
#define BLOCK_ELEMS 64
#define BLOCK_BYTES 36

// ggml_ue4m3_to_fp32: the scale, halved: exponent field 0 is m * 2^-10, else
// (1 + m / 8) * 2^(e - 8), built from its bits.
GAUNTLET_INLINE float nvfp4_scale(uint x) {
  const uint e = (x >> 3) & 15u, m = x & 7u;
  const float v = e == 0u ? (float)m * 0x1.0p-10f : as_float(((e + 119u) << 23) | (m << 20));
  return x == 0x7fu ? 0.0f : v;
}

// kvalues_fp4 of 16 codes (each 0..15) as floats: |value| for m = code & 7 is
// m + max(m - 4, 0) + 2 max(m - 6, 0) (0, 1, 2, 3, 4, 6, 8, 12); codes 8..15 are negative (8 is
// 0).
GAUNTLET_INLINE float16 nvfp4_values16(uchar16 code) {
  const uchar16 m = code & (uchar)7;
  const char16 magnitude =
      as_char16(m + sub_sat(m, (uchar)4) + (sub_sat(m, (uchar)6) << (uchar)1));
  return convert_float16(code >= (uchar)8 ? -magnitude : magnitude);
}

// Elements [16c, 16c + 16), c in 0..3: sub-block c.
GAUNTLET_INLINE float16 decode16(const __global uchar* blk, uint c) {
  const uchar8 q = vload8(0, blk + 4 + 8 * c);
  return nvfp4_values16((uchar16)(q & (uchar)15, q >> (uchar)4)) * nvfp4_scale(blk[c]);
}

GAUNTLET_INLINE float value_at(const __global uchar* blk, uint j) {
  const uint s = j >> 4, i = j & 15u;
  const uint code = (blk[4 + 8 * s + (i & 7u)] >> (4u * (i >> 3))) & 15u;
  const uint m = code & 7u;
  const int magnitude = (int)(m + (m > 4u ? m - 4u : 0u) + (m > 6u ? 2u * (m - 6u) : 0u));
  return (float)(code >= 8u ? -magnitude : magnitude) * nvfp4_scale(blk[s]);
}
