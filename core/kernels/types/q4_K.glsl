// q4_K: 256 elements in 144 bytes {f16 d, f16 dmin, u8 scales[12], u8 qs[128]}: 8 sub-blocks of
// 32 with a 6-bit scale sc and min m each (k_scale_min); 64 elements [64i, 64i + 64) come from
// qs[32i .. 32i + 32), the first 32 from the low nibbles, the next 32 from the high ones;
// value = (d * sc) * q - dmin * m. Follows ggml's dequantize_row_q4_K (the products are exact, so
// a fused multiply-add gives the same value).
const uint BLOCK_ELEMS = 256u;
const uint BLOCK_BYTES = 144u;

// Elements [16c, 16c + 16), c in 0..15 (sub-block c / 2): column k holds
// [16c + 4k, 16c + 4k + 4).
mat4 decode16(uint off, uint c) {
  const uint sub = c >> 1;
  const vec2 dm = k_sub_scale(off, sub);
  const uint base = off + 16u + 32u * (c >> 2) + 16u * (c & 1u);
  mat4 r;
  for (uint k = 0u; k < 4u; ++k) {
    const uint q = (u32_at(base + 4u * k) >> (4u * (sub & 1u))) & 0x0f0f0f0fu;
    r[k] = dm.x * vec4(u8x4(q)) - dm.y;
  }
  return r;
}

// The matvec's code-word form (engine_matvec_blocks.glsl's BLOCK_CODE_WORDS), for blocks read as
// 16-byte vectors from `off`: sub-block g's 32 codes in eight words (byte k of word j the code of
// element 32g + 4j + k), its values step * code - offset (k_group_step_offset of the block's first
// vector; where the body reads weight_vector). Sub-blocks 2p and 2p + 1 are the low and high
// nibbles of the 32 bytes at 16 + 32p.
#ifdef WEIGHT_VECTORS
#define BLOCK_CODE_WORDS 1
void group_codes(uint off, uint g, out uvec4 first, out uvec4 second) {
  const uint v = (off >> 4) + 1u + 2u * (g >> 1);
  const uint shift = 4u * (g & 1u);
  first = (weight_vector(v) >> shift) & 0x0f0f0f0fu;
  second = (weight_vector(v + 1u) >> shift) & 0x0f0f0f0fu;
}
vec2 group_step_offset(uvec4 head, uint g) { return k_group_step_offset(head, g); }
#endif

float value_at(uint off, uint j) {
  const uint sub = j >> 5;
  const vec2 dm = k_sub_scale(off, sub);
  const uint q = (u8_at(off + 16u + 32u * (j >> 6) + (j & 31u)) >> (4u * (sub & 1u))) & 0x0fu;
  return dm.x * float(q) - dm.y;
}
