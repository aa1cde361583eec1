// q1_0: 128 elements in 18 bytes {f16 d, u8 qs[16]}: element j is bit j % 8 of qs[j / 8]; value =
// d where it is set, -d where not. Follows ggml's dequantize_row_q1_0 (core/types/
// low_bit_quants.cpp). Blocks are 2-byte aligned.
const uint BLOCK_ELEMS = 128u;
const uint BLOCK_BYTES = 18u;

// Elements [16c, 16c + 16), c in 0..7: the bits of qs[2c] and qs[2c + 1]; column k holds
// [16c + 4k, 16c + 4k + 4).
mat4 decode16(uint off, uint c) {
  const uint bits = u16_at(off + 2u + 2u * c);
  const float d = f16_at(off);
  mat4 r;
  for (uint k = 0u; k < 4u; ++k) {
    const bvec4 set = notEqual((uvec4(bits) >> (uvec4(0u, 1u, 2u, 3u) + 4u * k)) & 1u, uvec4(0u));
    r[k] = mix(vec4(-d), vec4(d), set);
  }
  return r;
}

float value_at(uint off, uint j) {
  const float d = f16_at(off);
  return ((u8_at(off + 2u + (j >> 3)) >> (j & 7u)) & 1u) != 0u ? d : -d;
}
