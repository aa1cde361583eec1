// tq1_0, tq2_0 and nvfp4 bit for bit as ggml has them (ggml-common.h block_tq1_0, block_tq2_0,
// block_nvfp4, kvalues_fp4; ggml-impl.h ggml_ue4m3_to_fp32, ggml_fp32_to_ue4m3): blocks built by
// hand decode to values worked out by hand, the decoders agree with a line-by-line transcription
// of ggml-quants.c's dequantize_row_tq1_0 / tq2_0 / nvfp4 on arbitrary bytes, the encoders with a
// transcription of quantize_row_tq1_0_ref / tq2_0_ref / nvfp4_ref on random and edge rows, and
// the encoders write the bytes ggml's own functions write (ggml-quants.c of llama.cpp as
// node-llama-cpp 3.22.1 ships it, compiled on its own and run on the same row).
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
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
using gauntlet::testing::fnv1a;
using gauntlet::testing::half_at;
using gauntlet::testing::hex;
using gauntlet::testing::lcg_row;
using gauntlet::testing::put_half;
using gauntlet::testing::same_bits;

// --- ggml-common.h, ggml-impl.h and ggml-quants.c, transcribed line by line ----------------------

const int8_t kvalues_fp4[16] = {0, 1, 2, 3, 4, 6, 8, 12, 0, -1, -2, -3, -4, -6, -8, -12};

float ggml_ue4m3_to_fp32(uint8_t x) {
  if (x == 0 || x == 0x7F) {
    return 0.0f;
  }
  int exp = (x >> 3) & 0xF;
  int man = x & 0x7;
  float raw;
  if (exp == 0) {
    raw = ldexpf((float)man, -9);
  } else {
    raw = ldexpf(1.0f + (float)man / 8.0f, exp - 7);
  }
  return raw * 0.5f;
}

uint8_t ggml_fp32_to_ue4m3(float x) {
  if (!(x > 0.0f)) {
    return 0;
  }
  if (x > 448.0f) {
    x = 448.0f;
  }
  uint32_t bits;
  std::memcpy(&bits, &x, 4);
  int fp32_exp = ((bits >> 23) & 0xFF) - 127;
  int fp32_man = (bits >> 20) & 0x7;
  int ue4m3_exp = fp32_exp + 7;
  if (ue4m3_exp <= 0) {
    int man = (int)(x * 512.0f + 0.5f);
    if (man > 7) {
      man = 7;
    }
    if (man < 1) {
      return 0;
    }
    return (uint8_t)man;
  }
  if (ue4m3_exp >= 15) {
    return 0x7E;
  }
  int round_bit = (bits >> 19) & 1;
  int ue4m3_man = fp32_man + round_bit;
  if (ue4m3_man > 7) {
    ue4m3_man = 0;
    ue4m3_exp++;
    if (ue4m3_exp >= 15) {
      return 0x7E;
    }
  }
  return (uint8_t)((ue4m3_exp << 3) | ue4m3_man);
}

int best_index_mxfp4(float x, float e) {
  int best_index = 0;
  float best_err = fabsf(kvalues_fp4[0] * e - x);
  for (int i = 1; i < 16; i++) {
    float err = fabsf(kvalues_fp4[i] * e - x);
    if (err < best_err) {
      best_index = i;
      best_err = err;
    }
  }
  return best_index;
}

// block_nvfp4 {d[4], qs[32]}
std::vector<uint8_t> ggml_quantize_row_nvfp4_ref(const std::vector<float>& row) {
  const int qk = 64, qk_sub = 16, n_sub = 4;
  const int nb = static_cast<int>(row.size()) / qk;
  std::vector<uint8_t> out(nb * 36);
  for (int i = 0; i < nb; i++) {
    uint8_t* y = out.data() + 36 * i;
    for (int s = 0; s < n_sub; s++) {
      const float* xb = row.data() + i * qk + s * qk_sub;
      float amax = 0.0f;
      for (int j = 0; j < qk_sub; j++) {
        if (amax < fabsf(xb[j])) {
          amax = fabsf(xb[j]);
        }
      }
      const uint8_t ue = ggml_fp32_to_ue4m3(amax / 6.0f);
      y[s] = ue;
      const float d = ggml_ue4m3_to_fp32(ue);
      for (int j = 0; j < qk_sub / 2; ++j) {
        const uint8_t x0 = best_index_mxfp4(xb[0 + j], d);
        const uint8_t x1 = best_index_mxfp4(xb[qk_sub / 2 + j], d);
        y[4 + s * (qk_sub / 2) + j] = x0 | (x1 << 4);
      }
    }
  }
  return out;
}

