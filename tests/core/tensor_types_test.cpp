// The host codecs of ggml's tensor types: blocks built by hand byte by byte decode to values
// worked out by hand from ggml's layouts, random rows survive an encode and decode within a
// measured error, and the type table lists what ggml lists.
#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "core/rng.h"
#include "core/tensor_type.h"

namespace gauntlet::core {
namespace {

// f16 bit patterns of the scales used below.
constexpr uint16_t kHalfOne = 0x3c00;
constexpr uint16_t kHalfHalf = 0x3800;
constexpr uint16_t kHalfQuarter = 0x3400;
constexpr uint16_t kHalfMinusOne = 0xbc00;
constexpr uint16_t kHalfMinusSixteen = 0xcc00;

class Block {
 public:
  explicit Block(TensorType type) : type_(type), bytes_(block_bytes(type)) {}

  void set(size_t offset, uint8_t value) { bytes_.at(offset) = std::byte{value}; }
  void set_half(size_t offset, uint16_t bits) {
    set(offset, static_cast<uint8_t>(bits & 0xff));
    set(offset + 1, static_cast<uint8_t>(bits >> 8));
  }
  std::vector<float> decode() const {
    std::vector<float> out(block_elements(type_));
    dequantize_row(type_, bytes_.data(), out.data(), out.size());
    return out;
  }

