#pragma once
// IEEE binary16 and bfloat16 conversions, rounding to nearest even, NaN kept quiet.
#include <bit>
#include <cstdint>

namespace gauntlet::core {

inline uint16_t f32_to_bf16(float value) {
  uint32_t bits = std::bit_cast<uint32_t>(value);
  if ((bits & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((bits >> 16) | 0x40u);
  uint32_t rounding = 0x7fffu + ((bits >> 16) & 1u);
  return static_cast<uint16_t>((bits + rounding) >> 16);
}

inline float bf16_to_f32(uint16_t value) {
  return std::bit_cast<float>(static_cast<uint32_t>(value) << 16);
}

uint16_t f32_to_f16(float value);
float f16_to_f32(uint16_t value);

}  // namespace gauntlet::core
