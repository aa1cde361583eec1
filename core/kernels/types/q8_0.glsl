// q8_0: 32 elements in 34 bytes {f16 d, i8 qs[32]}; value = q * d. Follows ggml's
// dequantize_row_q8_0.
const uint BLOCK_ELEMS = 32u;
const uint BLOCK_BYTES = 34u;

// Elements [16c, 16c + 16), c in {0, 1}: column k holds [16c + 4k, 16c + 4k + 4).
mat4 decode16(uint off, uint c) {
  const float d = f16_at(off);
  const uint base = off + 2u + 16u * c;
  mat4 r;
  for (uint k = 0u; k < 4u; ++k) r[k] = vec4(i8x4(u32_at(base + 4u * k))) * d;
  return r;
}

float value_at(uint off, uint j) {
  const int q = int(u8_at(off + 2u + j) << 24) >> 24;
  return float(q) * f16_at(off);
}

#ifdef GAUNTLET_KV_ENCODE
// The KV cache's writer (engine_kv_store.comp; the includer defines PUT_BYTE(off, byte)): 32
// floats into the block at byte offset off as ggml-cpu's x86 quantize_row_q8_0 (AVX) does:
// d = amax / 127, codes x * (127 / amax) rounded to nearest even.
void encode_block(float x[32], uint off) {
  float amax = 0.0;
  for (uint j = 0u; j < 32u; ++j) amax = max(amax, abs(x[j]));
  const uint d = packHalf2x16(vec2(amax / 127.0, 0.0));
  PUT_BYTE(off, d & 0xffu);
  PUT_BYTE(off + 1u, (d >> 8) & 0xffu);
  const float id = amax != 0.0 ? 127.0 / amax : 0.0;
  for (uint j = 0u; j < 32u; ++j) PUT_BYTE(off + 2u + j, uint(int(roundEven(x[j] * id))) & 0xffu);
}
#endif
