#pragma once
// The cpu device's attention loops (reference/attend_pass.h) over rows of floats in SIMD through
// Highway: a query against cache rows, and the rows summed by their weights. Each sum runs in the
// same order whatever the pass around it, so a token's result does not depend on the tokens
// beside it.
#include <cstdint>
#include <span>

namespace gauntlet::engine::cpu {

// Over n rows of hd floats back to back (row j at rows + j * hd), for each query k (each row,
// loaded once, serves up to four): dots[k * n + j] = query k . row j.
void dot_rows(std::span<const float* const> queries, const float* rows, uint32_t n, uint32_t hd,
              float* dots);
// outs[k][i] += the sum over j of weights[k * n + j] * row j [i].
void add_rows(const float* weights, std::span<float* const> outs, const float* rows, uint32_t n,
              uint32_t hd);
// scores[j] = exp(scores[j] * scale - max) / sum over the n scores, with `sink` (or none) one more
// logit in the max and the sum (ggml_soft_max_ext's sinks).
void softmax(float* scores, uint32_t n, float scale, const float* sink);

}  // namespace gauntlet::engine::cpu
