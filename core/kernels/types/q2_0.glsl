// q2_0: 64 elements in 18 bytes {f16 d, u8 qs[16]}: element j is the 2-bit code q at bits
// 2 (j % 4) of qs[j / 4]; value = float(q - 1) * d. Follows ggml's dequantize_row_q2_0
// (core/types/low_bit_quants.cpp; a zero code times a negative d is -0 as on the host). Blocks are
// 2-byte aligned.
const uint BLOCK_ELEMS = 64u;
const uint BLOCK_BYTES = 18u;

// Elements [16c, 16c + 16), c in 0..3: the codes of qs[4c .. 4c + 3]; column k holds those of
// qs[4c + k].
mat4 decode16(uint off, uint c) {
  const float d = f16_at(off);
  const uint word = u32_at(off + 2u + 4u * c);
  mat4 r;
  for (uint k = 0u; k < 4u; ++k) {
    r[k] = (vec4((uvec4(word >> (8u * k)) >> uvec4(0u, 2u, 4u, 6u)) & 3u) - 1.0) * d;
  }
  return r;
}

float value_at(uint off, uint j) {
  const uint q = (u8_at(off + 2u + (j >> 2)) >> (2u * (j & 3u))) & 3u;
  return (float(q) - 1.0) * f16_at(off);
}
