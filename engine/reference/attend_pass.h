#pragma once
// A layer's attention for a whole pass through faster row loops (Products::dot_rows and
// add_rows, the cpu device's): head by head, the cache rows the pass's tokens read are gathered
// once into contiguous floats, then each token's scores, softmax and weighted sum of V run over
// them. Each token's sums run in the same order whatever tokens share its pass.
#include <span>

#include "engine/reference/forward.h"
#include "engine/reference/matmuls.h"

namespace gauntlet::engine::reference {

// As forward.cpp's attend for every token of the pass: Q at a.q of each token's block (already
// turned where the cache is), the scores into a.att, the heads' outputs into a.xb2.
void attend_pass(const model::ModelShape& s, const KvCacheView& kv, const planner::KvLayout& cache,
                 uint32_t l, std::span<const PassToken> tokens, float* act,
                 const planner::ActivationLayout& a, const float* sinks, ThreadPool& pool,
                 const Products& fast);

}  // namespace gauntlet::engine::reference
