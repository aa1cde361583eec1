// mxfp4, iq4_nl and iq4_xs bit for bit as ggml has them (ggml-common.h block_mxfp4,
// block_iq4_nl, block_iq4_xs, kvalues_mxfp4, kvalues_iq4nl; ggml-impl.h ggml_e8m0_to_fp32_half):
// blocks built by hand decode to values worked out by hand, the decoders agree with a line-by-line
// transcription of ggml-quants.c's dequantize_row_mxfp4 / iq4_nl / iq4_xs on arbitrary bytes, and
// the encoders write the bytes ggml's quantize_row_mxfp4_ref, quantize_iq4_nl and quantize_iq4_xs
// (no importance matrix: what llama.cpp's quantizer calls) write (ggml-quants.c of llama.cpp as
// node-llama-cpp 3.22.1 ships it, compiled on its own and run on the same row).
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "core/half.h"
#include "core/rng.h"
#include "core/tensor_type.h"
#include "tests/support/ggml_reference_rows.h"

namespace gauntlet::core {
namespace {

using gauntlet::testing::decode;
using gauntlet::testing::encode;
using gauntlet::testing::half_at;
using gauntlet::testing::put_half;
using gauntlet::testing::same_bits;

// --- ggml-common.h, ggml-impl.h and ggml-quants.c, transcribed line by line ----------------------

const int8_t kvalues_iq4nl[16] = {-127, -104, -83, -65, -49, -35, -22, -10,
                                  1,    13,   25,  38,  53,  69,  89,  113};
const int8_t kvalues_mxfp4[16] = {0, 1, 2, 3, 4, 6, 8, 12, 0, -1, -2, -3, -4, -6, -8, -12};

float ggml_e8m0_to_fp32_half(uint8_t x) {
  uint32_t bits;
  if (x < 2) {
    bits = 0x00200000 << x;
  } else {
    bits = (uint32_t)(x - 1) << 23;
  }
  float result;
  std::memcpy(&result, &bits, sizeof(float));
  return result;
}

std::vector<float> ggml_dequantize_row_mxfp4(const std::vector<uint8_t>& bytes) {
  const int qk = 32;
  std::vector<float> y(bytes.size() / 17 * 32);
  for (size_t i = 0; i < bytes.size() / 17; ++i) {
    const uint8_t* x = bytes.data() + 17 * i;  // {e, qs[16]}
    const float d = ggml_e8m0_to_fp32_half(x[0]);
    for (int j = 0; j < qk / 2; ++j) {
      const int8_t x0 = kvalues_mxfp4[x[1 + j] & 0x0F];
      const int8_t x1 = kvalues_mxfp4[x[1 + j] >> 4];
      y[i * qk + j + 0] = x0 * d;
      y[i * qk + j + qk / 2] = x1 * d;
    }
  }
  return y;
}

std::vector<float> ggml_dequantize_row_iq4_nl(const std::vector<uint8_t>& bytes) {
  std::vector<float> out(bytes.size() / 18 * 32);
  float* y = out.data();
  for (size_t i = 0; i < bytes.size() / 18; ++i) {
    const uint8_t* qs = bytes.data() + 18 * i + 2;
    const float d = half_at(bytes.data() + 18 * i);
    for (int j = 0; j < 16; ++j) {
      y[j + 0] = d * kvalues_iq4nl[qs[j] & 0xf];
      y[j + 16] = d * kvalues_iq4nl[qs[j] >> 4];
    }
    y += 32;
  }
  return out;
}

std::vector<float> ggml_dequantize_row_iq4_xs(const std::vector<uint8_t>& bytes) {
  std::vector<float> out(bytes.size() / 136 * 256);
  float* y = out.data();
  for (size_t i = 0; i < bytes.size() / 136; ++i) {
    const uint8_t* x = bytes.data() + 136 * i;  // {d, scales_h, scales_l[4], qs[128]}
    const uint8_t* qs = x + 8;
    const float d = half_at(x);
    const uint16_t scales_h = static_cast<uint16_t>(x[2] | (x[3] << 8));
    for (int ib = 0; ib < 8; ++ib) {
      const int ls =
          ((x[4 + ib / 2] >> (4 * (ib % 2))) & 0xf) | (((scales_h >> (2 * ib)) & 3) << 4);
      const float dl = d * (ls - 32);
      for (int j = 0; j < 16; ++j) {
        y[j + 0] = dl * kvalues_iq4nl[qs[j] & 0xf];
        y[j + 16] = dl * kvalues_iq4nl[qs[j] >> 4];
      }
      y += 32;
      qs += 16;
    }
  }
  return out;
}

// --- hand-built blocks --------------------------------------------------------------------------

// mxfp4 {e, qs[16]}: value = kvalues_mxfp4[code] * 2^(e - 128).
TEST(NonlinearQuants, Mxfp4HandBuiltBlock) {
  std::vector<uint8_t> b(17 * 4, 0);
  b[0] = 128;    // scale 2^0
  b[1] = 0x97;   // element 0: code 7 (12), element 16: code 9 (-1)
  b[2] = 0xf5;   // element 1: code 5 (6), element 17: code 15 (-12)
  b[3] = 0x08;   // element 2: code 8 (E2M1's -0: ggml's table holds 0)
  b[17] = 125;   // block 1: scale 2^-3
  b[18] = 0x3b;  // element 32: -3 / 8, element 48: 3 / 8
  b[34] = 0;     // block 2: scale 2^-128 (subnormal)
  b[35] = 0x7d;  // element 64: -6 * 2^-128, element 80: 12 * 2^-128 (both normal)
  b[36] = 0x01;  // element 65: 2^-128 (subnormal)
  b[37] = 0x0b;  // element 66: -3 * 2^-128 (subnormal)
  b[51] = 255;   // block 3: scale 2^127
  b[52] = 0x71;  // element 96: 2^127, element 112: 12 * 2^127 = inf
  const auto v = decode(TensorType::mxfp4, b);
  EXPECT_EQ(v[0], 12.0f);
  EXPECT_EQ(v[16], -1.0f);
  EXPECT_EQ(v[1], 6.0f);
  EXPECT_EQ(v[17], -12.0f);
  EXPECT_EQ(std::bit_cast<uint32_t>(v[2]), 0u);  // +0
  EXPECT_EQ(v[32], -0.375f);
  EXPECT_EQ(v[48], 0.375f);
  EXPECT_EQ(v[64], -6.0f * std::ldexp(1.0f, -128));
  EXPECT_EQ(std::bit_cast<uint32_t>(v[64]), 0x80c00000u);  // -1.5 * 2^-126
  EXPECT_EQ(std::bit_cast<uint32_t>(v[66]), 0x80600000u);  // -0.75 * 2^-126, subnormal
  EXPECT_EQ(v[80], std::ldexp(12.0f, -128));
  EXPECT_EQ(std::bit_cast<uint32_t>(v[65]), 0x00200000u);  // 2^-128
  EXPECT_EQ(v[96], std::ldexp(1.0f, 127));
  EXPECT_EQ(v[112], std::numeric_limits<float>::infinity());
  EXPECT_TRUE(same_bits(v, ggml_dequantize_row_mxfp4(b)));
}

// iq4_nl {d, qs[16]}: value = d * kvalues_iq4nl[code].
TEST(NonlinearQuants, Iq4NlHandBuiltBlock) {
  std::vector<uint8_t> b(18, 0);
  put_half(b, 0, 0xb800);  // d = -0.5
  b[2] = 0xf0;             // element 0: code 0 (-127), element 16: code 15 (113)
  b[3] = 0x87;             // element 1: code 7 (-10), element 17: code 8 (1)
  const auto v = decode(TensorType::iq4_nl, b);
  EXPECT_EQ(v[0], 63.5f);
  EXPECT_EQ(v[16], -56.5f);
  EXPECT_EQ(v[1], 5.0f);
  EXPECT_EQ(v[17], -0.5f);
  EXPECT_EQ(v[31], 63.5f);  // code 0
  EXPECT_TRUE(same_bits(v, ggml_dequantize_row_iq4_nl(b)));
}

// iq4_xs {d, scales_h, scales_l[4], qs[128]}: block i's level ls: nibble i % 2 of scales_l[i / 2]
// and bits 2i of scales_h; value = d * (ls - 32) * kvalues_iq4nl[code].
TEST(NonlinearQuants, Iq4XsHandBuiltBlock) {
  std::vector<uint8_t> b(136, 0);
  put_half(b, 0, 0x3800);  // d = 0.5
  b[4] = 0x21;             // block 0: low nibble 1, block 1: low nibble 2
  b[2] = 0x0b;             // block 0: top bits 3 (ls 49: +17), block 1: top bits 2 (ls 34: +2)
  b[7] = 0xf0;             // block 7: low nibble 15
  b[3] = 0x40;             // block 7: top bits 1 (bits 14-15 of scales_h) -> ls 31: -1
  b[8] = 0x9e;             // element 0: code 14 (89), element 16: code 9 (13)
  b[8 + 16] = 0x0f;        // element 32: code 15 (113), element 48: code 0 (-127)
  b[8 + 112] = 0x80;       // element 224: code 0, element 240: code 8 (1)
  const auto v = decode(TensorType::iq4_xs, b);
  EXPECT_EQ(v[0], 756.5f);    // 8.5 * 89
  EXPECT_EQ(v[16], 110.5f);   // 8.5 * 13
  EXPECT_EQ(v[32], 113.0f);   // 1 * 113
  EXPECT_EQ(v[48], -127.0f);  // 1 * -127
  EXPECT_EQ(v[64], 2032.0f);  // block 2: ls 0: -16 * -127
  EXPECT_EQ(v[224], 63.5f);   // -0.5 * -127
  EXPECT_EQ(v[240], -0.5f);   // -0.5 * 1
  EXPECT_TRUE(same_bits(v, ggml_dequantize_row_iq4_xs(b)));
}

// Random bytes (every scale, level and code; f16 fields random but finite, E8M0 scales anything),
// block after block, against the transcriptions.
TEST(NonlinearQuants, DecodersMatchGgmlOnRandomBytes) {
  Rng rng(26);
  for (TensorType type : {TensorType::mxfp4, TensorType::iq4_nl, TensorType::iq4_xs}) {
    SCOPED_TRACE(to_string(type));
    std::vector<uint8_t> bytes(256 * block_bytes(type));
    for (uint8_t& byte : bytes) byte = static_cast<uint8_t>(rng.next_u32());
    if (type != TensorType::mxfp4) {
      for (size_t b = 0; b < 256; ++b) {
        put_half(bytes, b * block_bytes(type), static_cast<uint16_t>(rng.next_u32() & 0xbbff));
      }
    }
    const auto want = type == TensorType::mxfp4    ? ggml_dequantize_row_mxfp4(bytes)
                      : type == TensorType::iq4_nl ? ggml_dequantize_row_iq4_nl(bytes)
                                                   : ggml_dequantize_row_iq4_xs(bytes);
    EXPECT_TRUE(same_bits(decode(type, bytes), want));
  }
}

// Every E8M0 byte's half scale, against 2^(e - 128) (ggml_e8m0_to_fp32_half).
TEST(NonlinearQuants, Mxfp4ScaleIsHalfTheE8M0Value) {
  std::vector<uint8_t> b(17 * 256, 0);
  for (int e = 0; e < 256; ++e) {
    b[17 * e] = static_cast<uint8_t>(e);
    b[17 * e + 1] = 0x01;  // element 0: code 1 (value 1)
  }
  const auto v = decode(TensorType::mxfp4, b);
  for (int e = 0; e < 256; ++e) {
    EXPECT_EQ(v[32 * e], std::ldexp(1.0f, e - 128)) << e;
    EXPECT_EQ(v[32 * e], ggml_e8m0_to_fp32_half(static_cast<uint8_t>(e))) << e;
  }
}

// --- the encoders against ggml's ----------------------------------------------------------------

using gauntlet::testing::fnv1a;
using gauntlet::testing::hex;
using gauntlet::testing::lcg_row;

TEST(NonlinearQuants, EncodersWriteGgmlsBytes) {
  gauntlet::testing::expect_ggml_encodings({
      {TensorType::mxfp4, "7bbbacaeb6afaba3abadb0a7aeaea6a7af", 0xb7021cc75d67eebaull,
       0x0ef2cd27993738c8ull},
      {TensorType::iq4_nl, "699aaaac9da29f9aa5aaaca890adaea2a0af", 0x56de641de22deaf6ull,
       0xbb01188ac811ac21ull},
      {TensorType::iq4_xs,
       "95962a130207d06eaa9b9da29f9aa5aa9ca890adaea2a0af88888888888888888888888888888888111111"
       "12121112111111111110111111f6d918066a9746b75b69bb9629d8d6fa30373235313232323040333738"
       "353630828d898c868e818d808a858f8a8a8d81111211111012121111111111111112113758b7f887d7e80818"
       "38f84818671748",
       0xa7a0d936ca6ff4bbull, 0x4d8d25ee1c5ae09dull},
  });
}

// An all-zero block: mxfp4 writes e 0 and codes 0; iq4_nl d 0 and code 8 (level 1, the nearest
// to 0 from above) everywhere; iq4_xs d -0 and level 32.
TEST(NonlinearQuants, ZeroBlocks) {
  const std::vector<float> zeros(256, 0.0f);
  const auto m = encode(TensorType::mxfp4, zeros);
  EXPECT_EQ(hex(m.data(), 17), std::string(34, '0'));
  const auto nl = encode(TensorType::iq4_nl, zeros);
  EXPECT_EQ(hex(nl.data(), 18), "0000" + std::string(32, '8'));
  const auto xs = encode(TensorType::iq4_xs, zeros);
  EXPECT_EQ(hex(xs.data(), 8), "0080aaaa00000000");
  for (TensorType t : {TensorType::mxfp4, TensorType::iq4_nl, TensorType::iq4_xs}) {
    for (float v : decode(t, encode(t, zeros))) EXPECT_EQ(v, 0.0f);
  }
}

}  // namespace
}  // namespace gauntlet::core