std::vector<float> ggml_dequantize_row_nvfp4(const std::vector<uint8_t>& bytes) {
  const int qk = 64, qk_sub = 16, n_sub = 4;
  const size_t nb = bytes.size() / 36;
  std::vector<float> out(nb * qk);
  for (size_t i = 0; i < nb; i++) {
    const uint8_t* x = bytes.data() + 36 * i;
    for (int s = 0; s < n_sub; s++) {
      const float d = ggml_ue4m3_to_fp32(x[s]);
      float* yb = out.data() + i * qk + s * qk_sub;
      for (int j = 0; j < qk_sub / 2; ++j) {
        const int8_t v0 = kvalues_fp4[x[4 + s * (qk_sub / 2) + j] & 0x0F];
        const int8_t v1 = kvalues_fp4[x[4 + s * (qk_sub / 2) + j] >> 4];
        yb[j + 0] = v0 * d;
        yb[j + qk_sub / 2] = v1 * d;
      }
    }
  }
  return out;
}

#define MAX(a, b) ((a) > (b) ? (a) : (b))

// block_tq1_0 {qs[48], qh[4], d}
std::vector<uint8_t> ggml_quantize_row_tq1_0_ref(const std::vector<float>& row) {
  const size_t nb = row.size() / 256, qs_size = 48, qh_size = 4;
  std::vector<uint8_t> out(nb * 54);
  const float* x = row.data();
  for (size_t i = 0; i < nb; i++) {
    uint8_t* qs = out.data() + 54 * i;
    uint8_t* qh = qs + 48;
    float amax = 0.0f;
    for (int j = 0; j < 256; j++) {
      const float v = x[j];
      amax = MAX(amax, fabsf(v));
    }
    const float d = amax;
    const float id = d ? 1.0f / d : 0.0f;
    put_half(out, 54 * i + 52, f32_to_f16(d));
    for (size_t j = 0; j < qs_size - qs_size % 32; j += 32) {
      for (size_t m = 0; m < 32; ++m) {
        uint8_t q = 0;
        for (size_t n = 0; n < 5; ++n) {
          int xi = lroundf(x[m + n * 32] * id) + 1;
          q *= 3;
          q += xi;
        }
        q = ((uint16_t)q * 256 + (243 - 1)) / 243;
        qs[j + m] = q;
      }
      x += 5 * 32;
    }
    for (size_t j = qs_size - qs_size % 32; j < qs_size; j += 16) {
      for (size_t m = 0; m < 16; ++m) {
        uint8_t q = 0;
        for (size_t n = 0; n < 5; ++n) {
          int xi = lroundf(x[m + n * 16] * id) + 1;
          q *= 3;
          q += xi;
        }
        q = ((uint16_t)q * 256 + (243 - 1)) / 243;
        qs[j + m] = q;
      }
      x += 5 * 16;
    }
    for (size_t j = 0; j < qh_size; ++j) {
      uint8_t q = 0;
      for (size_t m = 0; m < 4; ++m) {
        int xi = lroundf(x[j + m * qh_size] * id) + 1;
        q *= 3;
        q += xi;
      }
      q *= 3;
      q = ((uint16_t)q * 256 + (243 - 1)) / 243;
      qh[j] = q;
    }
    x += 4 * qh_size;
  }
  return out;
}

