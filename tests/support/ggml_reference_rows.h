#pragma once
// The codec tests' helpers: a row encoded and decoded through core/tensor_type, f16 bytes read
// and written, and what the encoder tests feed ggml-quants.c compiled alone and how they compare
// its output: the same row on any IEEE machine, its bytes in hex, and FNV-1a 64 of a longer
// encoding.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <string>
#include <vector>

#include "core/half.h"
#include "core/tensor_type.h"

namespace gauntlet::testing {

inline std::vector<float> decode(core::TensorType type, const std::vector<uint8_t>& bytes) {
  std::vector<float> out(bytes.size() / core::block_bytes(type) * core::block_elements(type));
  core::dequantize_row(type, reinterpret_cast<const std::byte*>(bytes.data()), out.data(),
                       out.size());
  return out;
}

inline std::vector<uint8_t> encode(core::TensorType type, const std::vector<float>& x) {
  std::vector<uint8_t> bytes(core::row_bytes(type, x.size()));
  core::quantize_row(type, x.data(), reinterpret_cast<std::byte*>(bytes.data()), x.size());
  return bytes;
}

// Whether two decoded rows are the same floats, bit for bit (NaN payloads and signed zeros too).
inline bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

inline void put_half(std::vector<uint8_t>& b, size_t at, uint16_t bits) {
  b[at] = static_cast<uint8_t>(bits & 0xff);
  b[at + 1] = static_cast<uint8_t>(bits >> 8);
}

inline float half_at(const uint8_t* p) {
  return core::f16_to_f32(static_cast<uint16_t>(p[0] | (p[1] << 8)));
}

// An LCG's values (exact float arithmetic), a power-of-two magnitude per 16, an offset for one
// 32 in four, and sub-blocks of zeros or of one repeated value now and then.
inline std::vector<float> lcg_row(size_t n) {
  std::vector<float> x(n);
  uint32_t s = 20261123u;
  float mag = 1, off = 0;
  for (size_t i = 0; i < n; ++i) {
    s = s * 1664525u + 1013904223u;
    const float u = static_cast<float>(s >> 8) / 16777216.0f;
    if (i % 32 == 0) off = (s >> 4) % 4 == 0 ? (u - 0.5f) * 4.0f : 0.0f;
    if (i % 16 == 0) mag = static_cast<float>(1u << ((s >> 12) % 12)) / 256.0f;
    const size_t sub = i / 16;
    x[i] = sub % 29 == 3 ? 0.0f : sub % 31 == 5 ? off + mag : (u * 2.0f - 1.0f) * mag + off;
  }
  return x;
}

inline std::string hex(const uint8_t* p, size_t n) {
  static const char digits[] = "0123456789abcdef";
  std::string s;
  for (size_t i = 0; i < n; ++i) {
    s += digits[p[i] >> 4];
    s += digits[p[i] & 15];
  }
  return s;
}

inline uint64_t fnv1a(const void* data, size_t n) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < n; ++i) {
    h ^= static_cast<const uint8_t*>(data)[i];
    h *= 0x100000001b3ull;
  }
  return h;
}

// What ggml-quants.c compiled alone wrote for a type: the first block of lcg_row(512), FNV-1a 64
// of the encoding of lcg_row(16384), and of its decoding by ggml's dequantize_row.
struct GgmlEncoding {
  core::TensorType type;
  const char* first_block;
  uint64_t row_hash;
  uint64_t values_hash;
};

// The codecs write and read ggml's bytes for each case.
inline void expect_ggml_encodings(std::initializer_list<GgmlEncoding> cases) {
  for (const GgmlEncoding& c : cases) {
    SCOPED_TRACE(core::to_string(c.type));
    const auto bytes = encode(c.type, lcg_row(512));
    EXPECT_EQ(hex(bytes.data(), core::block_bytes(c.type)), c.first_block);
    const auto row = encode(c.type, lcg_row(16384));
    EXPECT_EQ(fnv1a(row.data(), row.size()), c.row_hash);
    const auto values = decode(c.type, row);
    EXPECT_EQ(fnv1a(values.data(), values.size() * 4), c.values_hash);
  }
}

}  // namespace gauntlet::testing
