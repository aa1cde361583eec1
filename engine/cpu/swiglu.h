#pragma once
// The cpu device's SwiGLU over a vector in SIMD through Highway, as llama.cpp's CPU backend
// vectorises it (ggml_vec_swiglu_f32): an exp of float precision instead of the C library's.
#include <cstdint>

namespace gauntlet::engine::cpu {

// gate[i] = silu(gate[i]) * up[i], i < n.
void swiglu(float* gate, const float* up, uint32_t n);

}  // namespace gauntlet::engine::cpu