// block_tq2_0 {qs[64], d}
std::vector<uint8_t> ggml_quantize_row_tq2_0_ref(const std::vector<float>& row) {
  const size_t nb = row.size() / 256;
  std::vector<uint8_t> out(nb * 66);
  const float* x = row.data();
  for (size_t i = 0; i < nb; i++) {
    uint8_t* qs = out.data() + 66 * i;
    float amax = 0.0f;
    for (int j = 0; j < 256; j++) {
      const float v = x[j];
      amax = MAX(amax, fabsf(v));
    }
    const float d = amax;
    const float id = d ? 1.0f / d : 0.0f;
    put_half(out, 66 * i + 64, f32_to_f16(d));
    for (size_t j = 0; j < 64; j += 32) {
      for (size_t m = 0; m < 32; ++m) {
        uint8_t q = 0;
        for (size_t n = 0; n < 4; ++n) {
          int xi = lroundf(x[m + n * 32] * id) + 1;
          q += (xi & 3) << (2 * n);
        }
        qs[j + m] = q;
      }
      x += 4 * 32;
    }
  }
  return out;
}

#undef MAX

std::vector<float> ggml_dequantize_row_tq1_0(const std::vector<uint8_t>& bytes) {
  const size_t nb = bytes.size() / 54, qs_size = 48, qh_size = 4;
  std::vector<float> out(nb * 256);
  float* y = out.data();
  const uint8_t pow3[6] = {1, 3, 9, 27, 81, 243};
  for (size_t i = 0; i < nb; ++i) {
    const uint8_t* qs = bytes.data() + 54 * i;
    const uint8_t* qh = qs + 48;
    const float d = half_at(qs + 52);
    for (size_t j = 0; j < qs_size - qs_size % 32; j += 32) {
      for (size_t n = 0; n < 5; ++n) {
        for (size_t m = 0; m < 32; ++m) {
          uint8_t q = qs[j + m] * pow3[n];
          int16_t xi = ((uint16_t)q * 3) >> 8;
          *y++ = (float)(xi - 1) * d;
        }
      }
    }
    for (size_t j = qs_size - qs_size % 32; j < qs_size; j += 16) {
      for (size_t n = 0; n < 5; ++n) {
        for (size_t m = 0; m < 16; ++m) {
          uint8_t q = qs[j + m] * pow3[n];
          int16_t xi = ((uint16_t)q * 3) >> 8;
          *y++ = (float)(xi - 1) * d;
        }
      }
    }
    for (size_t n = 0; n < 4; ++n) {
      for (size_t j = 0; j < qh_size; ++j) {
        uint8_t q = qh[j] * pow3[n];
        int16_t xi = ((uint16_t)q * 3) >> 8;
        *y++ = (float)(xi - 1) * d;
      }
    }
  }
  return out;
}

std::vector<float> ggml_dequantize_row_tq2_0(const std::vector<uint8_t>& bytes) {
  const size_t nb = bytes.size() / 66;
  std::vector<float> out(nb * 256);
  float* y = out.data();
  for (size_t i = 0; i < nb; ++i) {
    const uint8_t* qs = bytes.data() + 66 * i;
    const float d = half_at(qs + 64);
    for (size_t j = 0; j < 64; j += 32) {
      for (size_t l = 0; l < 4; ++l) {
        for (size_t m = 0; m < 32; ++m) {
          int8_t q = (qs[j + m] >> (l * 2)) & 3;
          *y++ = (float)(q - 1) * d;
        }
      }
    }
  }
  return out;
}

std::vector<float> ggml_dequantize(TensorType type, const std::vector<uint8_t>& bytes) {
  return type == TensorType::tq1_0   ? ggml_dequantize_row_tq1_0(bytes)
         : type == TensorType::tq2_0 ? ggml_dequantize_row_tq2_0(bytes)
                                     : ggml_dequantize_row_nvfp4(bytes);
}

std::vector<uint8_t> ggml_quantize(TensorType type, const std::vector<float>& row) {
  return type == TensorType::tq1_0   ? ggml_quantize_row_tq1_0_ref(row)
         : type == TensorType::tq2_0 ? ggml_quantize_row_tq2_0_ref(row)
                                     : ggml_quantize_row_nvfp4_ref(row);
}

