// q5_K: 256 elements in 176 bytes {f16 d, f16 dmin, u8 scales[12], u8 qh[32], u8 qs[128]}: the
// sub-blocks, scales, mins and nibbles of q4_K (qs at byte 48), and bit s of qh[l] is the fifth
// bit of element 32s + l; value = (d * sc) * q - dmin * m. Follows ggml's dequantize_row_q5_K
// (the products are exact, so a fused multiply-add gives the same value).
const uint BLOCK_ELEMS = 256u;
const uint BLOCK_BYTES = 176u;

// Elements [16c, 16c + 16), c in 0..15 (sub-block c / 2): column k holds
// [16c + 4k, 16c + 4k + 4).
mat4 decode16(uint off, uint c) {
  const uint sub = c >> 1;
  const vec2 dm = k_sub_scale(off, sub);
  const uint ql = off + 48u + 32u * (c >> 2) + 16u * (c & 1u);
  const uint qh = off + 16u + 16u * (c & 1u);
  mat4 r;
  for (uint k = 0u; k < 4u; ++k) {
    const uint lo = (u32_at(ql + 4u * k) >> (4u * (sub & 1u))) & 0x0f0f0f0fu;
    const uint hi = ((u32_at(qh + 4u * k) >> sub) & 0x01010101u) << 4;
    r[k] = dm.x * vec4(u8x4(lo | hi)) - dm.y;
  }
  return r;
}

// The matvec's code-word form (engine_matvec_blocks.glsl's BLOCK_CODE_WORDS; as q4_K's, the low
// nibbles from the 32 bytes at 48 + 32 * (g / 2)), bit g of the 32 bytes qh at 16 the fifth bit.
#ifdef WEIGHT_VECTORS
#define BLOCK_CODE_WORDS 1
void group_codes(uint off, uint g, out uvec4 first, out uvec4 second) {
  const uint v = (off >> 4) + 3u + 2u * (g >> 1);
  const uint shift = 4u * (g & 1u);
  first = ((weight_vector(v) >> shift) & 0x0f0f0f0fu) |
          (((weight_vector((off >> 4) + 1u) >> g) & 0x01010101u) << 4);
  second = ((weight_vector(v + 1u) >> shift) & 0x0f0f0f0fu) |
           (((weight_vector((off >> 4) + 2u) >> g) & 0x01010101u) << 4);
}
vec2 group_step_offset(uvec4 head, uint g) { return k_group_step_offset(head, g); }
#endif

float value_at(uint off, uint j) {
  const uint sub = j >> 5;
  const vec2 dm = k_sub_scale(off, sub);
  const uint lo = (u8_at(off + 48u + 32u * (j >> 6) + (j & 31u)) >> (4u * (sub & 1u))) & 0x0fu;
  const uint hi = ((u8_at(off + 16u + (j & 31u)) >> sub) & 1u) << 4;
  return dm.x * float(lo | hi) - dm.y;
}
