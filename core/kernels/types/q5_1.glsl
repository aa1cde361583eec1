// q5_1: 32 elements in 24 bytes {f16 d, f16 m, u8 qh[4], u8 qs[16]}; nibbles and fifth bits as
// in q5_0; value = q * d + m. Follows ggml's dequantize_row_q5_1 (q * d is exact, so a fused
// multiply-add gives the same value).
const uint BLOCK_ELEMS = 32u;
const uint BLOCK_BYTES = 24u;

// Elements [16c, 16c + 16), c in {0, 1} (low nibbles and qh bits 0..15, then high nibbles and
// bits 16..31): column k holds [16c + 4k, 16c + 4k + 4).
mat4 decode16(uint off, uint c) {
  const float d = f16_at(off), m = f16_at(off + 2u);
  const uint qh = u32_at(off + 4u) >> (16u * c);
  mat4 r;
  for (uint k = 0u; k < 4u; ++k) {
    const uint lo = (u32_at(off + 8u + 4u * k) >> (4u * c)) & 0x0f0f0f0fu;
    const uvec4 hi = ((uvec4(qh >> (4u * k)) >> uvec4(0u, 1u, 2u, 3u)) & 1u) << 4;
    r[k] = vec4(u8x4(lo) | hi) * d + m;
  }
  return r;
}

float value_at(uint off, uint j) {
  const uint lo = (u8_at(off + 8u + (j & 15u)) >> (4u * (j >> 4))) & 0x0fu;
  const uint hi = ((u32_at(off + 4u) >> j) & 1u) << 4;
  return float(lo | hi) * f16_at(off) + f16_at(off + 2u);
}
