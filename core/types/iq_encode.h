#pragma once
// The encoders of the iq1, iq2 and iq3 weight types, as llama.cpp's ggml-quants.c has them
// (quantize_iq2_xxs, quantize_iq2_xs, quantize_iq2_s, quantize_iq3_xxs, quantize_iq3_s,
// quantize_iq1_s, quantize_iq1_m): the same bytes for the same row and importance. Each encodes
// one row of n values (a multiple of 256). weights, when not null, is the row's importance per
// element (an imatrix column's values, n of them); ggml's own fallback applies when it is null
// (iq2_s, iq3_xxs, iq3_s, iq1_m). iq2_xxs, iq2_xs and iq1_s need it, as in ggml (which asserts):
// without it they throw std::invalid_argument naming the type. Internal to core/types/.
#include <cstddef>
#include <cstdint>

namespace gauntlet::core::types::iq {

void encode_iq2_xxs(const float* x, std::byte* y, uint64_t n, const float* weights);
void encode_iq2_xs(const float* x, std::byte* y, uint64_t n, const float* weights);
void encode_iq2_s(const float* x, std::byte* y, uint64_t n, const float* weights);
void encode_iq3_xxs(const float* x, std::byte* y, uint64_t n, const float* weights);
void encode_iq3_s(const float* x, std::byte* y, uint64_t n, const float* weights);
void encode_iq1_s(const float* x, std::byte* y, uint64_t n, const float* weights);
void encode_iq1_m(const float* x, std::byte* y, uint64_t n, const float* weights);

}  // namespace gauntlet::core::types::iq
