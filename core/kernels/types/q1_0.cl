// q1_0: 128 elements in 18 bytes {f16 d, u8 qs[16]}: element j is bit j % 8 of qs[j / 8]; value =
// d where it is set, -d where not. Follows ggml's dequantize_row_q1_0 (core/types/
// low_bit_quants.cpp). Blocks are 2-byte aligned.
#define BLOCK_ELEMS 128
#define BLOCK_BYTES 18

// Elements [16c, 16c + 16), c in 0..7: the bits of qs[2c] and qs[2c + 1].
GAUNTLET_INLINE float16 decode16(const __global uchar* blk, uint c) {
  const uint bits = load_u16(blk + 2 + 2 * c);
  const uint16 j = (uint16)(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  const float d = load_f16(blk);
  return ((((uint16)bits >> j) & 1u) != 0u) ? (float16)d : (float16)(-d);
}

GAUNTLET_INLINE float value_at(const __global uchar* blk, uint j) {
  const float d = load_f16(blk);
  return (blk[2 + (j >> 3)] >> (j & 7)) & 1u ? d : -d;
}
