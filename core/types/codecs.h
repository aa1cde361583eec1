#pragma once
// The host encode and decode of each tensor type, one pair per type; tensor_type.cpp lists them
// in the type table. Each works on whole blocks: n is a multiple of the type's block elements.
#include <cstddef>
#include <cstdint>

namespace gauntlet::core::types {

#define GAUNTLET_TYPE_CODEC(name)                                     \
  void quantize_##name(const float* src, std::byte* dst, uint64_t n); \
  void dequantize_##name(const std::byte* src, float* dst, uint64_t n)

GAUNTLET_TYPE_CODEC(f32);
GAUNTLET_TYPE_CODEC(f16);
GAUNTLET_TYPE_CODEC(bf16);
GAUNTLET_TYPE_CODEC(q4_0);
GAUNTLET_TYPE_CODEC(q4_1);
GAUNTLET_TYPE_CODEC(q5_0);
GAUNTLET_TYPE_CODEC(q5_1);
GAUNTLET_TYPE_CODEC(q8_0);
GAUNTLET_TYPE_CODEC(q2_K);
GAUNTLET_TYPE_CODEC(q3_K);
GAUNTLET_TYPE_CODEC(q4_K);
GAUNTLET_TYPE_CODEC(q5_K);
GAUNTLET_TYPE_CODEC(q6_K);
GAUNTLET_TYPE_CODEC(iq4_nl);
GAUNTLET_TYPE_CODEC(iq4_xs);
GAUNTLET_TYPE_CODEC(mxfp4);

#undef GAUNTLET_TYPE_CODEC

}  // namespace gauntlet::core::types