constexpr TensorType kTypes[] = {TensorType::tq1_0, TensorType::tq2_0, TensorType::nvfp4};

// --- hand-built blocks --------------------------------------------------------------------------

// tq1_0: the trits 2 0 1 2 1 (base 3: 178) are the byte ceil(178 * 256 / 243) = 188; trit n is
// ((uint8_t)(188 * 3^n) * 3) >> 8. In qh, four trits and a fifth 0: 2 1 0 2 (0) are 195 in base
// 3, the byte ceil(195 * 256 / 243) = 206.
TEST(TernaryFp4Quants, Tq1HandBuiltBlock) {
  std::vector<uint8_t> b(54, 0);
  put_half(b, 52, 0xc000);  // d = -2
  b[5] = 188;               // elements 5, 37, 69, 101, 133: trits 2 0 1 2 1
  b[40] = 188;              // elements 168, 184, 200, 216, 232
  b[49] = 206;              // elements 241, 245, 249, 253: trits 2 1 0 2
  const auto v = decode(TensorType::tq1_0, b);
  EXPECT_EQ(v[5], -2.0f);                                  // trit 2: +1
  EXPECT_EQ(v[37], 2.0f);                                  // trit 0: -1
  EXPECT_EQ(std::bit_cast<uint32_t>(v[69]), 0x80000000u);  // trit 1: 0 times -2 is -0
  EXPECT_EQ(v[101], -2.0f);
  EXPECT_EQ(v[133], 0.0f);
  EXPECT_EQ(v[168], -2.0f);
  EXPECT_EQ(v[184], 2.0f);
  EXPECT_EQ(v[232], 0.0f);
  EXPECT_EQ(v[0], 2.0f);  // byte 0: trit 0 (-1) everywhere
  EXPECT_EQ(v[241], -2.0f);
  EXPECT_EQ(std::bit_cast<uint32_t>(v[245]), 0x80000000u);
  EXPECT_EQ(v[249], 2.0f);
  EXPECT_EQ(v[253], -2.0f);
  EXPECT_EQ(v[240], 2.0f);  // qh[0] = 0: trit 0
  EXPECT_TRUE(same_bits(v, ggml_dequantize_row_tq1_0(b)));
  // A block the encoder wrote from ternary values decodes to them.
  std::vector<float> x(256);
  Rng rng(34);
  for (float& e : x) e = static_cast<float>(static_cast<int>(rng.next_u32() % 3) - 1) * 0.5f;
  x[7] = 0.5f;
  EXPECT_EQ(decode(TensorType::tq1_0, encode(TensorType::tq1_0, x)), x);
}

// tq2_0 {qs[64], d}: element 32l + m of half h is bits 2l of qs[32h + m]; value = (q - 1) * d.
TEST(TernaryFp4Quants, Tq2HandBuiltBlock) {
  std::vector<uint8_t> b(66, 0x55);  // every code 1: 0
  put_half(b, 64, 0x3800);           // d = 0.5
  b[3] = 0x96;                       // elements 3, 35, 67, 99: codes 2 1 1 2
  b[32 + 31] = 0x03;                 // element 128 + 31: code 3 (2 times d, as ggml's)
  const auto v = decode(TensorType::tq2_0, b);
  EXPECT_EQ(v[3], 0.5f);
  EXPECT_EQ(v[35], 0.0f);
  EXPECT_EQ(v[67], 0.0f);
  EXPECT_EQ(v[99], 0.5f);
  EXPECT_EQ(v[159], 1.0f);
  EXPECT_EQ(v[191], -0.5f);  // code 0 in bits 2, 3 of that byte
  EXPECT_TRUE(same_bits(v, ggml_dequantize_row_tq2_0(b)));
}

