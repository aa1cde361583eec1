#pragma once
// One token's activations rounded to llama.cpp's 8-bit blocks (quantized_acts.h) in SIMD through
// Highway: the same codes, scales and sums as the scalar definitions they follow.
#include <cstdint>

namespace gauntlet::engine::cpu {

// n floats (a multiple of 32) to Q8_0 blocks: codes, one scale per 32, the codes' sum per 32.
void round_q8_0(const float* x, uint64_t n, int8_t* qs, float* d, int16_t* sums);
// n floats (a multiple of 256) to Q8_K blocks: codes, one scale per 256, the sums per 16.
void round_q8_K(const float* x, uint64_t n, int8_t* qs, float* d, int16_t* sums);

}  // namespace gauntlet::engine::cpu
