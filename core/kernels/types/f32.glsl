// f32 weights: one element per "block", stored as is (ggml's GGML_TYPE_F32).
const uint BLOCK_ELEMS = 1u;
const uint BLOCK_BYTES = 4u;

// The 16 elements [16c, 16c + 16) from byte offset off: column k holds [16c + 4k, 16c + 4k + 4).
mat4 decode16(uint off, uint c) {
  const uint base = off + 64u * c;
  mat4 r;
  for (uint k = 0u; k < 4u; ++k) {
    const uint o = base + 16u * k;
    r[k] = uintBitsToFloat(uvec4(u32_at(o), u32_at(o + 4u), u32_at(o + 8u), u32_at(o + 12u)));
  }
  return r;
}

float value_at(uint off, uint j) { return uintBitsToFloat(u32_at(off + 4u * j)); }
