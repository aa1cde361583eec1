// f16 weights: one IEEE binary16 per "block" (ggml's GGML_TYPE_F16, ggml_fp16_to_fp32), widened
// exactly (access.glsl).
const uint BLOCK_ELEMS = 1u;
const uint BLOCK_BYTES = 2u;

// The 16 elements [16c, 16c + 16) from byte offset off: column k holds [16c + 4k, 16c + 4k + 4).
mat4 decode16(uint off, uint c) {
  const uint base = off + 32u * c;
  mat4 r;
  for (uint k = 0u; k < 4u; ++k) {
    const uint a = u32_at(base + 8u * k), b = u32_at(base + 8u * k + 4u);
    r[k] = f16_bits_to_f32(uvec4(a & 0xffffu, a >> 16, b & 0xffffu, b >> 16));
  }
  return r;
}

float value_at(uint off, uint j) { return f16_at(off + 2u * j); }