// nvfp4 {d[4], qs[32]}: sub-block s's scale is UE4M3(d[s]) / 2; element 16s + j is the low
// nibble of qs[8s + j] (j < 8), element 16s + 8 + j its high nibble.
TEST(TernaryFp4Quants, Nvfp4HandBuiltBlock) {
  std::vector<uint8_t> b(36, 0);
  b[0] = 0x38;   // exponent 7, mantissa 0: 1, halved 0.5
  b[1] = 0x01;   // subnormal: 1 * 2^-9, halved 2^-10
  b[2] = 0xff;   // the top bit ignored: exponent 15, mantissa 7: 480, halved 240
  b[3] = 0x7f;   // E4M3's NaN: 0
  b[4] = 0x97;   // element 0: code 7 (12), element 8: code 9 (-1)
  b[12] = 0xf1;  // element 16: code 1, element 24: code 15 (-12)
  b[20] = 0x57;  // element 32: 12, element 40: 6
  b[28] = 0x09;  // element 48: code 9 (-1) times a zero scale: -0
  const auto v = decode(TensorType::nvfp4, b);
  EXPECT_EQ(v[0], 6.0f);
  EXPECT_EQ(v[8], -0.5f);
  EXPECT_EQ(v[16], std::ldexp(1.0f, -10));
  EXPECT_EQ(v[24], -12.0f * std::ldexp(1.0f, -10));
  EXPECT_EQ(v[32], 2880.0f);
  EXPECT_EQ(v[40], 1440.0f);
  EXPECT_EQ(std::bit_cast<uint32_t>(v[48]), 0x80000000u);
  EXPECT_EQ(std::bit_cast<uint32_t>(v[1]), 0u);  // code 0
  EXPECT_TRUE(same_bits(v, ggml_dequantize_row_nvfp4(b)));
}

// Every UE4M3 byte's scale (code 1, value 1, in element 0 of sub-block 0), against the
// transcription and against the format: 0 and 0x7f are 0, exponent field 0 is m * 2^-10, else
// (1 + m / 8) * 2^(e - 8), the top bit ignored.
TEST(TernaryFp4Quants, Nvfp4ScaleIsHalfTheUe4m3Value) {
  std::vector<uint8_t> b(36 * 256, 0);
  for (int x = 0; x < 256; ++x) {
    b[36 * x] = static_cast<uint8_t>(x);
    b[36 * x + 4] = 0x01;
  }
  const auto v = decode(TensorType::nvfp4, b);
  for (int x = 0; x < 256; ++x) {
    const int e = (x >> 3) & 15, m = x & 7;
    const float want = x == 0x7f ? 0.0f
                       : e == 0  ? std::ldexp(static_cast<float>(m), -10)
                                 : std::ldexp(1.0f + m / 8.0f, e - 8);
    EXPECT_EQ(v[64 * x], want) << x;
    EXPECT_EQ(v[64 * x], ggml_ue4m3_to_fp32(static_cast<uint8_t>(x))) << x;
  }
}

// --- the decoders and encoders against the transcriptions ---------------------------------------

// Random bytes (f16 scales random but finite), against the transcriptions.
TEST(TernaryFp4Quants, DecodersMatchGgmlOnRandomBytes) {
  Rng rng(35);
  for (TensorType type : kTypes) {
    SCOPED_TRACE(to_string(type));
    std::vector<uint8_t> bytes(256 * block_bytes(type));
    for (uint8_t& byte : bytes) byte = static_cast<uint8_t>(rng.next_u32());
    if (type != TensorType::nvfp4) {
      const size_t d_at = type == TensorType::tq1_0 ? 52 : 64;
      for (size_t b = 0; b < 256; ++b) {
        put_half(bytes, b * block_bytes(type) + d_at,
                 static_cast<uint16_t>(rng.next_u32() & 0xbbff));
      }
    }
    EXPECT_TRUE(same_bits(decode(type, bytes), ggml_dequantize(type, bytes)));
  }
}

