// q2_K and q3_K bit for bit as ggml has them: blocks built by hand decode to values worked out by
// hand, the decoder agrees with a line-by-line transcription of ggml-quants.c's
// dequantize_row_q2_K / dequantize_row_q3_K on arbitrary bytes, and the encoder writes the bytes
// ggml's quantize_row_q2_K_ref / quantize_row_q3_K_ref write (ggml-quants.c of llama.cpp as
// node-llama-cpp 3.22.1 ships it, compiled on its own and run on the same row).
#include <gtest/gtest.h>

#include <bit>
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
using gauntlet::testing::half_at;
using gauntlet::testing::put_half;
using gauntlet::testing::same_bits;

// --- ggml-quants.c, transcribed line by line ----------------------------------------------------

std::vector<float> ggml_dequantize_row_q2_K(const std::vector<uint8_t>& bytes) {
  std::vector<float> out(bytes.size() / 84 * 256);
  float* y = out.data();
  for (size_t i = 0; i < bytes.size() / 84; ++i) {
    const uint8_t* x = bytes.data() + 84 * i;  // {scales[16], qs[64], d, dmin}
    const float d = half_at(x + 80);
    const float min = half_at(x + 82);
    const uint8_t* q = x + 16;
    int is = 0;
    float dl, ml;
    for (int n = 0; n < 256; n += 128) {
      int shift = 0;
      for (int j = 0; j < 4; ++j) {
        uint8_t sc = x[is++];
        dl = d * (sc & 0xF);
        ml = min * (sc >> 4);
        for (int l = 0; l < 16; ++l) *y++ = dl * ((int8_t)((q[l] >> shift) & 3)) - ml;
        sc = x[is++];
        dl = d * (sc & 0xF);
        ml = min * (sc >> 4);
        for (int l = 0; l < 16; ++l) *y++ = dl * ((int8_t)((q[l + 16] >> shift) & 3)) - ml;
        shift += 2;
      }
      q += 32;
    }
  }
  return out;
}

std::vector<float> ggml_dequantize_row_q3_K(const std::vector<uint8_t>& bytes) {
  std::vector<float> out(bytes.size() / 110 * 256);
  float* y = out.data();
  const uint32_t kmask1 = 0x03030303;
  const uint32_t kmask2 = 0x0f0f0f0f;
  uint32_t aux[4];
  const auto* scales = reinterpret_cast<const int8_t*>(aux);
  for (size_t i = 0; i < bytes.size() / 110; ++i) {
    const uint8_t* x = bytes.data() + 110 * i;  // {hmask[32], qs[64], scales[12], d}
    const float d_all = half_at(x + 108);
    const uint8_t* q = x + 32;
    const uint8_t* hm = x;
    uint8_t m = 1;
    std::memcpy(aux, x + 96, 12);
    uint32_t tmp = aux[2];
    aux[2] = ((aux[0] >> 4) & kmask2) | (((tmp >> 4) & kmask1) << 4);
    aux[3] = ((aux[1] >> 4) & kmask2) | (((tmp >> 6) & kmask1) << 4);
    aux[0] = (aux[0] & kmask2) | (((tmp >> 0) & kmask1) << 4);
    aux[1] = (aux[1] & kmask2) | (((tmp >> 2) & kmask1) << 4);
    int is = 0;
    float dl;
    for (int n = 0; n < 256; n += 128) {
      int shift = 0;
      for (int j = 0; j < 4; ++j) {
        dl = d_all * (scales[is++] - 32);
        for (int l = 0; l < 16; ++l) {
          *y++ = dl * ((int8_t)((q[l + 0] >> shift) & 3) - ((hm[l + 0] & m) ? 0 : 4));
        }
        dl = d_all * (scales[is++] - 32);
        for (int l = 0; l < 16; ++l) {
          *y++ = dl * ((int8_t)((q[l + 16] >> shift) & 3) - ((hm[l + 16] & m) ? 0 : 4));
        }
        shift += 2;
        m <<= 1;
      }
      q += 32;
    }
  }
  return out;
}

