// ggml's mxfp4 (ggml-common.h block_mxfp4): 32 elements in 17 bytes {u8 e, u8 qs[16]}: e is an
// E8M0 scale (a power of two, 2^(e - 127)), each element a 4-bit E2M1 code (kvalues_mxfp4, the
// E2M1 values doubled) in byte j % 16 of qs, the low nibble for j < 16; value = kvalue * (2^(e -
// 127) / 2) (GGML_E8M0_TO_FP32_HALF, which halves the scale to undo the doubling). The decoder
// follows ggml-quants.c's dequantize_row_mxfp4, the encoder its quantize_row_mxfp4_ref (which
// llama.cpp's quantizer calls for MXFP4 with or without an importance matrix). Blocks of 17 bytes
// are byte aligned.
#include <bit>
#include <cmath>

#include "core/tensor_type.h"
#include "core/types/codecs.h"
#include "core/types/nonlinear_values.h"

namespace gauntlet::core::types {

namespace {

constexpr uint32_t QK = 32;
constexpr uint32_t kBytes = 17;

void quantize_block(const float* x, std::byte* out) {
  float amax = 0;
  for (uint32_t j = 0; j < QK; ++j) {
    if (amax < std::fabs(x[j])) amax = std::fabs(x[j]);
  }
  // ggml casts floor(log2(amax)) - 2 + 127 to uint8_t; a value below 0 (amax under 2^-125) wraps
  // as x86's conversion through a 32-bit integer does.
  const auto e =
      amax > 0.0f
          ? static_cast<uint8_t>(static_cast<int32_t>(std::floor(std::log2(amax)) - 2 + 127))
          : uint8_t{0};
  const float d = e8m0_to_f32_half(e);
  out[0] = static_cast<std::byte>(e);
  for (uint32_t j = 0; j < QK / 2; ++j) {
    const uint8_t lo = e2m1_best_index(x[j], d);
    const uint8_t hi = e2m1_best_index(x[j + QK / 2], d);
    out[1 + j] = static_cast<std::byte>(lo | (hi << 4));
  }
}

}  // namespace

void quantize_mxfp4(const float* src, std::byte* dst, uint64_t n, const float* /*importance*/) {
  for (uint64_t b = 0; b < n / QK; ++b) quantize_block(src + b * QK, dst + b * kBytes);
}

void dequantize_mxfp4(const std::byte* src, float* dst, uint64_t n) {
  for (uint64_t b = 0; b < n / QK; ++b) {
    const std::byte* in = src + b * kBytes;
    const float d = e8m0_to_f32_half(static_cast<uint8_t>(in[0]));
    float* y = dst + b * QK;
    for (uint32_t j = 0; j < QK / 2; ++j) {
      const auto q = static_cast<uint8_t>(in[1 + j]);
      y[j] = static_cast<float>(kMxfp4Values[q & 0x0f]) * d;
      y[j + QK / 2] = static_cast<float>(kMxfp4Values[q >> 4]) * d;
    }
  }
}

}  // namespace gauntlet::core::types
