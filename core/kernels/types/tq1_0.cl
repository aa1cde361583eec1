// tq1_0: 256 elements in 54 bytes {u8 qs[48], u8 qh[4], f16 d}: a byte holds five trits (qh's
// four) as a fixed-point fraction; trit n of byte b is ((uchar)(b * 3^n) * 3) >> 8 (0, 1, 2 for
// -1, 0, +1). qs[0..31] give elements 32n + m (trit n of byte m), qs[32..47] elements
// 160 + 16n + m, qh[0..3] elements 240 + 4n + m; value = (float)(trit - 1) * d. Follows ggml's
// dequantize_row_tq1_0 (the products are exact; a zero trit times a negative d is -0 as on the
// host). Blocks are 2-byte aligned.
#define BLOCK_ELEMS 256
#define BLOCK_BYTES 54

// 3^n for n in 0..4.
GAUNTLET_INLINE uchar tq1_pow3(uint n) {
  return n == 0u ? 1 : n == 1u ? 3 : n == 2u ? 9 : n == 3u ? 27 : 81;
}

// Elements [16c, 16c + 16), c in 0..15: chunks 0..9 are qs[0..15] or qs[16..31] (c odd) under
// trit c / 2, chunks 10..14 qs[32..47] under trit c - 10, chunk 15 the four qh bytes under trits
// 0..3 in turn. In the matvec's unrolled chunk loop c is a constant and the choice folds.
GAUNTLET_INLINE float16 decode16(const __global uchar* blk, uint c) {
  uchar16 b, p;
  if (c < 10u) {
    b = vload16(0, blk + 16 * (c & 1u));
    p = (uchar16)(tq1_pow3(c >> 1));
  } else if (c < 15u) {
    b = vload16(0, blk + 32);
    p = (uchar16)(tq1_pow3(c - 10u));
  } else {
    const uchar4 h = vload4(0, blk + 48);
    b = (uchar16)(h, h, h, h);
    p = (uchar16)(1, 1, 1, 1, 3, 3, 3, 3, 9, 9, 9, 9, 27, 27, 27, 27);
  }
  const ushort16 q = convert_ushort16(b * p);  // the byte product wraps mod 256 as ggml's uint8_t
  const int16 t = convert_int16((q * (ushort)3) >> (ushort)8);
  return convert_float16(t - 1) * load_f16(blk + 52);
}

GAUNTLET_INLINE float value_at(const __global uchar* blk, uint j) {
  uint byte, n;
  if (j < 160u) {
    byte = j & 31u;
    n = j >> 5;
  } else if (j < 240u) {
    byte = 32u + ((j - 160u) & 15u);
    n = (j - 160u) >> 4;
  } else {
    byte = 48u + ((j - 240u) & 3u);
    n = (j - 240u) >> 2;
  }
  const uint q = (uchar)(blk[byte] * tq1_pow3(n));
  return (float)((int)((q * 3u) >> 8) - 1) * load_f16(blk + 52);
}
