#pragma once
// The host encode and decode of each tensor type, one pair per type; tensor_type.cpp lists them
// in the type table. Each works on whole blocks: n is a multiple of the type's block elements.
#include <cstddef>
#include <cstdint>

namespace gauntlet::core::types {

// core/weight_types.def's codec column names the file (core/types/<codec>.cpp) that defines them.
#define GAUNTLET_WEIGHT_TYPE(name, id, elements, bytes, codec, matvec)                         \
  void quantize_##name(const float* src, std::byte* dst, uint64_t n, const float* importance); \
  void dequantize_##name(const std::byte* src, float* dst, uint64_t n);
#include "core/weight_types.def"
#undef GAUNTLET_WEIGHT_TYPE

}  // namespace gauntlet::core::types
