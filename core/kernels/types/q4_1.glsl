// q4_1: 32 elements in 20 bytes {f16 d, f16 m, u8 qs[16]}; nibbles as in q4_0;
// value = q * d + m. Follows ggml's dequantize_row_q4_1 (q * d is exact, so a fused
// multiply-add gives the same value).
const uint BLOCK_ELEMS = 32u;
const uint BLOCK_BYTES = 20u;

// Elements [16c, 16c + 16), c in {0, 1} (low nibbles, then high): column k holds
// [16c + 4k, 16c + 4k + 4).
mat4 decode16(uint off, uint c) {
  const float d = f16_at(off), m = f16_at(off + 2u);
  mat4 r;
  for (uint k = 0u; k < 4u; ++k) {
    const uint q = (u32_at(off + 4u + 4u * k) >> (4u * c)) & 0x0f0f0f0fu;
    r[k] = vec4(u8x4(q)) * d + m;
  }
  return r;
}

float value_at(uint off, uint j) {
  const uint q = (u8_at(off + 4u + (j & 15u)) >> (4u * (j >> 4))) & 0x0fu;
  return float(q) * f16_at(off) + f16_at(off + 2u);
}

#ifdef GAUNTLET_KV_ENCODE
// The KV cache's writer: ggml's quantize_row_q4_1_ref (d = (max - min) / 15, m = min; codes
// min(15, int((x - min) / d + 0.5))).
void encode_block(float x[32], uint off) {
  float lo = x[0], hi = x[0];
  for (uint j = 1u; j < 32u; ++j) {
    lo = min(lo, x[j]);
    hi = max(hi, x[j]);
  }
  const float d = (hi - lo) / 15.0;
  const float id = d != 0.0 ? 1.0 / d : 0.0;
  const uint h = packHalf2x16(vec2(d, lo));
  for (uint k = 0u; k < 4u; ++k) PUT_BYTE(off + k, (h >> (8u * k)) & 0xffu);
  for (uint j = 0u; j < 16u; ++j) {
    const uint a = uint(min(15, int((x[j] - lo) * id + 0.5)));
    const uint b = uint(min(15, int((x[j + 16u] - lo) * id + 0.5)));
    PUT_BYTE(off + 4u + j, a | (b << 4));
  }
}
#endif
