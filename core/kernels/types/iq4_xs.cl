// iq4_xs: 256 elements in 136 bytes {f16 d, u16 scales_h, u8 scales_l[4], u8 qs[128]}: 8 blocks
// of 32; block i's 6-bit level ls has its low 4 bits in nibble i % 2 of scales_l[i / 2] and its
// top 2 bits in bits 2i of scales_h; its codes are qs[16i, 16i + 16), low nibbles first;
// value = (d * (ls - 32)) * kvalues_iq4nl[code]. Follows ggml's dequantize_row_iq4_xs (the
// product with the level may round: the step is computed first, as there).
#define BLOCK_ELEMS 256
#define BLOCK_BYTES 136

// Block i's step d * (ls - 32).
GAUNTLET_INLINE float iq4_xs_step(const __global uchar* blk, uint i) {
  const uint low = (blk[4 + (i >> 1)] >> (4 * (i & 1))) & 0x0fu;
  const uint high = (load_u16(blk + 2) >> (2 * i)) & 3u;
  return load_f16(blk) * (float)((int)(low | (high << 4)) - 32);
}

// Elements [16c, 16c + 16), c in 0..15: block c / 2, its low nibbles (c even) or high ones.
GAUNTLET_INLINE float16 decode16(const __global uchar* blk, uint c) {
  const uchar16 q = (vload16(0, blk + 8 + 16 * (c >> 1)) >> (uchar)(4 * (c & 1))) & (uchar)0x0f;
  return iq4_xs_step(blk, c >> 1) * iq4nl_values16(q);
}

GAUNTLET_INLINE float value_at(const __global uchar* blk, uint j) {
  const uint q = (blk[8 + 16 * (j >> 5) + (j & 15)] >> (4 * ((j >> 4) & 1))) & 0x0fu;
  return iq4_xs_step(blk, j >> 5) * (float)kvalues_iq4nl[q];
}
