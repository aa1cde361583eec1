// q1_0 and q2_0 bit for bit as ggml has them (ggml-common.h block_q1_0, block_q2_0): a hand-made
// block of each decodes to the values worked out by hand, and the encoders and decoders write and
// read the bytes ggml's own quantize_row_q1_0_ref / q2_0_ref and dequantize_row_q1_0 / q2_0 do
// (ggml-quants.c of llama.cpp as node-llama-cpp 3.22.1 ships it, compiled on its own and run on the
// same rows).
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "core/tensor_type.h"
#include "tests/support/ggml_reference_rows.h"

namespace gauntlet::core {
namespace {

using gauntlet::testing::decode;
using gauntlet::testing::put_half;

TEST(LowBitQuants, HandMadeBlocksDecode) {
  std::vector<uint8_t> q1(18, 0);
  put_half(q1, 0, 0x3800);  // 0.5
  q1[2] = 0x05;             // elements 0 and 2 set
  q1[17] = 0x80;            // element 127 set
  const auto v1 = decode(TensorType::q1_0, q1);
  EXPECT_EQ(v1[0], 0.5f);
  EXPECT_EQ(v1[1], -0.5f);
  EXPECT_EQ(v1[2], 0.5f);
  EXPECT_EQ(v1[126], -0.5f);
  EXPECT_EQ(v1[127], 0.5f);

  std::vector<uint8_t> q2(18, 0);
  put_half(q2, 0, 0xc000);  // -2
  q2[2] = 0xe4;             // codes 0, 1, 2, 3 for elements 0..3
  const auto v2 = decode(TensorType::q2_0, q2);
  EXPECT_EQ(v2[0], 2.0f);   // (0 - 1) * -2
  EXPECT_EQ(v2[1], -0.0f);  // 0 * -2
  EXPECT_TRUE(std::signbit(v2[1]));
  EXPECT_EQ(v2[2], -2.0f);
  EXPECT_EQ(v2[3], -4.0f);
  EXPECT_EQ(v2[4], 2.0f);  // code 0 in byte 1
}

TEST(LowBitQuants, EncodersWriteGgmlsBytes) {
  gauntlet::testing::expect_ggml_encodings({
      {TensorType::q1_0, "c93a48660000f95affffffffffff1697a3ec", 0x21062a00b7c75623ull,
       0x8fe11cb576522425ull},
      {TensorType::q2_0, "663685542528555555555555555555555555", 0xaf940087222be62bull,
       0x0ece747d6f6839adull},
  });
}

}  // namespace
}  // namespace gauntlet::core
