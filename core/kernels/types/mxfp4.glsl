// mxfp4: 32 elements in 17 bytes {u8 e, u8 qs[16]} (blocks are only byte aligned: a block starts
// at any byte of a word); byte i holds element i's E2M1 code in its low nibble and element
// i + 16's in its high nibble; value = kvalues_mxfp4[code] * 2^(e - 128) (ggml's E2M1 values
// doubled times GGML_E8M0_TO_FP32_HALF(e)). Follows ggml's dequantize_row_mxfp4. The value is
// built from its bits, not multiplied: with e 0 or 1 the scale and small products are subnormal,
// which a driver may flush (Vulkan makes keeping them optional: shaderDenormPreserveFloat32;
// llvmpipe keeps them, a plain multiply also matched there); built, every value is the host's
// float product bit for bit (the products are exact, and the overflow 12 * 2^127 is infinity).
const uint BLOCK_ELEMS = 32u;
const uint BLOCK_BYTES = 17u;

// |kvalues_mxfp4[code]| for c7 = code & 7 (E2M1 doubled: 0, 1, 2, 3, 4, 6, 8, 12), and its bits
// as a float, computed rather than looked up: llvmpipe turns a table indexed by a variable into a
// chain of branches, and the unrolled matvec made of them took 49 s to compile there.
uint mxfp4_magnitude(uint c7) {
  const uint e2 = c7 >> 1, m = c7 & 1u;
  return e2 == 0u ? m : (2u + m) << (e2 - 1u);
}

uint mxfp4_bits(uint c7) {
  if (c7 < 2u) return c7 == 0u ? 0u : 0x3f800000u;
  return ((127u + (c7 >> 1)) << 23) | ((c7 & 1u) << 22);
}

// The magnitude's exponent field E becomes E + e - 128: 255 or more is infinity, 0 or less a
// subnormal, m * 2^(e + 21) units of 2^-149. Codes 8..15 are negative; code 8 is +0, as ggml's
// int8 table holds 0 there.
float mxfp4_value(uint code, uint e) {
  const uint fm = mxfp4_bits(code & 7u);
  if (fm == 0u) return 0.0;
  const int exponent = int(fm >> 23) + int(e) - 128;
  uint bits = fm + (uint(int(e) - 128) << 23);
  if (exponent >= 255) bits = 0x7f800000u;
  if (exponent < 1) bits = mxfp4_magnitude(code & 7u) << (e + 21u);
  return uintBitsToFloat(bits | (code >= 8u ? 0x80000000u : 0u));
}

// Four codes, a byte each, to their kvalues_mxfp4 (E2M1 doubled) plus 12, 0..24, a byte each:
// the map done on the word's four bytes at once (no byte carries into the next). With m = code &
// 7, |value| is m + max(m - 4, 0) + 2 max(m - 6, 0) (0, 1, 2, 3, 4, 6, 8, 12), and a negative
// code (8..15) subtracts it from 12 instead of adding it. Per element it was the type's largest
// cost on llvmpipe, where each invocation's lane runs every operation on its own.
uint e2m1_plus12_x4(uint codes) {
  const uint m = codes & 0x07070707u;
  const uint at_least_4 = (m >> 2) & 0x01010101u;
  const uint over_4 = m & 0x03030303u & (at_least_4 * 3u);
  const uint is_7 = at_least_4 & (m >> 1) & m;
  const uint magnitude = m + over_4 + (is_7 << 1);
  const uint negative = (codes >> 3) & 0x01010101u;
  return 0x0c0c0c0cu + magnitude - ((magnitude & (negative * 0xffu)) << 1);
}

// The matvec's factored form (engine_matvec_blocks.glsl's BLOCK_SCALED_CODES): the signed codes
// (E2M1 doubled) of elements [16c, 16c + 16), and the block's scale 2^(e - 128), applied once to
// the block's sum of code products. A power of two scales exactly, so the sums are decode16's
// wherever the products and the sum are normal floats; only a subnormal result (e < 2) or an
// overflow (e > 252) can round differently. Branch-free: llvmpipe runs both sides of a branch
// that differs between invocations.
#define BLOCK_SCALED_CODES 1
mat4 codes16(uint off, uint c) {
  mat4 r;
  for (uint k = 0u; k < 4u; ++k) {
    const uint codes = (u32_at_any(off + 1u + 4u * k) >> (4u * c)) & 0x0f0f0f0fu;
    r[k] = vec4(u8x4(e2m1_plus12_x4(codes))) - 12.0;
  }
  return r;
}
// Elements [16c, 16c + 16), c in {0, 1} (low nibbles, then high): column k holds
// [16c + 4k, 16c + 4k + 4).
// With e >= 2 the scale 2^(e - 128) is a normal float and every product of it with a code (at
// most 12) is exact or infinity: the codes times the scale give the built bits. Smaller scales
// build each value.
mat4 decode16(uint off, uint c) {
  const uint e = u8_at(off);
  if (e >= 2u) return codes16(off, c) * uintBitsToFloat((e - 1u) << 23);
  mat4 r;
  for (uint k = 0u; k < 4u; ++k) {
    const uvec4 q = (u8x4(u32_at_any(off + 1u + 4u * k)) >> (4u * c)) & 0x0fu;
    r[k] = vec4(mxfp4_value(q.x, e), mxfp4_value(q.y, e), mxfp4_value(q.z, e),
                mxfp4_value(q.w, e));
  }
  return r;
}

float block_scale(uint off) {
  const uint e = u8_at(off);
  return uintBitsToFloat(e >= 2u ? (e - 1u) << 23 : 0x00200000u << e);
}

float value_at(uint off, uint j) {
  return mxfp4_value((u8_at(off + 1u + (j & 15u)) >> (4u * (j >> 4))) & 0x0fu, u8_at(off));
}
