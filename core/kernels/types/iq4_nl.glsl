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

#ifdef GAUNTLET_KV_ENCODE
// The KV cache's writer: ggml's quantize_row_iq4_nl_ref (quantize_row_iq4_nl_impl with ntry -1
// and weights x * x: codes at d = max / -127, then d = sum(w q x) / sum(w q q)).
void encode_block(float x[32], uint off) {
  float amax = 0.0, mx = 0.0;
  for (uint j = 0u; j < 32u; ++j) {
    if (abs(x[j]) > amax) {
      amax = abs(x[j]);
      mx = x[j];
    }
  }
  uint codes[32];
  float d = 0.0;
  for (uint j = 0u; j < 32u; ++j) codes[j] = 0u;
  if (amax >= 1e-15) {
    const float id = 1.0 / (mx / -127.0);
    float sumqx = 0.0, sumq2 = 0.0;
    for (uint j = 0u; j < 32u; ++j) {
      codes[j] = iq4nl_nearest(id * x[j]);
      const float q = float(KVALUES_IQ4NL[codes[j]]), w = x[j] * x[j];
      sumqx += w * q * x[j];
      sumq2 += w * q * q;
    }
    d = sumq2 > 0.0 ? sumqx / sumq2 : 0.0;
  }
  const uint h = packHalf2x16(vec2(d, 0.0));
  PUT_BYTE(off, h & 0xffu);
  PUT_BYTE(off + 1u, (h >> 8) & 0xffu);
  for (uint j = 0u; j < 16u; ++j) PUT_BYTE(off + 2u + j, codes[j] | (codes[j + 16u] << 4));
}
#endif
