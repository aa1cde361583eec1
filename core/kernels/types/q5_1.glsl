// q5_1: 32 elements in 24 bytes {f16 d, f16 m, u8 qh[4], u8 qs[16]}; nibbles and fifth bits as
// in q5_0; value = q * d + m. Follows ggml's dequantize_row_q5_1 (q * d is exact, so a fused
// multiply-add gives the same value).
const uint BLOCK_ELEMS = 32u;
const uint BLOCK_BYTES = 24u;

// Elements [16c, 16c + 16), c in {0, 1} (low nibbles and qh bits 0..15, then high nibbles and
// bits 16..31): column k holds [16c + 4k, 16c + 4k + 4).
mat4 decode16(uint off, uint c) {
  const float d = f16_at(off), m = f16_at(off + 2u);
  const uint qh = u32_at(off + 4u) >> (16u * c);
  mat4 r;
  for (uint k = 0u; k < 4u; ++k) {
    const uint lo = (u32_at(off + 8u + 4u * k) >> (4u * c)) & 0x0f0f0f0fu;
    const uvec4 hi = ((uvec4(qh >> (4u * k)) >> uvec4(0u, 1u, 2u, 3u)) & 1u) << 4;
    r[k] = vec4(u8x4(lo) | hi) * d + m;
  }
  return r;
}

float value_at(uint off, uint j) {
  const uint lo = (u8_at(off + 8u + (j & 15u)) >> (4u * (j >> 4))) & 0x0fu;
  const uint hi = ((u32_at(off + 4u) >> j) & 1u) << 4;
  return float(lo | hi) * f16_at(off) + f16_at(off + 2u);
}

#ifdef GAUNTLET_KV_ENCODE
// The KV cache's writer: ggml's quantize_row_q5_1_ref (d = (max - min) / 31, m = min; codes
// uint8((x - min) / d + 0.5), the fifth bits in qh).
void encode_block(float x[32], uint off) {
  float lo = x[0], hi = x[0];
  for (uint j = 1u; j < 32u; ++j) {
    lo = min(lo, x[j]);
    hi = max(hi, x[j]);
  }
  const float d = (hi - lo) / 31.0;
  const float id = d != 0.0 ? 1.0 / d : 0.0;
  const uint h = packHalf2x16(vec2(d, lo));
  for (uint k = 0u; k < 4u; ++k) PUT_BYTE(off + k, (h >> (8u * k)) & 0xffu);
  uint qh = 0u;
  for (uint j = 0u; j < 16u; ++j) {
    const uint a = uint((x[j] - lo) * id + 0.5) & 0xffu;
    const uint b = uint((x[j + 16u] - lo) * id + 0.5) & 0xffu;
    PUT_BYTE(off + 8u + j, (a & 15u) | ((b & 15u) << 4));
    qh |= (((a >> 4) & 1u) << j) | (((b >> 4) & 1u) << (j + 16u));
  }
  for (uint k = 0u; k < 4u; ++k) PUT_BYTE(off + 4u + k, (qh >> (8u * k)) & 0xffu);
}
#endif
