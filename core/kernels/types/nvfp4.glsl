// nvfp4: 64 elements in 36 bytes {u8 d[4], u8 qs[32]}: four sub-blocks of 16, each with a UE4M3
// scale d[s] and its E2M1 codes in qs[8s .. 8s + 7], element 16s + j in the low nibble of byte
// 8s + j and element 16s + 8 + j in its high nibble; value = kvalues_fp4[code] * UE4M3(d[s]) / 2
// (the E2M1 values doubled, as mxfp4's: 0, 1, 2, 3, 4, 6, 8, 12, then their negatives from code
// 8). Follows ggml's dequantize_row_nvfp4 and ggml_ue4m3_to_fp32: bits 3..6 are the exponent
// (bias 7) and bits 0..2 the mantissa, the top bit is ignored, 0x7f (E4M3's NaN) is 0. Every scale
// and value is exact and normal (the smallest nonzero value is 2^-10), so a plain multiply gives
// the host's bits. Blocks are 4-byte aligned.
const uint BLOCK_ELEMS = 64u;
const uint BLOCK_BYTES = 36u;

// ggml_ue4m3_to_fp32: the scale, halved: exponent field 0 is m * 2^-10, else
// (1 + m / 8) * 2^(e - 8), built from its bits.
float nvfp4_scale(uint x) {
  const uint e = (x >> 3) & 15u, m = x & 7u;
  float v = uintBitsToFloat(((e + 119u) << 23) | (m << 20));
  if (e == 0u) v = float(m) * uintBitsToFloat(0x3a800000u);  // 2^-10
  return x == 0x7fu ? 0.0 : v;
}

// kvalues_fp4 of four codes, a byte each (each 0..15), computed on the word's four bytes at once
// (no table: llvmpipe turns a table indexed by a variable into branches): with m = code & 7,
// |value| is m + max(m - 4, 0) + 2 max(m - 6, 0) (0, 1, 2, 3, 4, 6, 8, 12), plus 12 for a
// positive code and 12 less it for a negative one (8..15), so every byte stays in 0..24.
vec4 nvfp4_values4(uint codes) {
  const uint m = codes & 0x07070707u;
  const uint at_least_4 = (m >> 2) & 0x01010101u;
  const uint over_4 = m & 0x03030303u & (at_least_4 * 3u);
  const uint is_7 = at_least_4 & (m >> 1) & m;
  const uint magnitude = m + over_4 + (is_7 << 1);
  const uint negative = (codes >> 3) & 0x01010101u;
  return vec4(u8x4(0x0c0c0c0cu + magnitude - ((magnitude & (negative * 0xffu)) << 1))) - 12.0;
}

// Elements [16c, 16c + 16), c in 0..3 (sub-block c): column k holds [16c + 4k, 16c + 4k + 4),
// the low nibbles of bytes 4k .. 4k + 3 of the sub-block's codes for k < 2, then the high ones.
mat4 decode16(uint off, uint c) {
  const float d = nvfp4_scale(u8_at(off + c));
  mat4 r;
  for (uint k = 0u; k < 4u; ++k) {
    const uint word = u32_at(off + 4u + 8u * c + 4u * (k & 1u));
    r[k] = nvfp4_values4((word >> (4u * (k >> 1))) & 0x0f0f0f0fu) * d;
  }
  return r;
}

float value_at(uint off, uint j) {
  const uint s = j >> 4, i = j & 15u;
  const uint code = (u8_at(off + 4u + 8u * s + (i & 7u)) >> (4u * (i >> 3))) & 15u;
  return nvfp4_values4(code)[0] * nvfp4_scale(u8_at(off + s));
}
