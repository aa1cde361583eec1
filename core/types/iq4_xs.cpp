// ggml's iq4_xs (ggml-common.h block_iq4_xs): 256 elements in 136 bytes {f16 d, u16 scales_h,
// u8 scales_l[4], u8 qs[128]}: 8 blocks of 32, block i with a 6-bit level ls (low 4 bits: nibble
// i % 2 of scales_l[i / 2], top 2 bits: bits 2i of scales_h) and its 32 codes in qs[16i, 16i + 16)
// (low nibbles: elements 0..15, high: 16..31); value = (d * (ls - 32)) * kvalues_iq4nl[code].
// The decoder follows ggml-quants.c's dequantize_row_iq4_xs; the encoder its quantize_iq4_xs
// (quantize_row_iq4_nl_impl, ntry 7, weighted by the importance row when one is given; without
// one it is also what its quantize_row_iq4_xs_ref calls).
#include "core/half.h"
#include "core/tensor_type.h"
#include "core/types/bytes.h"
#include "core/types/codecs.h"
#include "core/types/iq4_fit.h"
#include "core/types/k_fit.h"
#include "core/types/nonlinear_values.h"

namespace gauntlet::core::types {

namespace {

constexpr uint32_t kBytes = 136;
constexpr uint32_t kScalesL = 4, kQs = 8;

// Block i's level ls (0..63), as dequantize_row_iq4_xs unpacks it.
int level(const std::byte* in, uint32_t i) {
  const auto low = (static_cast<uint32_t>(in[kScalesL + i / 2]) >> (4 * (i % 2))) & 0x0f;
  const uint32_t high = (load_u16(in + 2) >> (2 * i)) & 3;
  return static_cast<int>(low | (high << 4));
}

}  // namespace

void quantize_iq4_xs(const float* src, std::byte* dst, uint64_t n, const float* importance) {
  for (uint64_t b = 0; b < n / QK_K; ++b) {
    std::byte* out = dst + b * kBytes;
    const Iq4Fit fit = fit_iq4(src + b * QK_K, importance ? importance + b * QK_K : nullptr, QK_K,
                               reinterpret_cast<uint8_t*>(out + kQs));
    store_u16(out, f32_to_f16(fit.d));
    store_u16(out + 2, fit.scales_h);
    for (uint32_t i = 0; i < 4; ++i) out[kScalesL + i] = static_cast<std::byte>(fit.scales_l[i]);
  }
}

void dequantize_iq4_xs(const std::byte* src, float* dst, uint64_t n) {
  for (uint64_t b = 0; b < n / QK_K; ++b) {
    const std::byte* in = src + b * kBytes;
    const float d = f16_lookup(load_u16(in));
    float* y = dst + b * QK_K;
    for (uint32_t i = 0; i < QK_K / 32; ++i) {
      const float dl = d * static_cast<float>(level(in, i) - 32);
      for (uint32_t j = 0; j < 16; ++j) {
        const auto q = static_cast<uint8_t>(in[kQs + 16 * i + j]);
        y[32 * i + j] = dl * static_cast<float>(kIq4nlValues[q & 0x0f]);
        y[32 * i + 16 + j] = dl * static_cast<float>(kIq4nlValues[q >> 4]);
      }
    }
  }
}

}  // namespace gauntlet::core::types
