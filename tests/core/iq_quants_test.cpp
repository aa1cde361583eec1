// iq2_xxs, iq2_xs, iq2_s, iq3_xxs, iq3_s, iq1_s and iq1_m bit for bit as ggml has them: the
// encoders write the bytes ggml-quants.c's own quantize_iq2_xxs, _iq2_xs, _iq2_s, _iq3_xxs,
// _iq3_s, _iq1_s and _iq1_m write (llama.cpp's ggml-quants.c compiled on its own with gcc 12 -O2
// on x86-64 and glibc 2.36, its tables initialised by iq2xs_init_impl and iq3xs_init_impl), with
// an importance row and, for the types ggml lets go without one, without; the decoders agree with
// ggml's dequantize_row_iq* on random bytes; hand-built blocks decode to values worked out by hand
// from ggml's formulas; the types whose ggml encoder asserts on a missing importance row refuse.
// The iq1 encoders sort with qsort, and ggml's bytes depend on the order it leaves equal values
// in: glibc's (a stable merge sort) is the one followed; taking equal values the other way round
// changes iq1_m's encoding of these rows with importance.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/half.h"
#include "core/tensor_type.h"
#include "tests/support/ggml_reference_rows.h"

namespace gauntlet::core {
namespace {

using gauntlet::testing::decode;
using gauntlet::testing::fnv1a;
using gauntlet::testing::hex;
using gauntlet::testing::lcg_row;
using gauntlet::testing::put_half;

// The importance row given to ggml and to gauntlet: w[i] = 1 + (i % 7) / 4 over a row's
// n_per_row values (llama.cpp passes every row of a tensor the same imatrix slice).
std::vector<float> importance_row(size_t n) {
  std::vector<float> w(n);
  for (size_t i = 0; i < n; ++i) w[i] = 1.0f + static_cast<float>(i % 7) * 0.25f;
  return w;
}

// x encoded as rows of n_per_row values, as ggml's quantize_<type>(x, dst, nrow, n_per_row, w)
// does: each row with the same importance row w (n_per_row values) or none.
std::vector<uint8_t> encode_rows(TensorType type, const std::vector<float>& x, size_t n_per_row,
                                 bool weighted) {
  const std::vector<float> w = importance_row(n_per_row);
  const size_t row = row_bytes(type, n_per_row);
  std::vector<uint8_t> bytes(x.size() / n_per_row * row);
  for (size_t r = 0; r < x.size() / n_per_row; ++r)
    quantize_row(type, x.data() + r * n_per_row,
                 reinterpret_cast<std::byte*>(bytes.data()) + r * row, n_per_row,
                 weighted ? w.data() : nullptr);
  return bytes;
}

// What ggml wrote (/tmp/h50enc/ref_iq.c, linked to ggml-quants.c): the first block of lcg_row(512)
// encoded as one row of 512, FNV-1a 64 of lcg_row(16384) encoded as 4 rows of 4096, and of
// ggml's dequantize_row_<type> of that.
struct IqEncoding {
  TensorType type;
  bool weighted;
  const char* first_block;
  uint64_t row_hash;
  uint64_t values_hash;
};

TEST(IqQuants, EncodersWriteGgmlsBytes) {
  const IqEncoding cases[] = {
      {TensorType::iq2_xxs, true,
       "142939f50000b7ccff0ff360000086120000f5c9c9c900000040000014e16d2477f3cfd4bdf500000070cdd600"
       "00d5ca2683bdbdbdc9ffffff1f0000f6c9bff664cb",
       0xed57be1638bf1db4ull, 0xc5941dae37504aafull},
      {TensorType::iq2_xs, true,
       "1a2a3e6ef133fffffffff50d614a00000000ff01ff01ff01ff0183dbe8911bb868378f019701ff01ff0160ab53"
       "2bee366b33ffffffffffffffffc17f8edbf027e1b6000022f235090090",
       0x608023e0f570588cull, 0xfb24fdba12da36daull},
      {TensorType::iq3_xxs, true,
       "af23a01184e83a453c475ed8d91e00000000a8e5e5a8c0c0e5c03a0c4745fe761ae558bb56eea1a1a1a192d8e1"
       "fc00000000c0bba8e5bbbea8c000000000f3ffaaa6b7ccff1f86120000000000306d2477f300000080d5ca2673"
       "ffffff1fbff664bb",
       0xf4500c74a4a7fdbbull, 0x67040a2c105749d3ull},
      {TensorType::iq3_xxs, false,
       "7824a011c4e847453c475ed8c21e00000000a8d1e5a8c0c0c0c03a0c4745e5740cd3a6bb56eea1a1a1a198c0e1"
       "fc00000000bfbbbee5a8bea8c000000000f3ffaaa6b7ccff0f86120000000000306d2477f300000070d5d22673"
       "ffffff0fbff6649b",
       0x57b4cc1dd6d83e14ull, 0x9639c5835f9c565eull},
      {TensorType::iq1_s, true,
       "7d350a430505b94d0505ffffffff0505bdd2c831ffff422005050000000005055a0715892789ff1fa4ffff2f16"
       "c90080a460",
       0xc5a9dd232776e82full, 0x581d311512a74804ull},
      {TensorType::iq3_s, true,
       "3e243b1f57d7727f728066da8e410000000052adb5b5b5b5b5b56e1a807fd7e61eadfe7f46e03c3c3c402355c6"
       "f600000000b5b5b9b5b5b9b5b900000000e8fe5a540d06ff90fa0ffff0b799ffff06a5000000000000e9685c13"
       "0000000051859b9dffffffff3fec83fb00f377a0",
       0x9cd989392b955f4bull, 0x2610477ccb808ceeull},
      {TensorType::iq3_s, false,
       "6a243b1f0ed76e7f718060ba8e930000000052b9b5b5b5b5b5b56e1a807fd2e61eadfe7ffce73c3c3c402355c6"
       "d500000000b5b5b9b5b5b9b5b900000000e8fc15540d06ff90fa0ffff0b799ffff06a5000000000000e9685c13"
       "0000000051859b9dffffffff3fec83fb00f377a0",
       0x8e697f4d5ce4a985ull, 0xf002a68ce7826e1aull},
      {TensorType::iq2_s, true,
       "b1284ac7ffffc5150000fffffffffa9621c4a339ffffc9998dcaffffffff44cfc0f8b799ffff06a50000000000"
       "00e9685c130000000051859b9dffffffff3fec83fbfc02ffc8fe9aff36000033f5490a00e1",
       0xdf9783685726de36ull, 0xa5bc44c1fb73771dull},
      {TensorType::iq2_s, false,
       "b6284af3ffff1a150000ffffffff15de21c4a339ffffc9998dcaffffffff44cfc09ab799ffff06a50000000000"
       "00e9685c130000000051859b9dffffffff3fec83fbfc03ffcdfe9aff76010033f4490a00c1",
       0xcaa1dbad95baf147ull, 0xdd6dbaace6796d5bull},
      {TensorType::iq1_m, true,
       "0a3c0505e34d000005050505fbebbdd2c8d505052e20064f05050505a6af5a072dccc700444452fe67442eadcc"
       "ccae020080254479b00934",
       0x854a1347ac02f779ull, 0x77b0c8af5ec43765ull},
      {TensorType::iq1_m, false,
       "0a3c0505f8330000fffffffffbebbdd9ffd505052e20064f050505058daf70072dccaf00ff7752fe6f44aea5cc"
       "ccaf0a0070006479c00934",
       0x7a38914b4d83052eull, 0x2b94cce9d9945d48ull},
  };
  for (const IqEncoding& c : cases) {
    SCOPED_TRACE(std::string(to_string(c.type)) +
                 (c.weighted ? " with importance" : " without importance"));
    const auto first = encode_rows(c.type, lcg_row(512), 512, c.weighted);
    EXPECT_EQ(hex(first.data(), block_bytes(c.type)), c.first_block);
    const auto row = encode_rows(c.type, lcg_row(16384), 4096, c.weighted);
    EXPECT_EQ(fnv1a(row.data(), row.size()), c.row_hash);
    const auto values = decode(c.type, row);
    EXPECT_EQ(fnv1a(values.data(), values.size() * 4), c.values_hash);
  }
}

// ggml's quantize_iq2_xxs, _iq2_xs and _iq1_s GGML_ASSERT(quant_weights): gauntlet refuses with
// std::invalid_argument naming the type and the importance matrix.
TEST(IqQuants, TypesWithoutImportanceFallbackRefuse) {
  const std::vector<float> x = lcg_row(256);
  for (TensorType type : {TensorType::iq2_xxs, TensorType::iq2_xs, TensorType::iq1_s}) {
    SCOPED_TRACE(to_string(type));
    std::vector<std::byte> out(row_bytes(type, 256));
    try {
      quantize_row(type, x.data(), out.data(), 256);
      ADD_FAILURE() << "encoded without an importance row";
    } catch (const std::invalid_argument& e) {
      const std::string message = e.what();
      EXPECT_NE(message.find(to_string(type)), std::string::npos) << message;
      EXPECT_NE(message.find("importance matrix"), std::string::npos) << message;
    }
  }
}

// ggml's dequantize_row_iq* on 64 blocks of LCG bytes (s = 7 + the type's id, byte = s >> 24 per
// step of s = 1664525 s + 1013904223), then per block a finite f16 step d = 0x2c00 + (s >> 16) %
// 0x800 with the sign bit s & 1 (iq1_m: its 4 nibbles in the top of the 4 scale words).
struct RandomDecoding {
  TensorType type;
  uint32_t id;
  uint64_t bytes_hash;
  uint64_t values_hash;
};

TEST(IqQuants, DecodersMatchGgmlOnRandomBytes) {
  const RandomDecoding cases[] = {
      {TensorType::iq2_xxs, 16, 0x2e75b7009c46283full, 0xeb8703472350a185ull},
      {TensorType::iq2_xs, 17, 0x8a07b3a315f0f763ull, 0x6c6e1b85c888d895ull},
      {TensorType::iq3_xxs, 18, 0xd10a75f04effed9cull, 0xdfd4b869ab8cfa32ull},
      {TensorType::iq1_s, 19, 0x5e00319a5b63bbfaull, 0x092acdfdddefe05eull},
      {TensorType::iq3_s, 21, 0xe9bf02ca47610e57ull, 0x8efc4b687eb51d53ull},
      {TensorType::iq2_s, 22, 0x942605d8b089346aull, 0x4d1ca4701c8d43a8ull},
      {TensorType::iq1_m, 29, 0x710110c06ae7be0full, 0x8a241b055070a3cbull},
  };
  for (const RandomDecoding& c : cases) {
    SCOPED_TRACE(to_string(c.type));
    const size_t nb = 64, bb = block_bytes(c.type);
    std::vector<uint8_t> q(nb * bb);
    uint32_t s = 7u + c.id;
    for (uint8_t& b : q) {
      s = s * 1664525u + 1013904223u;
      b = static_cast<uint8_t>(s >> 24);
    }
    for (size_t b = 0; b < nb; ++b) {
      s = s * 1664525u + 1013904223u;
      const auto d = static_cast<uint16_t>(0x2c00u + ((s >> 16) % 0x800u) + ((s & 1u) << 15));
      uint8_t* p = q.data() + b * bb;
      if (c.type != TensorType::iq1_m) {
        p[0] = static_cast<uint8_t>(d & 0xff);
        p[1] = static_cast<uint8_t>(d >> 8);
      } else {
        for (int k = 0; k < 4; ++k)
          p[48 + 2 * k + 1] =
              static_cast<uint8_t>((p[48 + 2 * k + 1] & 0x0f) | (((d >> (4 * k)) & 0xf) << 4));
      }
    }
    EXPECT_EQ(fnv1a(q.data(), q.size()), c.bytes_hash);
    const auto values = decode(c.type, q);
    EXPECT_EQ(fnv1a(values.data(), values.size() * 4), c.values_hash);
  }
}

// --- hand-built blocks, decoded by ggml-quants.c's dequantize_row_iq* formulas worked by hand ----
// Grid entries used (ggml-common.h): iq2xxs_grid[1] = iq2xs_grid[1] = iq2s_grid[1] =
// 0x080808080808082b, iq2xs_grid[300] = 0x1908190808191908, iq2s_grid[513] = 0x1908081919080819,
// iq3xxs_grid[1] = 0x04040414, [255] = 0x3e341c04, iq3s_grid[1] = 0x01010103, [257] = 0x05090705,
// iq1s_grid[0] = all -1, [1] = 0xffffffffffffff01, [1029] = all 0. A grid entry's byte j is
// value j. d is 1 (f16 0x3c00) in each.

void put_u16(std::vector<uint8_t>& b, size_t at, uint16_t v) { put_half(b, at, v); }

void put_u32(std::vector<uint8_t>& b, size_t at, uint32_t v) {
  for (int i = 0; i < 4; ++i) b[at + static_cast<size_t>(i)] = static_cast<uint8_t>(v >> (8 * i));
}

void expect_values(const std::vector<float>& got, const std::vector<float>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) EXPECT_EQ(got[i], want[i]) << "value " << i;
}

void set(std::vector<float>& v, size_t at, std::initializer_list<float> values) {
  for (float x : values) v[at++] = x;
}

// iq2_xxs: per 32 values u32 a (4 grid indices) and b (4 sign codes of 7 bits, level in bits
// 28..31); db = d * (0.5 + level) * 0.25; sign code s stands for s and its parity as bit 7.
TEST(IqQuants, Iq2XxsHandBuiltBlock) {
  std::vector<uint8_t> b(66, 0);
  put_half(b, 0, 0x3c00);
  put_u32(b, 2, 0x00000100u);                         // indices 0, 1, 0, 0
  put_u32(b, 6, (3u << 28) | (1u << 0) | (2u << 7));  // level 3; sign codes 1, 2, 0, 0
  std::vector<float> want(256, 1.0f);                 // level 0: 0.125 * 8
  // db = 3.5 / 4 = 0.875; code 1 = 0x81 (values 0, 7 negative), code 2 = 0x82 (1, 7).
  set(want, 0, {-7, 7, 7, 7, 7, 7, 7, -7});
  set(want, 8, {37.625f, -7, 7, 7, 7, 7, 7, -7});
  for (size_t i = 16; i < 32; ++i) want[i] = 7;
  expect_values(decode(TensorType::iq2_xxs, b), want);
}

// iq2_xs: u16 per 8 values (9-bit index, 7-bit sign code), scales[i] the levels of 16 + 16.
TEST(IqQuants, Iq2XsHandBuiltBlock) {
  std::vector<uint8_t> b(74, 0);
  put_half(b, 0, 0x3c00);
  put_u16(b, 2, static_cast<uint16_t>(1 | (3 << 9)));  // index 1, sign code 3 = 0x03
  put_u16(b, 6, 300);                                  // index 300, no signs
  b[66] = 0x21;                                        // db 1.5 / 4 = 0.375, 2.5 / 4 = 0.625
  std::vector<float> want(256, 1.0f);
  set(want, 0, {-16.125f, -3, 3, 3, 3, 3, 3, 3});
  for (size_t i = 8; i < 16; ++i) want[i] = 3;
  set(want, 16, {5, 15.625f, 15.625f, 5, 5, 15.625f, 5, 15.625f});
  for (size_t i = 24; i < 32; ++i) want[i] = 5;
  expect_values(decode(TensorType::iq2_xs, b), want);
}

// iq2_s: index low bytes qs[0..31], 8 free signs qs[32..63], index bits 8-9 in qh (2 per group).
TEST(IqQuants, Iq2SHandBuiltBlock) {
  std::vector<uint8_t> b(82, 0);
  put_half(b, 0, 0x3c00);
  b[2 + 0] = 1;      // group 0: index 1
  b[2 + 2] = 1;      // group 2: index 1 | 2 << 8 = 513
  b[2 + 32] = 0x80;  // group 0: value 7 negative
  b[2 + 34] = 0x01;  // group 2: value 0 negative
  b[66] = 0x20;      // qh[0]: group 2's bits 8-9 = 2
  b[74] = 0x10;      // db 0.125, 0.375
  std::vector<float> want(256, 1.0f);
  set(want, 0, {5.375f, 1, 1, 1, 1, 1, 1, -1});
  set(want, 16, {-9.375f, 3, 3, 9.375f, 9.375f, 3, 3, 9.375f});
  for (size_t i = 24; i < 32; ++i) want[i] = 3;
  expect_values(decode(TensorType::iq2_s, b), want);
}

// iq3_xxs: 8 indices per 32 values, then u32 per 32: 4 sign codes, level in bits 28..31;
// db = d * (0.5 + level) * 0.5.
TEST(IqQuants, Iq3XxsHandBuiltBlock) {
  std::vector<uint8_t> b(98, 0);
  put_half(b, 0, 0x3c00);
  b[2 + 0] = 1;
  b[2 + 1] = 255;
  put_u32(b, 66, (1u << 28) | 1u);     // db 0.75; sign code 1 = 0x81
  std::vector<float> want(256, 1.0f);  // level 0: 0.25 * 4
  set(want, 0, {-15, 3, 3, 3, 3, 21, 39, -46.5f});
  for (size_t i = 8; i < 32; ++i) want[i] = 3;
  expect_values(decode(TensorType::iq3_xxs, b), want);
}

// iq3_s: index low bytes, 9th bits in qh, 8 free signs per 8 values, 4-bit levels per 32:
// db = d * (1 + 2 level).
TEST(IqQuants, Iq3SHandBuiltBlock) {
  std::vector<uint8_t> b(110, 0);
  put_half(b, 0, 0x3c00);
  b[2 + 0] = 1;  // iq3s_grid[1]
  b[2 + 1] = 1;  // with qh bit 1: iq3s_grid[257]
  b[66] = 0x02;
  b[74] = 0x11;   // values 0 and 4 negative
  b[106] = 0x21;  // db 3 for values 0..31, 5 for 32..63
  std::vector<float> want(256, 1.0f);
  set(want, 0, {-9, 3, 3, 3, -15, 21, 27, 15});
  for (size_t i = 8; i < 32; ++i) want[i] = 3;
  for (size_t i = 32; i < 64; ++i) want[i] = 5;
  expect_values(decode(TensorType::iq3_s, b), want);
}

// iq1_s: per 32 values u16 qh: index bits 8-10 per group (3 each), level in bits 12..14,
// bit 15 the delta's sign; value = d (2 level + 1) (grid + delta), delta = +-0.125.
TEST(IqQuants, Iq1SHandBuiltBlock) {
  std::vector<uint8_t> b(50, 0);
  put_half(b, 0, 0x3c00);
  b[2 + 0] = 1;  // iq1s_grid[1]
  b[2 + 1] = 5;  // with bits 8-10 = 4: iq1s_grid[1029]
  put_u16(b, 34, static_cast<uint16_t>(0x8000u | (2u << 12) | (4u << 3)));  // dl 5, delta -0.125
  std::vector<float> want(256, -0.875f);  // dl 1, delta +0.125, iq1s_grid[0]
  set(want, 0, {4.375f, -5.625f, -5.625f, -5.625f, -5.625f, -5.625f, -5.625f, -5.625f});
  for (size_t i = 8; i < 16; ++i) want[i] = -0.625f;
  for (size_t i = 16; i < 32; ++i) want[i] = -5.625f;
  expect_values(decode(TensorType::iq1_s, b), want);
}

// iq1_m: qs, qh (per 16 values: index bits 8-10 and a delta sign bit per group of 8), 3-bit
// levels per 8+8 in the 4 scale words, whose top nibbles are the f16 d.
TEST(IqQuants, Iq1MHandBuiltBlock) {
  std::vector<uint8_t> b(56, 0);
  b[0] = 1;                                             // iq1s_grid[1]
  b[1] = 5;                                             // with qh bits 4-6 = 4: iq1s_grid[1029]
  b[32] = static_cast<uint8_t>(0x08 | (4 << 4));        // group 0: delta -0.125; group 1: +0.125
  put_u16(b, 48, static_cast<uint16_t>(1 | (2 << 3)));  // dl 3 for values 0..15, 5 for 16..31
  put_u16(b, 52, 0xc000);                               // d = f16 0x3c00: nibble 0xc ...
  put_u16(b, 54, 0x3000);                               // ... and 0x3
  std::vector<float> want(256, -0.875f);
  set(want, 0, {2.625f, -3.375f, -3.375f, -3.375f, -3.375f, -3.375f, -3.375f, -3.375f});
  for (size_t i = 8; i < 16; ++i) want[i] = 0.375f;
  for (size_t i = 16; i < 32; ++i) want[i] = -4.375f;
  expect_values(decode(TensorType::iq1_m, b), want);
}

}  // namespace
}  // namespace gauntlet::core
