// tq2_0: 256 elements in 66 bytes {u8 qs[64], f16 d}: one trit a 2-bit code (0, 1, 2 for -1, 0,
// +1); as q2_K's codes, in half h of 128 element 32l + m is bits 2l, 2l + 1 of qs[32h + m];
// value = float(code - 1) * d. Follows ggml's dequantize_row_tq2_0 (the products are exact, and a
// zero trit times a negative d is -0 as on the host). Blocks are 2-byte aligned.
const uint BLOCK_ELEMS = 256u;
const uint BLOCK_BYTES = 66u;

// Elements [16c, 16c + 16), c in 0..15: column k holds [16c + 4k, 16c + 4k + 4).
mat4 decode16(uint off, uint c) {
  const float d = f16_at(off + 64u);
  const uint base = off + 32u * (c >> 3) + 16u * (c & 1u);
  const uint shift = 2u * ((c >> 1) & 3u);
  mat4 r;
  for (uint k = 0u; k < 4u; ++k) {
    const uint q = (u32_at(base + 4u * k) >> shift) & 0x03030303u;
    r[k] = (vec4(u8x4(q)) - 1.0) * d;
  }
  return r;
}

float value_at(uint off, uint j) {
  const uint q = (u8_at(off + 32u * (j >> 7) + (j & 31u)) >> (2u * ((j >> 5) & 3u))) & 3u;
  return (float(q) - 1.0) * f16_at(off + 64u);
}
