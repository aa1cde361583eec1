#include "engine/reference/kv_rows.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "core/half.h"

namespace gauntlet::engine::reference {

namespace {

constexpr uint32_t QK = 32;

void store_u16(std::byte* p, uint16_t v) { std::memcpy(p, &v, sizeof v); }

// ggml-cpu/arch/x86/quants.c quantize_row_q8_0 (AVX): 34-byte blocks {f16 d, i8 q[32]}.
void store_q8_0(const float* x, std::byte* y, uint32_t n) {
  for (uint32_t b = 0; b < n / QK; ++b, x += QK, y += 34) {
    float amax = 0.0f;
    for (uint32_t j = 0; j < QK; ++j) amax = std::max(amax, std::fabs(x[j]));
    store_u16(y, core::f32_to_f16(amax / 127.0f));
    const float id = amax != 0.0f ? 127.0f / amax : 0.0f;
    for (uint32_t j = 0; j < QK; ++j) {
      y[2 + j] = static_cast<std::byte>(static_cast<int8_t>(std::nearbyint(x[j] * id)));
    }
  }
}

// ggml-quants.c best_index_int8: the nearest of the 16 sorted levels (the upper one on ties).
uint8_t nearest_level(const int8_t* values, float x) {
  if (x <= values[0]) return 0;
  if (x >= values[15]) return 15;
  int lo = 0, hi = 15;
  while (hi - lo > 1) {
    const int mid = (lo + hi) / 2;
    if (x < values[mid]) {
      hi = mid;
    } else {
      lo = mid;
    }
  }
  return static_cast<uint8_t>(x - values[hi - 1] < values[hi] - x ? hi - 1 : hi);
}

// ggml-quants.c quantize_row_iq4_nl_ref (quantize_row_iq4_nl_impl, one block, ntry -1): 18-byte
// blocks {f16 d, u8 qs[16]} with element j's code in the low nibble of qs[j % 16] for j < 16.
void store_iq4_nl(const float* x, std::byte* y, uint32_t n) {
  static constexpr int8_t kValues[16] = {-127, -104, -83, -65, -49, -35, -22, -10,
                                         1,    13,   25,  38,  53,  69,  89,  113};
  for (uint32_t b = 0; b < n / QK; ++b, x += QK, y += 18) {
    float amax = 0.0f, max = 0.0f;
    for (uint32_t j = 0; j < QK; ++j) {
      if (std::fabs(x[j]) > amax) {
        amax = std::fabs(x[j]);
        max = x[j];
      }
    }
    uint8_t codes[QK] = {};
    float d = 0.0f;
    if (amax >= 1e-15f) {  // GROUP_MAX_EPS; below it ggml keeps d = 0
      const float id = 1.0f / (max / kValues[0]);
      float sumqx = 0.0f, sumq2 = 0.0f;
      for (uint32_t j = 0; j < QK; ++j) {
        codes[j] = nearest_level(kValues, id * x[j]);
        const float q = kValues[codes[j]], w = x[j] * x[j];
        sumqx += w * q * x[j];
        sumq2 += w * q * q;
      }
      d = sumq2 > 0 ? sumqx / sumq2 : 0.0f;
    }
    store_u16(y, core::f32_to_f16(d));
    for (uint32_t j = 0; j < QK / 2; ++j) {
      y[2 + j] = static_cast<std::byte>(codes[j] | (codes[j + QK / 2] << 4));
    }
  }
}

// The largest power of two >= 64 that divides n (llama_kv_cache::build_input_k_rot).
uint32_t k_chunk(uint32_t n) {
  uint32_t chunk = 64;
  while (n % (chunk * 2) == 0) chunk *= 2;
  return chunk;
}

}  // namespace

void store_kv_row(model::TensorType type, const float* src, std::byte* dst, uint32_t n) {
  switch (type) {
    case model::TensorType::f32:
      std::memcpy(dst, src, n * sizeof(float));
      return;
    case model::TensorType::q8_0:
      store_q8_0(src, dst, n);
      return;
    case model::TensorType::iq4_nl:
      store_iq4_nl(src, dst, n);
      return;
    default:  // f16 and the ggml reference quantizers (core/types/legacy_quants.cpp)
      model::quantize_row(type, src, dst, n);
  }
}

void load_kv_row(model::TensorType type, const std::byte* src, float* dst, uint32_t n) {
  if (type == model::TensorType::f32) {
    std::memcpy(dst, src, n * sizeof(float));
  } else if (type == model::TensorType::f16) {
    for (uint32_t i = 0; i < n; ++i) {
      uint16_t h;
      std::memcpy(&h, src + 2 * i, 2);
      dst[i] = model::f16_lookup(h);
    }
  } else {
    model::dequantize_row(type, src, dst, n);
  }
}

void round_query_q8_0(const float* q, float* out, uint32_t n) {
  std::vector<std::byte> blocks(n / QK * 34);
  store_q8_0(q, blocks.data(), n);
  model::dequantize_row(model::TensorType::q8_0, blocks.data(), out, n);
}

uint32_t k_rotation(const model::ModelShape& shape, planner::KvPrecision kv, uint32_t layer) {
  const uint32_t hd = shape.head_dim(layer);
  return model::is_quantized(kv.k) && hd % 64 == 0 ? k_chunk(hd) : 0;
}

uint32_t v_rotation(const model::ModelShape& shape, planner::KvPrecision kv, uint32_t layer) {
  return model::is_quantized(kv.v) && shape.head_dim(layer) % 64 == 0 ? 64 : 0;
}

void hadamard_rotate(float* x, uint64_t n, uint32_t chunk) {
  const float scale = 1.0f / std::sqrt(static_cast<float>(chunk));
  for (uint64_t c = 0; c < n; c += chunk) {
    float* row = x + c;
    for (uint32_t j = 0; j < chunk; ++j) row[j] *= scale;
    for (uint32_t len = 1; len < chunk; len <<= 1) {
      for (uint32_t i = 0; i < chunk; i += 2 * len) {
        for (uint32_t j = 0; j < len; ++j) {
          const float u = row[i + j], v = row[i + len + j];
          row[i + j] = u + v;
          row[i + len + j] = u - v;
        }
      }
    }
  }
}

core::Status check_kv_cache(const model::ModelShape& shape, planner::KvPrecision kv) {
  // Every layer's head must hold whole blocks: the narrowest (gemma4's sliding heads) counts.
  uint32_t hd = shape.head_dim();
  for (uint32_t l = 0; l < shape.n_layer; ++l) {
    if (shape.head_dim(l) % model::block_elements(kv.k) != 0 ||
        shape.head_dim(l) % model::block_elements(kv.v) != 0 || shape.head_dim(l) % 32 != 0) {
      hd = shape.head_dim(l);
    }
  }
  for (const model::TensorType t : {kv.k, kv.v}) {
    if (!planner::is_kv_cache_type(t)) {
      return core::make_error(core::ErrorKind::invalid_argument,
                              std::string("a KV cache of ") + model::to_string(t) +
                                  " is not one the engine stores (f32, f16, q8_0, q4_0, q4_1, "
                                  "q5_0, q5_1, iq4_nl)");
    }
    if (hd % model::block_elements(t) != 0) {
      return core::make_error(
          core::ErrorKind::invalid_argument,
          std::string("a KV cache of ") + model::to_string(t) + " needs head_dim a multiple of " +
              std::to_string(model::block_elements(t)) + "; it is " + std::to_string(hd));
    }
  }
  if (kv.k != kv.v && hd % 32 != 0) {
    return core::make_error(core::ErrorKind::invalid_argument,
                            "K and V caches of different types are written in blocks of 32 and "
                            "need head_dim a multiple of 32; it is " +
                                std::to_string(hd));
  }
  return core::Status::ok();
}

}  // namespace gauntlet::engine::reference
