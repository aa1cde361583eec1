#include "engine/reference/matmuls.h"

#include <algorithm>

#include "engine/reference/layer_ops.h"

namespace gauntlet::engine::reference {

void exact_rows(std::span<const MatMul> ops, float* act, uint64_t stride, size_t n_tokens,
                uint64_t begin, uint64_t end) {
  uint64_t base = 0;
  for (const auto& op : ops) {
    const uint64_t lo = std::max(begin, base), hi = std::min(end, base + op.w->n_out);
    for (uint64_t r = lo; r < hi; ++r) {
      model::dot_row_tokens(op.w->type, op.w->row(r - base), act + op.x_off, op.w->n_in, n_tokens,
                            stride, act + op.out_off + r - base);
    }
    base += op.w->n_out;
  }
}

void matmuls(ThreadPool& pool, float* act, uint64_t stride, size_t n_tokens,
             std::initializer_list<MatMul> list) {
  const std::span<const MatMul> ops(list.begin(), list.size());
  if (pool.products() != nullptr) {
    pool.products()->matmuls(pool, act, stride, n_tokens, ops);
    return;
  }
  uint64_t total = 0;
  for (const auto& op : ops) total += op.w->n_out;
  pool.parallel_for(total, [&](uint64_t begin, uint64_t end) {
    exact_rows(ops, act, stride, n_tokens, begin, end);
  });
}

void Products::swiglu(float* gate, const float* up, uint32_t n) const {
  gated_activation(model::Activation::silu, gate, up, n);
}

}  // namespace gauntlet::engine::reference