// --- hand-built blocks --------------------------------------------------------------------------

// q2_K {scales[16], qs[64], d, dmin}: value = d * (sc & 15) * q - dmin * (sc >> 4); in each half
// of 128, element 32k + l is bits 2k of qs[32 * half + l].
TEST(LowKQuants, Q2KHandBuiltBlock) {
  std::vector<uint8_t> b(84, 0);
  put_half(b, 80, 0x3c00);  // d = 1
  put_half(b, 82, 0x3800);  // dmin = 0.5
  b[0] = 0x23;              // sub-block 0: scale 3, min 2
  b[5] = 0x17;              // sub-block 5: scale 7, min 1
  b[13] = 0xf4;             // sub-block 13: scale 4, min 15
  b[16 + 0] = 0x02;         // element 0: q 2
  b[16 + 16] = 0x30;        // element 80 (half 0, k 2, l 16): q 3; element 16: q 0
  b[16 + 52] = 0xd0;        // element 212 (half 1, k 2, l 20): q 1; element 244: q 3
  const auto v = decode(TensorType::q2_K, b);
  EXPECT_EQ(v[0], 5.0f);     // 3 * 2 - 0.5 * 2
  EXPECT_EQ(v[1], -1.0f);    // 3 * 0 - 0.5 * 2
  EXPECT_EQ(v[16], 0.0f);    // sub-block 1: scale 0, min 0
  EXPECT_EQ(v[80], 20.5f);   // 7 * 3 - 0.5 * 1
  EXPECT_EQ(v[212], -3.5f);  // 4 * 1 - 0.5 * 15
  EXPECT_EQ(v[208], -7.5f);  // 4 * 0 - 0.5 * 15
  EXPECT_EQ(v[244], 0.0f);   // sub-block 15: scale 0, min 0
  EXPECT_TRUE(same_bits(v, ggml_dequantize_row_q2_K(b)));
}

// q3_K {hmask[32], qs[64], scales[12], d}: value = d * (sc - 32) * (q - 4), q's low bits as in
// q2_K and its third bit in bit e / 32 of hmask[e % 32]; scale j's low nibble in byte j (j < 8,
// low) or j - 8 (high), its top two bits in bits 2 * (j / 4) of byte 8 + j % 4.
TEST(LowKQuants, Q3KHandBuiltBlock) {
  std::vector<uint8_t> b(110, 0);
  const size_t qs = 32, sc = 96;
  put_half(b, 108, 0x3800);  // d = 0.5
  b[sc + 0] = 2;             // scale 0 = 34 (+2): low nibble 2
  b[sc + 8] = 2;             //                    top bits 2
  b[sc + 1] = 0xd0;          // scale 9 = 29 (-3): low nibble 13 in byte 1's high nibble
  b[sc + 9] = 1 << 4;        //                    top bits 1 at bits 4-5 of byte 9
  b[sc + 6] = 0xf0;          // scale 14 = 63 (+31): low nibble 15 in byte 6's high nibble
  b[sc + 10] = 3 << 6;       //                      top bits 3 at bits 6-7 of byte 10
  b[qs + 0] = 0x01;          // element 0: low bits 1,
  b[0] = 0x01;               //            third bit set: q 5
  b[qs + 48] = 0x03;         // element 144 (half 1, k 0, l 16): low bits 3,
  b[16] = 0x10;              //            third bit (bit 4 of hmask[16]): q 7
  b[qs + 40] = 0x80;         // element 232 (half 1, k 3, l 8): low bits 2, third bit 0: q 2
  const auto v = decode(TensorType::q3_K, b);
  EXPECT_EQ(v[0], 1.0f);      // 0.5 * 2 * (5 - 4)
  EXPECT_EQ(v[1], -4.0f);     // 0.5 * 2 * (0 - 4)
  EXPECT_EQ(v[144], -4.5f);   // 0.5 * -3 * (7 - 4)
  EXPECT_EQ(v[145], 6.0f);    // 0.5 * -3 * (0 - 4)
  EXPECT_EQ(v[232], -31.0f);  // 0.5 * 31 * (2 - 4)
  EXPECT_EQ(v[100], 64.0f);   // sub-block 6: scale 0 = -32: 0.5 * -32 * (0 - 4)
  EXPECT_TRUE(same_bits(v, ggml_dequantize_row_q3_K(b)));
}

