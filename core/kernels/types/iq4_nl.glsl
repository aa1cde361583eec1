// iq4_nl: 32 elements in 18 bytes {f16 d, u8 qs[16]}; byte i holds element i's code in its low
// nibble and element i + 16's in its high nibble; value = d * kvalues_iq4nl[code]. Follows ggml's
// dequantize_row_iq4_nl.
const uint BLOCK_ELEMS = 32u;
const uint BLOCK_BYTES = 18u;

// Elements [16c, 16c + 16), c in {0, 1} (low nibbles, then high): column k holds
// [16c + 4k, 16c + 4k + 4).
mat4 decode16(uint off, uint c) {
  const float d = f16_at(off);
  mat4 r;
  for (uint k = 0u; k < 4u; ++k) {
    r[k] = d * iq4nl_values4((u8x4(u32_at(off + 2u + 4u * k)) >> (4u * c)) & 0x0fu);
  }
  return r;
}

float value_at(uint off, uint j) {
  const uint q = (u8_at(off + 2u + (j & 15u)) >> (4u * (j >> 4))) & 0x0fu;
  return f16_at(off) * float(KVALUES_IQ4NL[q]);
}
