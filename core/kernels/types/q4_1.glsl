// q4_1: 32 elements in 20 bytes {f16 d, f16 m, u8 qs[16]}; nibbles as in q4_0;
// value = q * d + m. Follows ggml's dequantize_row_q4_1 (q * d is exact, so a fused
// multiply-add gives the same value).
const uint BLOCK_ELEMS = 32u;
const uint BLOCK_BYTES = 20u;

// Elements [16c, 16c + 16), c in {0, 1} (low nibbles, then high): column k holds
// [16c + 4k, 16c + 4k + 4).
mat4 decode16(uint off, uint c) {
  const float d = f16_at(off), m = f16_at(off + 2u);
  mat4 r;
  for (uint k = 0u; k < 4u; ++k) {
    const uint q = (u32_at(off + 4u + 4u * k) >> (4u * c)) & 0x0f0f0f0fu;
    r[k] = vec4(u8x4(q)) * d + m;
  }
  return r;
}

float value_at(uint off, uint j) {
  const uint q = (u8_at(off + 4u + (j & 15u)) >> (4u * (j >> 4))) & 0x0fu;
  return float(q) * f16_at(off) + f16_at(off + 2u);
}
