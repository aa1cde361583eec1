// q5_0: 32 elements in 22 bytes {f16 d, u8 qh[4], u8 qs[16]}; nibbles as in q4_0, and bit j of
// the little-endian u32 qh is the fifth bit of element j; value = (q - 16) * d. Follows ggml's
// dequantize_row_q5_0.
const uint BLOCK_ELEMS = 32u;
const uint BLOCK_BYTES = 22u;

// Elements [16c, 16c + 16), c in {0, 1} (low nibbles and qh bits 0..15, then high nibbles and
// bits 16..31): column k holds [16c + 4k, 16c + 4k + 4).
mat4 decode16(uint off, uint c) {
  const float d = f16_at(off);
  const uint qh = u32_at(off + 2u) >> (16u * c);
  mat4 r;
  for (uint k = 0u; k < 4u; ++k) {
    const uint lo = (u32_at(off + 6u + 4u * k) >> (4u * c)) & 0x0f0f0f0fu;
    const uvec4 hi = ((uvec4(qh >> (4u * k)) >> uvec4(0u, 1u, 2u, 3u)) & 1u) << 4;
    r[k] = vec4(ivec4(u8x4(lo) | hi) - 16) * d;
  }
  return r;
}

float value_at(uint off, uint j) {
  const uint lo = (u8_at(off + 6u + (j & 15u)) >> (4u * (j >> 4))) & 0x0fu;
  const uint hi = ((u32_at(off + 2u) >> j) & 1u) << 4;
  return float(int(lo | hi) - 16) * f16_at(off);
}

#ifdef GAUNTLET_KV_ENCODE
// The KV cache's writer: ggml's quantize_row_q5_0_ref (d = max / -16; codes
// min(31, int(x / d + 16.5)), the fifth bits in qh).
void encode_block(float x[32], uint off) {
  float amax = 0.0, mx = 0.0;
  for (uint j = 0u; j < 32u; ++j) {
    if (amax < abs(x[j])) {
      amax = abs(x[j]);
      mx = x[j];
    }
  }
  const float d = mx / -16.0;
  const float id = d != 0.0 ? 1.0 / d : 0.0;
  const uint h = packHalf2x16(vec2(d, 0.0));
  PUT_BYTE(off, h & 0xffu);
  PUT_BYTE(off + 1u, (h >> 8) & 0xffu);
  uint qh = 0u;
  for (uint j = 0u; j < 16u; ++j) {
    const uint a = uint(min(31, int(x[j] * id + 16.5)));
    const uint b = uint(min(31, int(x[j + 16u] * id + 16.5)));
    PUT_BYTE(off + 6u + j, (a & 15u) | ((b & 15u) << 4));
    qh |= ((a >> 4) << j) | ((b >> 4) << (j + 16u));
  }
  for (uint k = 0u; k < 4u; ++k) PUT_BYTE(off + 2u + k, (qh >> (8u * k)) & 0xffu);
}
#endif
