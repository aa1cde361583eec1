// f32, f16 and bf16: one element per block, stored as is or rounded to 16 bits.
#include <cstring>

#include "core/half.h"
#include "core/tensor_type.h"
#include "core/types/bytes.h"
#include "core/types/codecs.h"

namespace gauntlet::core::types {

void quantize_f32(const float* src, std::byte* dst, uint64_t n, const float* /*importance*/) {
  std::memcpy(dst, src, n * 4);
}
void dequantize_f32(const std::byte* src, float* dst, uint64_t n) { std::memcpy(dst, src, n * 4); }

void quantize_f16(const float* src, std::byte* dst, uint64_t n, const float* /*importance*/) {
  for (uint64_t i = 0; i < n; ++i) store_u16(dst + 2 * i, f32_to_f16(src[i]));
}
void dequantize_f16(const std::byte* src, float* dst, uint64_t n) {
  for (uint64_t i = 0; i < n; ++i) dst[i] = f16_lookup(load_u16(src + 2 * i));
}

void quantize_bf16(const float* src, std::byte* dst, uint64_t n, const float* /*importance*/) {
  for (uint64_t i = 0; i < n; ++i) store_u16(dst + 2 * i, f32_to_bf16(src[i]));
}
void dequantize_bf16(const std::byte* src, float* dst, uint64_t n) {
  for (uint64_t i = 0; i < n; ++i) dst[i] = bf16_to_f32(load_u16(src + 2 * i));
}

}  // namespace gauntlet::core::types
