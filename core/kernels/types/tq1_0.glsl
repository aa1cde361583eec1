// tq1_0: 256 elements in 54 bytes {u8 qs[48], u8 qh[4], f16 d}: a byte holds five trits (qh's
// four) as a fixed-point fraction; trit n of byte b is (((b * 3^n) & 255) * 3) >> 8 (0, 1, 2 for
// -1, 0, +1). qs[0..31] give elements 32n + m (trit n of byte m), qs[32..47] elements
// 160 + 16n + m, qh[0..3] elements 240 + 4n + m; value = float(trit - 1) * d. Follows ggml's
// dequantize_row_tq1_0 (the products are exact; a zero trit times a negative d is -0 as on the
// host). Blocks are 2-byte aligned (54 bytes: a block starts at 0 or 2 mod 4).
const uint BLOCK_ELEMS = 256u;
const uint BLOCK_BYTES = 54u;

// 3^n for n in 0..4, computed rather than looked up (llvmpipe turns a table indexed by a variable
// into branches).
uint tq1_pow3(uint n) { return n < 4u ? (0x1b090301u >> (8u * n)) & 0xffu : 81u; }

// The values of four trit bytes under trit n of each (multipliers p, one a byte).
vec4 tq1_values4(uint word, uvec4 p, float d) {
  const uvec4 q = (u8x4(word) * p) & 0xffu;
  return (vec4((q * 3u) >> 8) - 1.0) * d;
}

// Elements [16c, 16c + 16), c in 0..15: column k holds [16c + 4k, 16c + 4k + 4). Chunks 0..9 are
// qs[0..15] or qs[16..31] (c odd) under trit c / 2, chunks 10..14 qs[32..47] under trit c - 10,
// chunk 15 the four qh bytes under trit k in column k.
mat4 decode16(uint off, uint c) {
  const float d = f16_at(off + 52u);
  mat4 r;
  if (c == 15u) {
    const uint h = u32_at(off + 48u);
    for (uint k = 0u; k < 4u; ++k) r[k] = tq1_values4(h, uvec4(tq1_pow3(k)), d);
    return r;
  }
  const uint base = c < 10u ? off + 16u * (c & 1u) : off + 32u;
  const uvec4 p = uvec4(tq1_pow3(c < 10u ? c >> 1 : c - 10u));
  for (uint k = 0u; k < 4u; ++k) r[k] = tq1_values4(u32_at(base + 4u * k), p, d);
  return r;
}

float value_at(uint off, uint j) {
  uint byte = 48u + ((j - 240u) & 3u), n = (j - 240u) >> 2;
  if (j < 160u) {
    byte = j & 31u;
    n = j >> 5;
  } else if (j < 240u) {
    byte = 32u + ((j - 160u) & 15u);
    n = (j - 160u) >> 4;
  }
  const uint q = (u8_at(off + byte) * tq1_pow3(n)) & 0xffu;
  return (float((q * 3u) >> 8) - 1.0) * f16_at(off + 52u);
}
