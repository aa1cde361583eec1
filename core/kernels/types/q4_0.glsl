// q4_0: 32 elements in 18 bytes {f16 d, u8 qs[16]}; byte i holds element i in its low nibble and
// element i + 16 in its high nibble; value = (q - 8) * d. Follows ggml's dequantize_row_q4_0.
const uint BLOCK_ELEMS = 32u;
const uint BLOCK_BYTES = 18u;

// Elements [16c, 16c + 16), c in {0, 1} (low nibbles, then high): column k holds
// [16c + 4k, 16c + 4k + 4).
mat4 decode16(uint off, uint c) {
  const float d = f16_at(off);
  mat4 r;
  for (uint k = 0u; k < 4u; ++k) {
    const uint q = (u32_at(off + 2u + 4u * k) >> (4u * c)) & 0x0f0f0f0fu;
    r[k] = vec4(ivec4(u8x4(q)) - 8) * d;
  }
  return r;
}

float value_at(uint off, uint j) {
  const uint q = (u8_at(off + 2u + (j & 15u)) >> (4u * (j >> 4))) & 0x0fu;
  return float(int(q) - 8) * f16_at(off);
}

#ifdef GAUNTLET_KV_ENCODE
// The KV cache's writer: ggml's quantize_row_q4_0_ref (d = max / -8, max the element of largest
// magnitude; codes min(15, int(x / d + 8.5))).
void encode_block(float x[32], uint off) {
  float amax = 0.0, mx = 0.0;
  for (uint j = 0u; j < 32u; ++j) {
    if (amax < abs(x[j])) {
      amax = abs(x[j]);
      mx = x[j];
    }
  }
  const float d = mx / -8.0;
  const float id = d != 0.0 ? 1.0 / d : 0.0;
  const uint h = packHalf2x16(vec2(d, 0.0));
  PUT_BYTE(off, h & 0xffu);
  PUT_BYTE(off + 1u, (h >> 8) & 0xffu);
  for (uint j = 0u; j < 16u; ++j) {
    const uint lo = uint(min(15, int(x[j] * id + 8.5)));
    const uint hi = uint(min(15, int(x[j + 16u] * id + 8.5)));
    PUT_BYTE(off + 2u + j, lo | (hi << 4));
  }
}
#endif
