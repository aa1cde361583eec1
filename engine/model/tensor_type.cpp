#include "engine/model/tensor_type.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstring>
#include <memory>

#include "core/half.h"

namespace gauntlet::engine::model {

namespace {

const std::array<float, 65536>& f16_table() {
  static const auto table = [] {
    auto t = std::make_unique<std::array<float, 65536>>();
    for (uint32_t i = 0; i < 65536; ++i) (*t)[i] = core::f16_to_f32(static_cast<uint16_t>(i));
    return t;
  }();
  return *table;
}

uint16_t load_u16(const std::byte* p) {
  uint16_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

void store_u16(std::byte* p, uint16_t v) { std::memcpy(p, &v, sizeof v); }

// Eight partial sums, added in a fixed order, so the compiler can vectorise the loop and the
// result depends only on the inputs.
template <typename Load>
float dot_block(const float* x, uint32_t n, Load load) {
  float acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  uint32_t i = 0;
  for (; i + 8 <= n; i += 8) {
    for (uint32_t k = 0; k < 8; ++k) acc[k] += load(i + k) * x[i + k];
  }
  for (; i < n; ++i) acc[i % 8] += load(i) * x[i];
  return ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
}

}  // namespace

float f16_lookup(uint16_t bits) { return f16_table()[bits]; }

const char* to_string(TensorType type) {
  switch (type) {
    case TensorType::f32:
      return "f32";
    case TensorType::f16:
      return "f16";
    case TensorType::bf16:
      return "bf16";
    case TensorType::q8_0:
      return "q8_0";
    case TensorType::q4_0:
      return "q4_0";
  }
  return "unknown";
}

std::optional<TensorType> parse_tensor_type(std::string_view name) {
  std::string lower(name);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (TensorType t :
       {TensorType::f32, TensorType::f16, TensorType::bf16, TensorType::q8_0, TensorType::q4_0}) {
    if (lower == to_string(t)) return t;
  }
  return std::nullopt;
}

std::optional<TensorType> tensor_type_from_id(uint32_t id) {
  switch (id) {
    case 0:
      return TensorType::f32;
    case 1:
      return TensorType::f16;
    case 2:
      return TensorType::q4_0;
    case 8:
      return TensorType::q8_0;
    case 30:
      return TensorType::bf16;
    default:
      return std::nullopt;
  }
}

uint32_t block_elements(TensorType type) {
  return (type == TensorType::q8_0 || type == TensorType::q4_0) ? kQuantBlock : 1;
}

size_t block_bytes(TensorType type) {
  switch (type) {
    case TensorType::f32:
      return 4;
    case TensorType::f16:
    case TensorType::bf16:
      return 2;
    case TensorType::q8_0:
      return kQ8_0BlockBytes;
    case TensorType::q4_0:
      return kQ4_0BlockBytes;
  }
  return 0;
}

uint64_t row_bytes(TensorType type, uint64_t n) {
  return n / block_elements(type) * block_bytes(type);
}

void quantize_row(TensorType type, const float* src, std::byte* dst, uint64_t n) {
  switch (type) {
    case TensorType::f32:
      std::memcpy(dst, src, n * 4);
      return;
    case TensorType::f16:
      for (uint64_t i = 0; i < n; ++i) store_u16(dst + 2 * i, core::f32_to_f16(src[i]));
      return;
    case TensorType::bf16:
      for (uint64_t i = 0; i < n; ++i) store_u16(dst + 2 * i, core::f32_to_bf16(src[i]));
      return;
    case TensorType::q8_0:
      for (uint64_t b = 0; b < n / kQuantBlock; ++b) {
        const float* x = src + b * kQuantBlock;
        std::byte* out = dst + b * kQ8_0BlockBytes;
        float amax = 0;
        for (uint32_t i = 0; i < kQuantBlock; ++i) amax = std::max(amax, std::fabs(x[i]));
        const float d = amax / 127.0f;
        const float id = d != 0 ? 1.0f / d : 0.0f;
        store_u16(out, core::f32_to_f16(d));
        for (uint32_t i = 0; i < kQuantBlock; ++i) {
          auto q = static_cast<int8_t>(std::lround(x[i] * id));
          out[2 + i] = static_cast<std::byte>(q);
        }
      }
      return;
    case TensorType::q4_0:
      for (uint64_t b = 0; b < n / kQuantBlock; ++b) {
        const float* x = src + b * kQuantBlock;
        std::byte* out = dst + b * kQ4_0BlockBytes;
        // The value of largest magnitude maps to -8, so its sign sets the sign of d.
        float amax = 0, max = 0;
        for (uint32_t i = 0; i < kQuantBlock; ++i) {
          if (std::fabs(x[i]) > amax) {
            amax = std::fabs(x[i]);
            max = x[i];
          }
        }
        const float d = max / -8.0f;
        const float id = d != 0 ? 1.0f / d : 0.0f;
        store_u16(out, core::f32_to_f16(d));
        for (uint32_t j = 0; j < kQuantBlock / 2; ++j) {
          auto lo = static_cast<uint8_t>(std::clamp(std::floor(x[j] * id + 8.5f), 0.0f, 15.0f));
          auto hi =
              static_cast<uint8_t>(std::clamp(std::floor(x[j + 16] * id + 8.5f), 0.0f, 15.0f));
          out[2 + j] = static_cast<std::byte>(lo | (hi << 4));
        }
      }
      return;
  }
}

void dequantize_row(TensorType type, const std::byte* src, float* dst, uint64_t n) {
  switch (type) {
    case TensorType::f32:
      std::memcpy(dst, src, n * 4);
      return;
    case TensorType::f16:
      for (uint64_t i = 0; i < n; ++i) dst[i] = f16_lookup(load_u16(src + 2 * i));
      return;
    case TensorType::bf16:
      for (uint64_t i = 0; i < n; ++i) dst[i] = core::bf16_to_f32(load_u16(src + 2 * i));
      return;
    case TensorType::q8_0:
      for (uint64_t b = 0; b < n / kQuantBlock; ++b) {
        const std::byte* in = src + b * kQ8_0BlockBytes;
        const float d = f16_lookup(load_u16(in));
        for (uint32_t i = 0; i < kQuantBlock; ++i) {
          dst[b * kQuantBlock + i] = static_cast<float>(static_cast<int8_t>(in[2 + i])) * d;
        }
      }
      return;
    case TensorType::q4_0:
      for (uint64_t b = 0; b < n / kQuantBlock; ++b) {
        const std::byte* in = src + b * kQ4_0BlockBytes;
        const float d = f16_lookup(load_u16(in));
        for (uint32_t j = 0; j < kQuantBlock / 2; ++j) {
          const auto byte = static_cast<uint8_t>(in[2 + j]);
          dst[b * kQuantBlock + j] = static_cast<float>((byte & 0x0f) - 8) * d;
          dst[b * kQuantBlock + j + 16] = static_cast<float>((byte >> 4) - 8) * d;
        }
      }
      return;
  }
}

float dot_row(TensorType type, const std::byte* row, const float* x, uint64_t n) {
  switch (type) {
    case TensorType::f32: {
      const auto* w = reinterpret_cast<const float*>(row);
      return dot_block(x, static_cast<uint32_t>(n), [w](uint32_t i) { return w[i]; });
    }
    case TensorType::f16: {
      const auto& table = f16_table();
      return dot_block(x, static_cast<uint32_t>(n),
                       [&](uint32_t i) { return table[load_u16(row + 2 * i)]; });
    }
    case TensorType::bf16:
      return dot_block(x, static_cast<uint32_t>(n),
                       [row](uint32_t i) { return core::bf16_to_f32(load_u16(row + 2 * i)); });
    case TensorType::q8_0: {
      float sum = 0;
      for (uint64_t b = 0; b < n / kQuantBlock; ++b) {
        const std::byte* in = row + b * kQ8_0BlockBytes;
        const float d = f16_lookup(load_u16(in));
        const auto* q = reinterpret_cast<const int8_t*>(in + 2);
        sum += d * dot_block(x + b * kQuantBlock, kQuantBlock,
                             [q](uint32_t i) { return static_cast<float>(q[i]); });
      }
      return sum;
    }
    case TensorType::q4_0: {
      float sum = 0;
      for (uint64_t b = 0; b < n / kQuantBlock; ++b) {
        const std::byte* in = row + b * kQ4_0BlockBytes;
        const float d = f16_lookup(load_u16(in));
        const auto* q = reinterpret_cast<const uint8_t*>(in + 2);
        sum += d * dot_block(x + b * kQuantBlock, kQuantBlock, [q](uint32_t i) {
                 const uint8_t byte = q[i & 15];
                 return static_cast<float>((i < 16 ? (byte & 0x0f) : (byte >> 4)) - 8);
               });
      }
      return sum;
    }
  }
  return 0;
}

}  // namespace gauntlet::engine::model
