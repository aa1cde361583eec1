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

// |kvalues_mxfp4[code]| for code & 7, and its bits as a float.
const uint MXFP4_MAGNITUDE[8] = uint[8](0u, 1u, 2u, 3u, 4u, 6u, 8u, 12u);
const uint MXFP4_BITS[8] = uint[8](0x00000000u, 0x3f800000u, 0x40000000u, 0x40400000u,
                                   0x40800000u, 0x40c00000u, 0x41000000u, 0x41400000u);

// kvalues_mxfp4 halved, as floats (code 8 is +0).
const float MXFP4_VALUES[16] = float[16](0.0, 1.0, 2.0, 3.0, 4.0, 6.0, 8.0, 12.0, 0.0, -1.0, -2.0,
                                         -3.0, -4.0, -6.0, -8.0, -12.0);

// The magnitude's exponent field E becomes E + e - 128: 255 or more is infinity, 0 or less a
// subnormal, m * 2^(e + 21) units of 2^-149. Codes 8..15 are negative; code 8 is +0, as ggml's
// int8 table holds 0 there.
float mxfp4_value(uint code, uint e) {
  const uint fm = MXFP4_BITS[code & 7u];
  if (fm == 0u) return 0.0;
  const int exponent = int(fm >> 23) + int(e) - 128;
  uint bits = fm + (uint(int(e) - 128) << 23);
  if (exponent >= 255) bits = 0x7f800000u;
  if (exponent < 1) bits = MXFP4_MAGNITUDE[code & 7u] << (e + 21u);
  return uintBitsToFloat(bits | (code >= 8u ? 0x80000000u : 0u));
}

// Elements [16c, 16c + 16), c in {0, 1} (low nibbles, then high): column k holds
// [16c + 4k, 16c + 4k + 4).
// With e >= 2 the scale 2^(e - 128) is a normal float and every product of it with a magnitude
// (at most 12) is exact or infinity: one multiply per value gives the built bits. Smaller scales
// build each value.
mat4 decode16(uint off, uint c) {
  const uint e = u8_at(off);
  mat4 r;
  for (uint k = 0u; k < 4u; ++k) {
    const uvec4 q = (u8x4(u32_at_any(off + 1u + 4u * k)) >> (4u * c)) & 0x0fu;
    if (e >= 2u) {
      r[k] = vec4(MXFP4_VALUES[q.x], MXFP4_VALUES[q.y], MXFP4_VALUES[q.z], MXFP4_VALUES[q.w]) *
             uintBitsToFloat((e - 1u) << 23);
    } else {
      r[k] = vec4(mxfp4_value(q.x, e), mxfp4_value(q.y, e), mxfp4_value(q.z, e),
                  mxfp4_value(q.w, e));
    }
  }
  return r;
}

float value_at(uint off, uint j) {
  return mxfp4_value((u8_at(off + 1u + (j & 15u)) >> (4u * (j >> 4))) & 0x0fu, u8_at(off));
}
