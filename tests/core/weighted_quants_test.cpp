// The encoders given an importance row (llama.cpp's imatrix slice, quant_weights in ggml) write
// the bytes ggml-quants.c's quantize_<type>(src, dst, nrow, n_per_row, quant_weights) writes:
// quantize_row_q4_0_impl, q4_1_impl, q5_0_impl, q5_1_impl, q2_K_impl ... q6_K_impl and
// quantize_row_iq4_nl_impl with weights; the types whose ggml encoder ignores quant_weights
// (q8_0, tq1_0, tq2_0, mxfp4, nvfp4; f32, f16 and bf16 in ggml_quantize_chunk) write what they
// write without it. The expected bytes and hashes are ggml's own (ggml-quants.c of llama.cpp as
// node-llama-cpp 3.22.1 ships it, compiled on its own with gcc -O2 and run on the same rows and
// importance).
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <vector>

#include "core/tensor_type.h"
#include "tests/support/ggml_reference_rows.h"

namespace gauntlet::core {
namespace {

using gauntlet::testing::encode;
using gauntlet::testing::fnv1a;
using gauntlet::testing::hex;
using gauntlet::testing::lcg_row;

// The importance row: w[i] = 0.5 + (i % 13) / 8, the same for every row of a tensor.
std::vector<float> importance(size_t n) {
  std::vector<float> w(n);
  for (size_t i = 0; i < n; ++i) w[i] = 0.5f + static_cast<float>(i % 13) * 0.125f;
  return w;
}

// x as rows of n_per_row elements, each encoded with the same importance row.
std::vector<uint8_t> encode_weighted(TensorType type, const std::vector<float>& x,
                                     size_t n_per_row) {
  const std::vector<float> w = importance(n_per_row);
  const uint64_t row_size = row_bytes(type, n_per_row);
  std::vector<uint8_t> bytes(row_bytes(type, x.size()));
  for (size_t r = 0; r < x.size() / n_per_row; ++r) {
    quantize_row(type, x.data() + r * n_per_row,
                 reinterpret_cast<std::byte*>(bytes.data()) + r * row_size, n_per_row, w.data());
  }
  return bytes;
}

// What ggml wrote: the first block of lcg_row(512) quantized as one row with importance(512),
// FNV-1a 64 of lcg_row(16384) quantized as 4 rows of 4096 with importance(4096), and of the same
// rows quantized without weights (quant_weights NULL).
struct WeightedEncoding {
  TensorType type;
  const char* first_block;
  uint64_t row_hash;
  uint64_t unweighted_hash;
};

void expect_weighted_encodings(std::initializer_list<WeightedEncoding> cases) {
  for (const WeightedEncoding& c : cases) {
    SCOPED_TRACE(to_string(c.type));
    const auto first = encode_weighted(c.type, lcg_row(512), 512);
    EXPECT_EQ(hex(first.data(), block_bytes(c.type)), c.first_block);
    const auto x = lcg_row(16384);
    const auto weighted = encode_weighted(c.type, x, 4096);
    EXPECT_EQ(fnv1a(weighted.data(), weighted.size()), c.row_hash);
    const auto plain = encode(c.type, x);
    EXPECT_EQ(fnv1a(plain.data(), plain.size()), c.unweighted_hash);
  }
}

TEST(WeightedQuants, LegacyEncodersWriteGgmlsWeightedBytes) {
  expect_weighted_encodings({
      {TensorType::q4_0, "3dab999b9c949e9a96999b98919c9d94919f", 0xc8b2f52792cfcc99ull,
       0xd787a64187ef179dull},
      {TensorType::q4_1, "8a2aedb56664636c6065696664676f63626c6f60", 0x232cbeb29f6adc77ull,
       0x920a6766d745af15ull},
      {TensorType::q5_0, "72a6b79bffff332629362e243c33273020393a36313f", 0xa42eb68457f436c8ull,
       0xa51bd90ee2f0ff75ull},
      {TensorType::q5_1, "70260bb648640000ccd9d6c9d1dbc3ccd8cfdfc6c5c9cec0", 0x5c62c89e6b778796ull,
       0xf71feb392d10fdc4ull},
  });
}

TEST(WeightedQuants, KQuantEncodersWriteGgmlsWeightedBytes) {
  expect_weighted_encodings({
      {TensorType::q2_K,
       "11000000020234ff05039900101011ce3db5612be86d2e7df1bae33db8773bf4f0f2333073b371b27270b3b031"
       "f2f2f1137c1a69067eb2eea3db555cd8193c436252bff7738afe17176ee773277f0b772233ec35",
       0xd9aa7e203e7ff397ull, 0x7971cee9108958a7ull},
      {TensorType::q3_K,
       "0b33292a032b8aab81a3003bb3282a03282880a0a08880282000a82820080828c9c106d2174ddf4d058401ca86"
       "0ac543c0814140c101c041c1c04100808181c0088805cb0d4a45c940c44eccc4070b849ddd54d41c9dd1145491"
       "d4dc54d458d8d280f000f5e5f7806a6a4a22c0ab",
       0x55338c55a01ea79cull, 0x279722df16c57f8eull},
      {TensorType::q4_K,
       "c622522e448107ff048101ff02744174a675338c81b6c9b644983fa3935c9f70767676767676767676767676"
       "767676766f8e7d6b9c7d6c7e9e8e9d6f8f7d6f9efdcd1d0d6d9d4dad5d6dad8d2dcdcded3ed199b47bd829d9"
       "0dad57f19093d21f86868788878786878786888887878888748973867188888786848485847478824565a6f6"
       "86c4e6052545f55626662456",
       0x48ac210415926d1bull, 0xecfd52c3a95a8a65ull},
      {TensorType::q5_K,
       "7c1e762e448107ff048100ff0265415516ec3ca71e76d7f69cbf0da6ae2d679c2e2eb6b6a6aea62e2626be3e"
       "262e3e3e6dfa771a227c948d99306f6736ca4ff10d0e0e0d0e0e0d0d0e0d0e0d0d0d0d0ddc1c08d546f9d7fc"
       "4a2b49dd2f0acd4bf9992909d929a959b9d95929599999e96db13479e7b143a30b4cbef23037a42f0d0d1000"
       "0f1e1d0f0f1c00000f1f1100fa04f80df3f303100e19f90b1afaf2068ccb4efe0e8ace0b3b9decae3dde4aae",
       0x98eef81dba648a80ull, 0xc37ab50c5906eb2cull},
      {TensorType::q6_K,
       "373b71ad9c6888365d4f6122046d224e070d0f070f0f0a0c0d0700080a0b0b09985c0074376d5f7f242d1096"
       "3e2fae5dd0205000a05040b070a0a040b02020b0227f0b36086e7c5c4413112e10196c00372742404215472323"
       "383031324210312d8344cd6b043842410736cc553533750b8f95fc0a12900b6d10d94f6ca88e42ce4683c80b8e"
       "cd8e024900cf4b80c807c0c00000408040804040818000c0c0c0004d0849044c80cc80c8454dca090d404c4c"
       "80c88cc4c0080840c84c0840004c08feff001b1622804525b202f9f9f8988296",
       0x8a93e2e5dbe95955ull, 0x55f26b95baeba7dbull},
  });
}

TEST(WeightedQuants, Iq4EncodersWriteGgmlsWeightedBytes) {
  expect_weighted_encodings({
      {TensorType::iq4_nl, "5a9aaaac9da29f9ba5aaaca890adaea2a0af", 0x9ee4c4329b48de2eull,
       0x56de641de22deaf6ull},
      {TensorType::iq4_xs,
       "99962a130207d06eaa9b9da29f9aa5aa9ca890adaea2a0af888888888888888888888888888888881111111212"
       "1112111111111110111111f6d918066a9746b75b69bb9629d8d6fa30373235313232323040333738353630828d"
       "898c868e818d808a858f8a8a8d81111211111012121111111111111112113758b7f887d7e8081838f8481867174"
       "8",
       0xe60b3a30b96ad659ull, 0xa7a0d936ca6ff4bbull},
  });
}

// The types whose ggml encoder takes no weights: the same bytes with and without them.
TEST(WeightedQuants, EncodersThatIgnoreWeightsWriteTheirUnweightedBytes) {
  expect_weighted_encodings({
      {TensorType::q8_0, "731ae6d2ba4e8ee122e6cb037fb8ae4e7886e6edeee6efeeeaecede6f0e7e9ebebe8",
       0xd2b34cb7046ec563ull, 0xd2b34cb7046ec563ull},
      {TensorType::tq1_0,
       "8180808080808080808080808080808183837d7d80808080808080807d83838380808080808080802b8080d5"
       "8080802b727fa2b87546",
       0x11356bb603810cc0ull, 0x11356bb603810cc0ull},
      {TensorType::tq2_0,
       "555555555555555555555555555555559595151555555555555555551595959556555555555555555155555955"
       "555552555555955555951515559555155515557546",
       0x9e6feab93c54baebull, 0x9e6feab93c54baebull},
      {TensorType::mxfp4, "7bbbacaeb6afaba3abadb0a7aeaea6a7af", 0xb7021cc75d67eebaull,
       0xb7021cc75d67eebaull},
      {TensorType::nvfp4,
       "19070500ca0c7dd5ef5b73faeffeeefffeeeeffee649ff6142d647960000000000000000",
       0x04474f8171cb0578ull, 0x04474f8171cb0578ull},
  });
  for (TensorType type : {TensorType::f32, TensorType::f16, TensorType::bf16}) {
    SCOPED_TRACE(to_string(type));
    const auto x = lcg_row(4096);
    EXPECT_EQ(encode_weighted(type, x, 4096), encode(type, x));
  }
}

}  // namespace
}  // namespace gauntlet::core
