// iq4_xs: 256 elements in 136 bytes {f16 d, u16 scales_h, u8 scales_l[4], u8 qs[128]}: 8 blocks
// of 32; block i's 6-bit level ls has its low 4 bits in nibble i % 2 of scales_l[i / 2] and its
// top 2 bits in bits 2i of scales_h; its codes are qs[16i, 16i + 16), low nibbles first;
// value = (d * (ls - 32)) * kvalues_iq4nl[code]. Follows ggml's dequantize_row_iq4_xs (the
// product with the level may round: the step is computed first, as there).
const uint BLOCK_ELEMS = 256u;
const uint BLOCK_BYTES = 136u;

// Block i's step d * (ls - 32).
float iq4_xs_step(uint off, uint i) {
  const uint low = (u8_at(off + 4u + (i >> 1)) >> (4u * (i & 1u))) & 0x0fu;
  const uint high = (u16_at(off + 2u) >> (2u * i)) & 3u;
  return f16_at(off) * float(int(low | (high << 4)) - 32);
}

// Elements [16c, 16c + 16), c in 0..15 (block c / 2, low nibbles for c even): column k holds
// [16c + 4k, 16c + 4k + 4).
mat4 decode16(uint off, uint c) {
  const float step = iq4_xs_step(off, c >> 1);
  const uint base = off + 8u + 16u * (c >> 1);
  mat4 r;
  for (uint k = 0u; k < 4u; ++k) {
    r[k] = step * iq4nl_values4((u8x4(u32_at(base + 4u * k)) >> (4u * (c & 1u))) & 0x0fu);
  }
  return r;
}

float value_at(uint off, uint j) {
  const uint q = (u8_at(off + 8u + 16u * (j >> 5) + (j & 15u)) >> (4u * ((j >> 4) & 1u))) & 0x0fu;
  return iq4_xs_step(off, j >> 5) * float(KVALUES_IQ4NL[q]);
}
