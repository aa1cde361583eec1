#pragma once
// The cpu device's matrix products: each input rounded once per pass to llama.cpp's 8-bit blocks
// (quantized_acts.h), then every row of a type with a kernel (dot_kernels.h) as integer dot
// products in SIMD; a tensor of any other type (f32, f16, the other quantized types) takes the
// exact reference's products, so the forward pass runs every model the host runs.
#include <cstddef>
#include <memory>
#include <span>

#include "engine/reference/matmuls.h"

namespace gauntlet::engine::cpu {

// One per decoder: it keeps the rounded activations between calls (not shared across threads
// that run passes at the same time). `interleaved`: the data of the q4_0 and q8_0 matrices the
// loader laid out interleaved (interleaved.h); every other matrix is in its file's layout.
std::unique_ptr<reference::Products> make_fast_products(
    std::span<const std::byte* const> interleaved = {});

}  // namespace gauntlet::engine::cpu