 private:
  TensorType type_;
  std::vector<std::byte> bytes_;
};

std::vector<float> random_values(uint64_t seed, size_t n) {
  Rng rng(seed);
  std::vector<float> v(n);
  for (float& x : v) x = rng.uniform(-1.0f, 1.0f);
  return v;
}

std::vector<float> round_trip(TensorType type, const std::vector<float>& x) {
  std::vector<std::byte> encoded(row_bytes(type, x.size()));
  quantize_row(type, x.data(), encoded.data(), x.size());
  std::vector<float> decoded(x.size());
  dequantize_row(type, encoded.data(), decoded.data(), x.size());
  return decoded;
}

double rms_error(const std::vector<float>& a, const std::vector<float>& b) {
  double sum = 0;
  for (size_t i = 0; i < a.size(); ++i) sum += (double(a[i]) - b[i]) * (double(a[i]) - b[i]);
  return std::sqrt(sum / static_cast<double>(a.size()));
}

// --- the type table -----------------------------------------------------------------------------

TEST(TensorTypesTable, ListsTwentyEightTypesInGgmlIdOrder) {
  struct Expected {
    TensorType type;
    uint32_t id, elements, bytes;
    const char* name;
  };
  const Expected expected[] = {
      {TensorType::f32, 0, 1, 4, "f32"},
      {TensorType::f16, 1, 1, 2, "f16"},
      {TensorType::q4_0, 2, 32, 18, "q4_0"},
      {TensorType::q4_1, 3, 32, 20, "q4_1"},
      {TensorType::q5_0, 6, 32, 22, "q5_0"},
      {TensorType::q5_1, 7, 32, 24, "q5_1"},
      {TensorType::q8_0, 8, 32, 34, "q8_0"},
      {TensorType::q2_K, 10, 256, 84, "q2_K"},
      {TensorType::q3_K, 11, 256, 110, "q3_K"},
      {TensorType::q4_K, 12, 256, 144, "q4_K"},
      {TensorType::q5_K, 13, 256, 176, "q5_K"},
      {TensorType::q6_K, 14, 256, 210, "q6_K"},
      {TensorType::iq2_xxs, 16, 256, 66, "iq2_xxs"},
      {TensorType::iq2_xs, 17, 256, 74, "iq2_xs"},
      {TensorType::iq3_xxs, 18, 256, 98, "iq3_xxs"},
      {TensorType::iq1_s, 19, 256, 50, "iq1_s"},
      {TensorType::iq4_nl, 20, 32, 18, "iq4_nl"},
      {TensorType::iq3_s, 21, 256, 110, "iq3_s"},
      {TensorType::iq2_s, 22, 256, 82, "iq2_s"},
      {TensorType::iq4_xs, 23, 256, 136, "iq4_xs"},
      {TensorType::iq1_m, 29, 256, 56, "iq1_m"},
      {TensorType::bf16, 30, 1, 2, "bf16"},
      {TensorType::tq1_0, 34, 256, 54, "tq1_0"},
      {TensorType::tq2_0, 35, 256, 66, "tq2_0"},
      {TensorType::mxfp4, 39, 32, 17, "mxfp4"},
      {TensorType::nvfp4, 40, 64, 36, "nvfp4"},
      {TensorType::q1_0, 41, 128, 18, "q1_0"},
      {TensorType::q2_0, 42, 64, 18, "q2_0"},
  };
  const auto types = all_tensor_types();
  ASSERT_EQ(types.size(), 28u);
  for (size_t i = 0; i < types.size(); ++i) {
    SCOPED_TRACE(expected[i].name);
    EXPECT_EQ(types[i].type, expected[i].type);
    EXPECT_EQ(static_cast<uint32_t>(types[i].type), expected[i].id);
    EXPECT_EQ(types[i].block_elements, expected[i].elements);
    EXPECT_EQ(types[i].block_bytes, expected[i].bytes);
    EXPECT_STREQ(types[i].name, expected[i].name);
    EXPECT_EQ(tensor_type_from_id(expected[i].id), expected[i].type);
  }
}

TEST(TensorTypesTable, FindsTypesByIdAndName) {
  EXPECT_EQ(tensor_type_from_id(12), TensorType::q4_K);
  EXPECT_EQ(tensor_type_from_id(7), TensorType::q5_1);
  EXPECT_EQ(tensor_type_from_id(4), std::nullopt);  // ggml's removed q4_2
  EXPECT_EQ(tensor_type_from_id(10), TensorType::q2_K);
  EXPECT_EQ(tensor_type_from_id(16), TensorType::iq2_xxs);
  EXPECT_EQ(tensor_type_from_id(9), std::nullopt);  // q8_1: not a weight type
  EXPECT_EQ(parse_tensor_type("Q4_K"), TensorType::q4_K);
  EXPECT_EQ(parse_tensor_type("q6_k"), TensorType::q6_K);
  EXPECT_EQ(parse_tensor_type("Q5_0"), TensorType::q5_0);
  EXPECT_EQ(parse_tensor_type("Q3_K"), TensorType::q3_K);
  EXPECT_EQ(parse_tensor_type("IQ2_XXS"), TensorType::iq2_xxs);
  EXPECT_EQ(parse_tensor_type("q8_1"), std::nullopt);
  EXPECT_EQ(parse_tensor_type("IQ4_XS"), TensorType::iq4_xs);
  EXPECT_EQ(parse_tensor_type("MXFP4"), TensorType::mxfp4);
  EXPECT_EQ(row_bytes(TensorType::mxfp4, 64), 34u);
  EXPECT_EQ(tensor_type_from_id(34), TensorType::tq1_0);
  EXPECT_EQ(parse_tensor_type("TQ2_0"), TensorType::tq2_0);
  EXPECT_EQ(parse_tensor_type("nvfp4"), TensorType::nvfp4);
  EXPECT_EQ(row_bytes(TensorType::tq1_0, 512), 108u);
  EXPECT_EQ(row_bytes(TensorType::nvfp4, 128), 72u);
  EXPECT_STREQ(to_string(TensorType::q5_K), "q5_K");
  EXPECT_TRUE(is_quantized(TensorType::q4_1));
  EXPECT_EQ(row_bytes(TensorType::q6_K, 512), 420u);
  EXPECT_EQ(row_bytes(TensorType::q3_K, 768), 330u);
}

// --- hand-built blocks --------------------------------------------------------------------------

// q4_1 {d, m, qs[16]}: value = d * q + m; byte j holds element j (low) and j + 16 (high).
TEST(TensorTypesDecode, Q4_1) {
  Block b(TensorType::q4_1);
  b.set_half(0, kHalfHalf);      // d = 0.5
  b.set_half(2, kHalfMinusOne);  // m = -1
  b.set(4 + 0, 0x3a);            // element 0: 10, element 16: 3
  b.set(4 + 15, 0xf0);           // element 15: 0, element 31: 15
  const auto v = b.decode();
  EXPECT_EQ(v[0], 4.0f);    // 0.5 * 10 - 1
  EXPECT_EQ(v[16], 0.5f);   // 0.5 * 3 - 1
  EXPECT_EQ(v[15], -1.0f);  // 0.5 * 0 - 1
  EXPECT_EQ(v[31], 6.5f);   // 0.5 * 15 - 1
}

// q5_0 {d, qh[4], qs[16]}: value = d * (q - 16); bit j of qh (little-endian) is element j's
// fifth bit.
TEST(TensorTypesDecode, Q5_0HighBitsComeFromQh) {
  Block b(TensorType::q5_0);
  b.set_half(0, kHalfQuarter);  // d = 0.25
  b.set(2 + 0, 0x01);           // element 0's fifth bit
  b.set(2 + 2, 0x02);           // bit 17: element 17's fifth bit
  b.set(6 + 0, 0x35);           // element 0: 5, element 16: 3
  b.set(6 + 1, 0x2f);           // element 1: 15, element 17: 2
  const auto v = b.decode();
  EXPECT_EQ(v[0], 1.25f);    // (5 + 16 - 16) * 0.25
  EXPECT_EQ(v[16], -3.25f);  // (3 - 16) * 0.25
  EXPECT_EQ(v[1], -0.25f);   // (15 - 16) * 0.25
  EXPECT_EQ(v[17], 0.5f);    // (2 + 16 - 16) * 0.25
  EXPECT_EQ(v[2], -4.0f);    // (0 - 16) * 0.25
}

// q5_1 {d, m, qh[4], qs[16]}: value = d * q + m.
TEST(TensorTypesDecode, Q5_1) {
  Block b(TensorType::q5_1);
  b.set_half(0, kHalfOne);           // d = 1
  b.set_half(2, kHalfMinusSixteen);  // m = -16
  b.set(4 + 3, 0x80);                // bit 31: element 31's fifth bit
  b.set(8 + 15, 0x79);               // element 15: 9, element 31: 7
  const auto v = b.decode();
  EXPECT_EQ(v[31], 7.0f);   // 7 + 16 - 16
  EXPECT_EQ(v[15], -7.0f);  // 9 - 16
  EXPECT_EQ(v[0], -16.0f);  // 0 - 16
}

// The q4_K/q5_K header used below: d = 1, dmin = 0.5, and 6-bit (scale, min) pairs
// sub-block 0: (3, 2), sub-block 1: (7, 1), sub-block 5: (45, 38), the others (0, 0). Sub-blocks
// 0-3 keep theirs in the low six bits of bytes j and j + 4; sub-block 5 keeps its low nibbles in
// byte 9 and its top two bits in the top bits of bytes 1 (scale) and 5 (min).
void set_k_header(Block& b) {
  b.set_half(0, kHalfOne);
  b.set_half(2, kHalfHalf);
  b.set(4 + 0, 3);
  b.set(4 + 4, 2);
  b.set(4 + 1, 7 | (2 << 6));  // 45 >> 4 = 2
  b.set(4 + 5, 1 | (2 << 6));  // 38 >> 4 = 2
  b.set(4 + 9, (45 & 15) | (38 & 15) << 4);
}

// q4_K {d, dmin, scales[12], qs[128]}: value = d * scale * q - dmin * min; each 32 bytes of qs
// hold 64 elements, the first 32 in the low nibbles.
TEST(TensorTypesDecode, Q4_K) {
  Block b(TensorType::q4_K);
  set_k_header(b);
  const size_t qs = 16;
  b.set(qs + 0, 0x09);       // element 0 (sub-block 0): 9
  b.set(qs + 1, 0xa0);       // element 33 (sub-block 1): 10; element 1: 0
  b.set(qs + 64 + 4, 0xc0);  // element 164 (sub-block 5): 12; element 132 (sub-block 4): 0
  const auto v = b.decode();
  EXPECT_EQ(v[0], 26.0f);     // 3 * 9 - 0.5 * 2
  EXPECT_EQ(v[1], -1.0f);     // 3 * 0 - 0.5 * 2
  EXPECT_EQ(v[33], 69.5f);    // 7 * 10 - 0.5 * 1
  EXPECT_EQ(v[164], 521.0f);  // 45 * 12 - 0.5 * 38
  EXPECT_EQ(v[160], -19.0f);  // 45 * 0 - 0.5 * 38
  EXPECT_EQ(v[132], 0.0f);    // sub-block 4: scale 0, min 0
}

// q5_K {d, dmin, scales[12], qh[32], qs[128]}: as q4_K, with element e's fifth bit in bit e / 32
// of qh[e % 32].
TEST(TensorTypesDecode, Q5_K) {
  Block b(TensorType::q5_K);
  set_k_header(b);
  const size_t qh = 16, qs = 48;
  b.set(qs + 0, 0x09);
  b.set(qs + 1, 0xa0);
  b.set(qs + 64 + 4, 0xc0);
  b.set(qh + 4, 1 << 5);  // element 164 = 5 * 32 + 4
  b.set(qh + 1, 1 << 1);  // element 33 = 1 * 32 + 1
  const auto v = b.decode();
  EXPECT_EQ(v[0], 26.0f);      // 3 * 9 - 0.5 * 2
  EXPECT_EQ(v[1], -1.0f);      // qh[1] bit 0 clear
  EXPECT_EQ(v[33], 181.5f);    // 7 * (10 + 16) - 0.5 * 1
  EXPECT_EQ(v[164], 1241.0f);  // 45 * (12 + 16) - 0.5 * 38
  EXPECT_EQ(v[160], -19.0f);
}

// q6_K {ql[128], qh[64], int8 scales[16], d}: value = d * scale[e / 16] * (q - 32). In each half
// of 128 elements, element r's low nibble is in ql[r % 32 + 32 * (r / 32 odd)] (low nibble for
// r < 64, high above) and its top two bits are bits 2 * (r / 32) of qh[r % 32].
TEST(TensorTypesDecode, Q6_K) {
  Block b(TensorType::q6_K);
  const size_t qh = 128, scales = 192;
  b.set_half(208, kHalfHalf);  // d = 0.5
  b.set(scales + 0, 2);
  b.set(scales + 6, 4);
  b.set(scales + 9, 0xfd);  // -3
  b.set(scales + 12, 1);
  b.set(0, 0x05);              // element 0: low 5
  b.set(qh + 0, 2);            //            high 2 -> 37
  b.set(36, 0x10);             // element 100 (group 3, lane 4): low 1
  b.set(qh + 4, 2 << 6);       //            high 2 -> 33
  b.set(64 + 8, 0xf0);         // element 200 (half 1, group 2, lane 8): low 15
  b.set(qh + 32 + 8, 3 << 4);  //            high 3 -> 63
  const auto v = b.decode();   // element 150 (half 1, group 0, lane 22): code 0
  EXPECT_EQ(v[0], 5.0f);       // 0.5 * 2 * (37 - 32)
  EXPECT_EQ(v[100], 2.0f);     // 0.5 * 4 * (33 - 32)
  EXPECT_EQ(v[150], 48.0f);    // 0.5 * -3 * (0 - 32)
  EXPECT_EQ(v[200], 15.5f);    // 0.5 * 1 * (63 - 32)
  EXPECT_EQ(v[4], -32.0f);     // 0.5 * 2 * (0 - 32)
}

// --- encoding -----------------------------------------------------------------------------------

const TensorType kNewTypes[] = {TensorType::q4_1,   TensorType::q5_0, TensorType::q5_1,
                                TensorType::q2_K,   TensorType::q3_K, TensorType::q4_K,
                                TensorType::q5_K,   TensorType::q6_K, TensorType::iq4_nl,
                                TensorType::iq4_xs, TensorType::mxfp4};

// RMS error of 4096 uniform values in [-1, 1), seed 42, as measured (f16 scales included):
// q4_1 0.03582, q5_0 0.01819, q5_1 0.01714, q2_K 0.13611, q3_K 0.07272, q4_K 0.03198, q5_K
// 0.01603, q6_K 0.00784, each near its step / sqrt(12); iq4_nl 0.03731, iq4_xs 0.03763, mxfp4
// 0.08432 (a power-of-two scale, and E2M1's top levels 4, 6, 8, 12 are coarse). The bounds leave
// 10% headroom; a swapped nibble or misplaced high bit in the encoder gives errors of several
// tenths.
double rms_bound(TensorType type) {
  switch (type) {
    case TensorType::q4_1:
      return 0.0394;
    case TensorType::q5_0:
      return 0.0200;
    case TensorType::q5_1:
      return 0.0189;
    case TensorType::q2_K:
      return 0.1497;
    case TensorType::q3_K:
      return 0.0800;
    case TensorType::q4_K:
      return 0.0352;
    case TensorType::q5_K:
      return 0.0176;
    case TensorType::q6_K:
      return 0.0086;
    case TensorType::iq4_nl:
      return 0.0410;
    case TensorType::iq4_xs:
      return 0.0414;
    case TensorType::mxfp4:
      return 0.0928;
    default:
      return 0;
  }
}

TEST(TensorTypesRoundTrip, RandomRowsStayWithinMeasuredError) {
  const auto x = random_values(42, 4096);
  for (TensorType type : kNewTypes) {
    SCOPED_TRACE(to_string(type));
    const double rms = rms_error(x, round_trip(type, x));
    EXPECT_LT(rms, rms_bound(type));
    EXPECT_GT(rms, 0.0);
  }
}

// Values on the type's own grid come back exactly: q4_1 with d = 0.125, m = -1; q5_0 with
// d = 1/16 and the largest magnitude at code 0 (-16 * d).
TEST(TensorTypesRoundTrip, ValuesOnTheGridAreExact) {
  std::vector<float> q4_1(32), q5_0(32);
  for (uint32_t i = 0; i < 32; ++i) {
    q4_1[i] = -1.0f + 0.125f * static_cast<float>((i * 7) % 16);
    q5_0[i] = 0.0625f * static_cast<float>(static_cast<int>((i * 11) % 32) - 16);
  }
  q4_1[3] = -1.0f + 0.125f * 15;  // make sure the full span is there
  q5_0[5] = -1.0f;                // code 0: the largest magnitude, negative
  EXPECT_EQ(round_trip(TensorType::q4_1, q4_1), q4_1);
  EXPECT_EQ(round_trip(TensorType::q5_0, q5_0), q5_0);
}

TEST(TensorTypesRoundTrip, AllZeroInputDecodesToZero) {
  const std::vector<float> zeros(512, 0.0f);
  for (TensorType type : kNewTypes) {
    SCOPED_TRACE(to_string(type));
    const auto decoded = round_trip(type, zeros);
    for (float v : decoded) ASSERT_EQ(v, 0.0f);
  }
}

// The K types' sub-block scales follow the data: a row whose sub-blocks differ in magnitude by
// 1000x keeps the relative error of each sub-block small.
TEST(TensorTypesRoundTrip, KTypesScaleEachSubBlock) {
  auto x = random_values(7, 256);
  for (size_t i = 0; i < 32; ++i) x[i] *= 0.01f;
  for (TensorType type : {TensorType::q4_K, TensorType::q5_K, TensorType::q6_K}) {
    SCOPED_TRACE(to_string(type));
    const auto y = round_trip(type, x);
    const std::vector<float> small_x(x.begin(), x.begin() + 32), small_y(y.begin(), y.begin() + 32);
    EXPECT_LT(rms_error(small_x, small_y), 0.0015);  // values up to 0.01
  }
}

TEST(TensorTypesDot, EqualsTheDotOfTheDecodedRow) {
  const size_t n = 512;
  const auto w = random_values(1, n);
  const auto x = random_values(2, n);
  for (TensorType type : kNewTypes) {
    SCOPED_TRACE(to_string(type));
    std::vector<std::byte> row(row_bytes(type, n));
    quantize_row(type, w.data(), row.data(), n);
    std::vector<float> decoded(n);
    dequantize_row(type, row.data(), decoded.data(), n);
    double expected = 0, magnitude = 0;
    for (size_t i = 0; i < n; ++i) {
      expected += double(decoded[i]) * x[i];
      magnitude += std::fabs(double(decoded[i]) * x[i]);
    }
    EXPECT_NEAR(dot_row(type, row.data(), x.data(), n), expected, 1e-6 * magnitude);
  }
}

// A pass's tokens share each decoded block (dot_row_tokens) and still get dot_row's bits.
TEST(TensorTypesDot, TokensOfAPassGetDotRowsBits) {
  const size_t n = 768, tokens = 5, stride = n + 3;
  const auto w = random_values(3, n);
  const auto x = random_values(4, tokens * stride);
  for (TensorType type :
       {TensorType::f32, TensorType::f16, TensorType::q8_0, TensorType::q4_K, TensorType::q6_K}) {
    SCOPED_TRACE(to_string(type));
    std::vector<std::byte> row(row_bytes(type, n));
    quantize_row(type, w.data(), row.data(), n);
    std::vector<float> out(tokens * stride, -1.0f);
    dot_row_tokens(type, row.data(), x.data(), n, tokens, stride, out.data());
    for (size_t t = 0; t < tokens; ++t) {
      const float one = dot_row(type, row.data(), x.data() + t * stride, n);
      EXPECT_EQ(std::memcmp(&out[t * stride], &one, sizeof one), 0) << "token " << t;
      EXPECT_EQ(out[t * stride + 1], -1.0f);  // only each token's own output is written
    }
  }
}

}  // namespace
}  // namespace gauntlet::core
