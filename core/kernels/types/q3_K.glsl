// q3_K: 256 elements in 110 bytes {u8 hmask[32], u8 qs[64], u8 scales[12], f16 d} (blocks are
// only 2-byte aligned: every other one starts 2 bytes into a word): 16 sub-blocks of 16 with
// 6-bit scales; scale j's low 4 bits are the low nibble of scales[j] (j < 8) or the high nibble of
// scales[j - 8], its top 2 bits are bits 2 (j / 4) of scales[8 + j % 4]; in half h of 128,
// element 32k + l (k 0..3, l 0..31) takes its low 2 bits from bits 2k of qs[32h + l] and its
// third bit from bit 4h + k of hmask[l]; value = (d * (sc - 32)) * (q - 4). Follows ggml's
// dequantize_row_q3_K (every product is exact).
const uint BLOCK_ELEMS = 256u;
const uint BLOCK_BYTES = 110u;

// Sub-block j's step d * (sc - 32).
float q3_K_step(uint off, uint j) {
  const uint low = j < 8u ? u8_at(off + 96u + j) & 0x0fu : u8_at(off + 88u + j) >> 4;
  const uint high = (u8_at(off + 104u + (j & 3u)) >> (2u * (j >> 2))) & 3u;
  return f16_at(off + 108u) * float(int(low | (high << 4)) - 32);
}

// Elements [16c, 16c + 16), c in 0..15 (sub-block c): column k holds [16c + 4k, 16c + 4k + 4).
mat4 decode16(uint off, uint c) {
  const float step = q3_K_step(off, c);
  const uint qs = off + 32u + 32u * (c >> 3) + 16u * (c & 1u);
  const uint hm = off + 16u * (c & 1u);
  const uint shift = 2u * ((c >> 1) & 3u);
  mat4 r;
  for (uint k = 0u; k < 4u; ++k) {
    const uint lo = (u32_at(qs + 4u * k) >> shift) & 0x03030303u;
    const uint hi = ((u32_at(hm + 4u * k) >> (c >> 1)) & 0x01010101u) << 2;
    r[k] = step * vec4(ivec4(u8x4(lo | hi)) - 4);
  }
  return r;
}

float value_at(uint off, uint j) {
  const uint lo = (u8_at(off + 32u + 32u * (j >> 7) + (j & 31u)) >> (2u * ((j >> 5) & 3u))) & 3u;
  const uint hi = (u8_at(off + (j & 31u)) >> (j >> 5)) & 1u;
  return q3_K_step(off, j >> 4) * float(int(lo | (hi << 2)) - 4);
}
