// q2_K: 256 elements in 84 bytes {u8 scales[16], u8 qs[64], f16 d, f16 dmin}: 16 sub-blocks of
// 16; byte c of scales holds sub-block c's 4-bit scale (low nibble) and min (high nibble); in
// half h of 128, element 32k + l (k 0..3, l 0..31) is bits 2k, 2k + 1 of qs[32h + l];
// value = (d * sc) * q - dmin * m. Follows ggml's dequantize_row_q2_K (the products are exact,
// so a fused multiply-add gives the same value). Blocks start on a word.
const uint BLOCK_ELEMS = 256u;
const uint BLOCK_BYTES = 84u;

// Sub-block c's step d * sc and offset dmin * m.
vec2 q2_K_scale(uint off, uint c) {
  const uint sm = u8_at(off + c);
  return f16x2_to_f32(u32_at(off + 80u)) * vec2(float(sm & 0x0fu), float(sm >> 4));
}

// Elements [16c, 16c + 16), c in 0..15 (sub-block c): column k holds [16c + 4k, 16c + 4k + 4).
mat4 decode16(uint off, uint c) {
  const vec2 dm = q2_K_scale(off, c);
  const uint base = off + 16u + 32u * (c >> 3) + 16u * (c & 1u);
  const uint shift = 2u * ((c >> 1) & 3u);
  mat4 r;
  for (uint k = 0u; k < 4u; ++k) {
    const uint q = (u32_at(base + 4u * k) >> shift) & 0x03030303u;
    r[k] = dm.x * vec4(u8x4(q)) - dm.y;
  }
  return r;
}

float value_at(uint off, uint j) {
  const vec2 dm = q2_K_scale(off, j >> 4);
  const uint q = (u8_at(off + 16u + 32u * (j >> 7) + (j & 31u)) >> (2u * ((j >> 5) & 3u))) & 3u;
  return dm.x * float(q) - dm.y;
}
