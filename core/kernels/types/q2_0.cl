// q2_0: 64 elements in 18 bytes {f16 d, u8 qs[16]}: element j is the 2-bit code q at bits
// 2 (j % 4) of qs[j / 4]; value = (float)(q - 1) * d. Follows ggml's dequantize_row_q2_0
// (core/types/low_bit_quants.cpp; the products are exact but for a zero code times a negative d,
// -0 as on the host). Blocks are 2-byte aligned.
#define BLOCK_ELEMS 64
#define BLOCK_BYTES 18

// Elements [16c, 16c + 16), c in 0..3: the codes of qs[4c .. 4c + 3].
GAUNTLET_INLINE float16 decode16(const __global uchar* blk, uint c) {
  const uint bits = load_u32(blk + 2 + 4 * c);
  const uint16 j = (uint16)(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  const int16 q = convert_int16(((uint16)bits >> (j << 1)) & 3u);
  return convert_float16(q - 1) * load_f16(blk);
}

GAUNTLET_INLINE float value_at(const __global uchar* blk, uint j) {
  const int q = (blk[2 + (j >> 2)] >> (2 * (j & 3))) & 3;
  return (float)(q - 1) * load_f16(blk);
}