// Rows that reach the encoders' edges: all zeros; one value repeated; exact ternary values;
// products x / amax exactly at +-0.5 (lroundf's ties away from zero); tiny and huge magnitudes
// (UE4M3's subnormal scales, the clamp at 448 and 0x7e); subnormal floats; random rows of
// several spreads.
std::vector<std::vector<float>> edge_rows() {
  std::vector<std::vector<float>> rows;
  rows.emplace_back(512, 0.0f);
  rows.emplace_back(512, -0.75f);
  std::vector<float> halves(512);
  for (size_t i = 0; i < halves.size(); ++i) {
    halves[i] = i % 7 == 0 ? 2.0f : i % 3 == 0 ? -1.0f : i % 3 == 1 ? 1.0f : 0.0f;
  }
  rows.push_back(halves);
  Rng rng(40);
  for (float scale : {1e-6f, 3e-4f, 1e-3f, 0.02f, 1.0f, 100.0f, 2000.0f, 3e4f, 1e6f}) {
    std::vector<float> r(512);
    for (float& x : r) x = rng.uniform(-1.0f, 1.0f) * scale;
    rows.push_back(r);
  }
  std::vector<float> mixed(512);
  for (size_t i = 0; i < mixed.size(); ++i) {
    mixed[i] = rng.uniform(-1.0f, 1.0f) * std::ldexp(1.0f, static_cast<int>(i / 16 % 40) - 30);
  }
  rows.push_back(mixed);
  std::vector<float> sub(512);
  for (size_t i = 0; i < sub.size(); ++i) sub[i] = std::ldexp(static_cast<float>(i % 9), -140);
  rows.push_back(sub);
  std::vector<float> ternary(512);
  for (float& x : ternary) x = static_cast<float>(static_cast<int>(rng.next_u32() % 3) - 1);
  rows.push_back(ternary);
  rows.push_back(lcg_row(512));
  return rows;
}

TEST(TernaryFp4Quants, EncodersMatchGgmlOnEdgeAndRandomRows) {
  const auto rows = edge_rows();
  for (TensorType type : kTypes) {
    SCOPED_TRACE(to_string(type));
    for (size_t r = 0; r < rows.size(); ++r) {
      SCOPED_TRACE("row " + std::to_string(r));
      const auto got = encode(type, rows[r]);
      EXPECT_EQ(got, ggml_quantize(type, rows[r]));
      EXPECT_TRUE(same_bits(decode(type, got), ggml_dequantize(type, got)));
    }
  }
}

// Every value of ggml_fp32_to_ue4m3 across the float range near its cases (subnormal rounding,
// the mantissa's carry into the exponent, the clamp), against the transcription.
TEST(TernaryFp4Quants, Nvfp4ScaleEncodingMatchesGgml) {
  std::vector<float> row(64 * 4096);
  Rng rng(41);
  for (size_t i = 0; i < row.size(); ++i) {
    // One sub-block's largest magnitude a value of 6 * 2^k * (1 + u), k from -16 to 10.
    row[i] = (i % 16 == 0 ? 6.0f : rng.uniform(-6.0f, 6.0f)) *
             std::ldexp(1.0f + rng.uniform(0.0f, 1.0f), static_cast<int>(i / 16 % 27) - 16);
  }
  EXPECT_EQ(encode(TensorType::nvfp4, row), ggml_quantize_row_nvfp4_ref(row));
}

// --- the encoders against ggml's own ------------------------------------------------------------

TEST(TernaryFp4Quants, EncodersWriteGgmlsBytes) {
  gauntlet::testing::expect_ggml_encodings({
      {TensorType::tq1_0,
       "8180808080808080808080808080808183837d7d80808080808080807d83838380808080808080802b8080d5"
       "8080802b727fa2b87546",
       0x11356bb603810cc0ull, 0x7094c2ba7aa6aa8aull},
      {TensorType::tq2_0,
       "555555555555555555555555555555559595151555555555555555551595959556555555555555555155555955"
       "555552555555955555951515559555155515557546",
       0x9e6feab93c54baebull, 0x7094c2ba7aa6aa8aull},
      {TensorType::nvfp4,
       "19070500ca0c7dd5ef5b73faeffeeefffeeeeffee649ff6142d647960000000000000000",
       0x04474f8171cb0578ull, 0x504561f45669264bull},
  });
}

}  // namespace
}  // namespace gauntlet::core
