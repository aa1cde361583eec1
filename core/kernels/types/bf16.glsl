// bf16 weights: the top 16 bits of an f32 per "block" (ggml's GGML_TYPE_BF16,
// ggml_bf16_to_fp32).
const uint BLOCK_ELEMS = 1u;
const uint BLOCK_BYTES = 2u;

// The 16 elements [16c, 16c + 16) from byte offset off: column k holds [16c + 4k, 16c + 4k + 4).
mat4 decode16(uint off, uint c) {
  const uint base = off + 32u * c;
  mat4 r;
  for (uint k = 0u; k < 4u; ++k) {
    const uint a = u32_at(base + 8u * k), b = u32_at(base + 8u * k + 4u);
    r[k] = uintBitsToFloat(uvec4(a << 16, a & 0xffff0000u, b << 16, b & 0xffff0000u));
  }
  return r;
}

float value_at(uint off, uint j) { return bf16_bits_to_f32(u16_at(off + 2u * j)); }
