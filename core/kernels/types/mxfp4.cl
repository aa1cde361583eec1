// mxfp4: 32 elements in 17 bytes {u8 e, u8 qs[16]} (blocks are only byte aligned); byte i holds
// element i's E2M1 code in its low nibble and element i + 16's in its high nibble; value =
// kvalues_mxfp4[code] * 2^(e - 128) (ggml's E2M1 values doubled times GGML_E8M0_TO_FP32_HALF(e)).
// Follows ggml's dequantize_row_mxfp4. The value is built from its bits, not multiplied: with e
// 0 or 1 the scale and small products are subnormal, which a device without subnormal support
// (optional in OpenCL's single precision: CL_FP_DENORM) flushes; PoCL keeps them, and a plain
// multiply also matched there. Built, every value is the host's float product bit for bit (the
// products are exact, and the overflow 12 * 2^127 is infinity).
#define BLOCK_ELEMS 32
#define BLOCK_BYTES 17

// |kvalues_mxfp4[code]| for code & 7, and its bits as a float.
__constant uint kmxfp4_magnitude[8] = {0, 1, 2, 3, 4, 6, 8, 12};
__constant uint kmxfp4_bits[8] = {0x00000000u, 0x3f800000u, 0x40000000u, 0x40400000u,
                                  0x40800000u, 0x40c00000u, 0x41000000u, 0x41400000u};

// The magnitude's exponent field E becomes E + e - 128: 255 or more is infinity, 0 or less a
// subnormal, m * 2^(e + 21) units of 2^-149. Codes 8..15 are negative; code 8 is +0, as ggml's
// int8 table holds 0 there.
GAUNTLET_INLINE float mxfp4_value(uint code, uint e) {
  const uint fm = kmxfp4_bits[code & 7u];
  if (fm == 0u) return 0.0f;
  const int exponent = (int)(fm >> 23) + (int)e - 128;
  const uint bits = exponent >= 255 ? 0x7f800000u
                    : exponent >= 1 ? fm + ((uint)((int)e - 128) << 23)
                                    : kmxfp4_magnitude[code & 7u] << (e + 21u);
  return as_float(bits | (code >= 8u ? 0x80000000u : 0u));
}

#define BLOCK_SCALED_CODES 1
// The matvec's factored form (engine_matvec.cl's BLOCK_SCALED_CODES): a block's values are its
// signed codes (E2M1 doubled: 0, +-1, +-2, +-3, +-4, +-6, +-8, +-12) times 2^(e - 128), applied
// once to the block's sum of code products. A power of two scales exactly, so the sums are
// decode16's wherever the products and the sum are normal floats; only a subnormal result
// (e < 2) or an overflow (e > 252: a code times the scale is infinity in decode16) can round
// differently.
GAUNTLET_INLINE float16 codes16(const __global uchar* blk, uint c) {
  const uchar16 code = (vload16(0, blk + 1) >> (uchar)(4 * c)) & (uchar)0x0f;
#ifdef GAUNTLET_BYTE_LOOKUP16
  // The map below was the whole of mxfp4's gap to q4_0 on PoCL.
  return convert_float16(byte_lookup16(
      (char16)(0, 1, 2, 3, 4, 6, 8, 12, 0, -1, -2, -3, -4, -6, -8, -12), code));
#else
  // |value| for m = code & 7: m + max(m - 4, 0) + 2 max(m - 6, 0) is 0, 1, 2, 3, 4, 6, 8, 12.
  const uchar16 m = code & (uchar)7;
  const char16 magnitude =
      as_char16(m + sub_sat(m, (uchar)4) + (sub_sat(m, (uchar)6) << (uchar)1));
  return convert_float16(code >= (uchar)8 ? -magnitude : magnitude);
#endif
}

// Elements [16c, 16c + 16), c in {0, 1}: the low nibbles (c = 0) or the high ones (c = 1).
// With e >= 2 the scale 2^(e - 128) is a normal float and every product of it with a code (at
// most 12) is exact or infinity: the codes times the scale give the built bits (code 8 is +0: the
// sign goes on the integer). Smaller scales build each value.
GAUNTLET_INLINE float16 decode16(const __global uchar* blk, uint c) {
  const uint e = blk[0];
  if (e >= 2u) return codes16(blk, c) * as_float((e - 1u) << 23);
  const uchar16 q = (vload16(0, blk + 1) >> (uchar)(4 * c)) & (uchar)0x0f;
  return (float16)(mxfp4_value(q.s0, e), mxfp4_value(q.s1, e), mxfp4_value(q.s2, e),
                   mxfp4_value(q.s3, e), mxfp4_value(q.s4, e), mxfp4_value(q.s5, e),
                   mxfp4_value(q.s6, e), mxfp4_value(q.s7, e), mxfp4_value(q.s8, e),
                   mxfp4_value(q.s9, e), mxfp4_value(q.sa, e), mxfp4_value(q.sb, e),
                   mxfp4_value(q.sc, e), mxfp4_value(q.sd, e), mxfp4_value(q.se, e),
                   mxfp4_value(q.sf, e));
}

// 2^(e - 128), subnormal for e < 2.
GAUNTLET_INLINE float8 e8m0_half8(uint8 e) {
  return as_float8(select((e - 1u) << 23, (uint8)0x00200000u << e, e < 2u));
}
GAUNTLET_INLINE float block_scale(const __global uchar* blk) {
  return e8m0_half8((uint8)(blk[0])).s0;
}
GAUNTLET_INLINE float8 block_scales8(const __global uchar* blk) {
  return e8m0_half8(
      (uint8)(blk[0], blk[17], blk[34], blk[51], blk[68], blk[85], blk[102], blk[119]));
}

GAUNTLET_INLINE float value_at(const __global uchar* blk, uint j) {
  return mxfp4_value((blk[1 + (j & 15)] >> (4 * (j >> 4))) & 0x0fu, blk[0]);
}