// Random bytes (every scale, min, code and high bit; f16 fields random but finite), block after
// block: the decoders give ggml's bits.
TEST(LowKQuants, DecodersMatchGgmlOnRandomBytes) {
  Rng rng(5);
  for (TensorType type : {TensorType::q2_K, TensorType::q3_K}) {
    SCOPED_TRACE(to_string(type));
    std::vector<uint8_t> bytes(64 * block_bytes(type));
    for (uint8_t& byte : bytes) byte = static_cast<uint8_t>(rng.next_u32());
    for (size_t b = 0; b < 64; ++b) {
      const size_t head = b * block_bytes(type) + (type == TensorType::q2_K ? 80 : 108);
      for (size_t f = head; f < (b + 1) * block_bytes(type); f += 2) {
        put_half(bytes, f, static_cast<uint16_t>(rng.next_u32() & 0xbbff));  // no inf or NaN
      }
    }
    const auto want = type == TensorType::q2_K ? ggml_dequantize_row_q2_K(bytes)
                                               : ggml_dequantize_row_q3_K(bytes);
    EXPECT_TRUE(same_bits(decode(type, bytes), want));
  }
}

// --- the encoders against ggml's ----------------------------------------------------------------

using gauntlet::testing::fnv1a;
using gauntlet::testing::hex;
using gauntlet::testing::lcg_row;

// ggml's quantize_row_q2_K_ref of lcg_row(512): its first block in full, and FNV-1a 64 of the
// encoding of lcg_row(16384) (64 blocks) and of its dequantize_row_q2_K.
TEST(LowKQuants, Q2KEncoderWritesGgmlsBytes) {
  const auto bytes = encode(TensorType::q2_K, lcg_row(512));
  EXPECT_EQ(hex(bytes.data(), 84),
            "11000000020144ff04029700101011dc2da9612ae86d2e6de1a9e32db8662be8f0b2333073b371b272"
            "70b3b031b2b2f1177c1a6d077eb2aea39b565c98193c436353bff7b38bff17176fe773277b0b772a34"
            "cb35");
  const auto row = encode(TensorType::q2_K, lcg_row(16384));
  EXPECT_EQ(fnv1a(row.data(), row.size()), 0x7971cee9108958a7ull);
  const auto values = decode(TensorType::q2_K, row);
  EXPECT_EQ(fnv1a(values.data(), values.size() * 4), 0x05aa17495e09d566ull);
}

TEST(LowKQuants, Q3KEncoderWritesGgmlsBytes) {
  const auto bytes = encode(TensorType::q3_K, lcg_row(512));
  EXPECT_EQ(hex(bytes.data(), 110),
            "0b33292a032b8aab81a3003bb3282a03282880a0a08880282000a82820080828c9c116d2174ddf4d05"
            "8401ca860ac543c0814140c101c041c1c04100808181c0088801c70d4a45c944c44eccc4070b848dcd"
            "44c40c8cc1044481c4cc44c448c8e270d000f5f5f7906a6a4a22dbab");
  const auto row = encode(TensorType::q3_K, lcg_row(16384));
  EXPECT_EQ(fnv1a(row.data(), row.size()), 0x279722df16c57f8eull);
  const auto values = decode(TensorType::q3_K, row);
  EXPECT_EQ(fnv1a(values.data(), values.size() * 4), 0x3adc4a08994ee7a4ull);
}

}  // namespace
}  // namespace gauntlet::core
