// iq4_nl: 32 elements in 18 bytes {f16 d, u8 qs[16]}; byte i holds element i's code in its low
// nibble and element i + 16's in its high nibble; value = d * kvalues_iq4nl[code]. Follows ggml's
// dequantize_row_iq4_nl.
#define BLOCK_ELEMS 32
#define BLOCK_BYTES 18

// Elements [16c, 16c + 16), c in {0, 1}: the low nibbles (c = 0) or the high ones (c = 1).
GAUNTLET_INLINE float16 decode16(const __global uchar* blk, uint c) {
  const uchar16 q = (vload16(0, blk + 2) >> (uchar)(4 * c)) & (uchar)0x0f;
  return load_f16(blk) * iq4nl_values16(q);
}

GAUNTLET_INLINE float value_at(const __global uchar* blk, uint j) {
  const uint q = (blk[2 + (j & 15)] >> (4 * (j >> 4))) & 0x0fu;
  return load_f16(blk) * (float)kvalues_iq4nl[q];
}
