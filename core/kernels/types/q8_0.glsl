// q8_0: 32 elements in 34 bytes {f16 d, i8 qs[32]}; value = q * d. Follows ggml's
// dequantize_row_q8_0.
const uint BLOCK_ELEMS = 32u;
const uint BLOCK_BYTES = 34u;

// Elements [16c, 16c + 16), c in {0, 1}: column k holds [16c + 4k, 16c + 4k + 4).
mat4 decode16(uint off, uint c) {
  const float d = f16_at(off);
  const uint base = off + 2u + 16u * c;
  mat4 r;
  for (uint k = 0u; k < 4u; ++k) r[k] = vec4(i8x4(u32_at(base + 4u * k))) * d;
  return r;
}

float value_at(uint off, uint j) {
  const int q = int(u8_at(off + 2u + j) << 24) >> 24;
  return float(q) * f16_at(off);
}
