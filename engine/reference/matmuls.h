#pragma once
// The host reference's matrix products over a pass: each output row is one dot product per token,
// in a fixed order, so that results depend neither on the thread count nor on how tokens are
// grouped into passes.
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <span>

#include "engine/model/loaded_model.h"
#include "engine/reference/thread_pool.h"

namespace gauntlet::engine::reference {

// out = W . x for every token of a pass: the activation vector at `x_off` of each token's block
// (`stride` floats apart) into `out_off` of the same block.
struct MatMul {
  const model::TensorView* w;
  uint64_t x_off, out_off;
};

// Several products over one input, as one parallel loop over all their rows; each row serves
// every token while it is in cache. Through pool.products() where the pool names faster ones.
void matmuls(ThreadPool& pool, float* act, uint64_t stride, size_t n_tokens,
             std::initializer_list<MatMul> list);

// The exact products: each output row one dot_row_tokens per row, rows [begin, end) of the list's
// rows counted back to back.
void exact_rows(std::span<const MatMul> ops, float* act, uint64_t stride, size_t n_tokens,
                uint64_t begin, uint64_t end);

// Another way to compute a pass's products (the cpu device's integer dot products); the forward
// pass is the same graph whichever runs them.
class Products {
 public:
  virtual ~Products() = default;
  virtual void matmuls(ThreadPool& pool, float* act, uint64_t stride, size_t n_tokens,
                       std::span<const MatMul> ops) const = 0;
  // The attention's row loops where these products bring faster ones (attend_pass.h; false: the
  // reference's attend in forward.cpp). Over n rows of hd floats back to back, for each query k:
  // dots[k * n + j] = query k . row j, and outs[k] += the sum of weights[k * n + j] * row j.
  virtual bool has_attention_rows() const { return false; }
  virtual void dot_rows(std::span<const float* const> /*queries*/, const float* /*rows*/,
                        uint32_t /*n*/, uint32_t /*hd*/, float* /*dots*/) const {}
  virtual void add_rows(const float* /*weights*/, std::span<float* const> /*outs*/,
                        const float* /*rows*/, uint32_t /*n*/, uint32_t /*hd*/) const {}
  // gate[i] = silu(gate[i]) * up[i] (SwiGLU), i < n: the exact loop (layer_ops.h) unless these
  // products bring a faster one.
  virtual void swiglu(float* gate, const float* up, uint32_t n) const;
  // scores = softmax(scores * scale), `sink` (or none) one more logit in its max and sum.
  virtual void softmax(float* /*scores*/, uint32_t /*n*/, float /*scale*/,
                       const float* /*sink*/) const {}
};

}  // namespace gauntlet::engine::reference
