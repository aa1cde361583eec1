// ggml's iq4_nl (ggml-common.h block_iq4_nl): 32 elements in 18 bytes {f16 d, u8 qs[16]}; byte j
// holds element j's 4-bit code in its low nibble and element j + 16's in its high nibble;
// value = d * kvalues_iq4nl[code]. The decoder follows ggml-quants.c's dequantize_row_iq4_nl; the
// encoder its quantize_iq4_nl (quantize_row_iq4_nl_impl, ntry 7, weighted by the importance row
// when one is given), which is what llama.cpp's quantizer writes.
#include "core/half.h"
#include "core/tensor_type.h"
#include "core/types/bytes.h"
#include "core/types/codecs.h"
#include "core/types/iq4_fit.h"
#include "core/types/nonlinear_values.h"

namespace gauntlet::core::types {

namespace {

constexpr uint32_t QK = 32;
constexpr uint32_t kBytes = 18;

}  // namespace

void quantize_iq4_nl(const float* src, std::byte* dst, uint64_t n, const float* importance) {
  for (uint64_t b = 0; b < n / QK; ++b) {
    std::byte* out = dst + b * kBytes;
    const Iq4Fit fit = fit_iq4(src + b * QK, importance ? importance + b * QK : nullptr, QK,
                               reinterpret_cast<uint8_t*>(out + 2));
    store_u16(out, f32_to_f16(fit.d));
  }
}

void dequantize_iq4_nl(const std::byte* src, float* dst, uint64_t n) {
  for (uint64_t b = 0; b < n / QK; ++b) {
    const std::byte* in = src + b * kBytes;
    const float d = f16_lookup(load_u16(in));
    float* y = dst + b * QK;
    for (uint32_t j = 0; j < QK / 2; ++j) {
      const auto q = static_cast<uint8_t>(in[2 + j]);
      y[j] = d * static_cast<float>(kIq4nlValues[q & 0x0f]);
      y[j + QK / 2] = d * static_cast<float>(kIq4nlValues[q >> 4]);
    }
  }
}

}  // namespace gauntlet::core::types
