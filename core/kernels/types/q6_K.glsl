// q6_K: 256 elements in 210 bytes {u8 ql[128], u8 qh[64], i8 scales[16], f16 d}: two halves of
// 128; in half h, element 32k + l (k 0..3, l 0..31) takes its low 4 bits from
// ql[64h + 32(k & 1) + l] (low nibble for k < 2, high for k >= 2) and its top 2 bits from bits
// 2k, 2k + 1 of qh[32h + l]; sub-block e / 16 has the signed scale sc;
// value = (d * sc) * (q - 32). Follows ggml's dequantize_row_q6_K (every product is exact).
const uint BLOCK_ELEMS = 256u;
const uint BLOCK_BYTES = 210u;

float q6_K_scale(uint off, uint s) {
  return f16_at(off + 208u) * float(int(u8_at(off + 192u + s) << 24) >> 24);
}

// Elements [16c, 16c + 16), c in 0..15 (scale c): column k holds [16c + 4k, 16c + 4k + 4).
mat4 decode16(uint off, uint c) {
  const uint h = c >> 3, q = (c >> 1) & 3u, l = 16u * (c & 1u);
  const uint ql = off + 64u * h + 32u * (q & 1u) + l;
  const uint qh = off + 128u + 32u * h + l;
  const float ds = q6_K_scale(off, c);
  mat4 r;
  for (uint k = 0u; k < 4u; ++k) {
    const uint lo = (u32_at(ql + 4u * k) >> (4u * (q >> 1))) & 0x0f0f0f0fu;
    const uint hi = ((u32_at(qh + 4u * k) >> (2u * q)) & 0x03030303u) << 4;
    r[k] = ds * vec4(ivec4(u8x4(lo | hi)) - 32);
  }
  return r;
}

float value_at(uint off, uint j) {
  const uint h = j >> 7, q = (j >> 5) & 3u, l = j & 31u;
  const uint lo = (u8_at(off + 64u * h + 32u * (q & 1u) + l) >> (4u * (q >> 1))) & 0x0fu;
  const uint hi = (u8_at(off + 128u + 32u * h + l) >> (2u * q)) & 3u;
  return q6_K_scale(off, j >> 4) * float(int(lo | (hi << 4)) - 32);
}
