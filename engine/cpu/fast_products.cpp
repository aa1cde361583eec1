#include "engine/cpu/fast_products.h"

#include <algorithm>
#include <optional>
#include <set>
#include <vector>

#include "engine/cpu/attention_rows.h"
#include "engine/cpu/dot_kernels.h"
#include "engine/cpu/quantized_acts.h"
#include "engine/cpu/swiglu.h"

namespace gauntlet::engine::cpu {

namespace {

using reference::MatMul;

uint64_t block_of(ActKind kind) { return kind == ActKind::q8_0 ? 32 : 256; }

class FastProducts final : public reference::Products {
 public:
  explicit FastProducts(std::span<const std::byte* const> interleaved)
      : interleaved_(interleaved.begin(), interleaved.end()) {}

  void matmuls(reference::ThreadPool& pool, float* act, uint64_t stride, size_t n_tokens,
               std::span<const MatMul> ops) const override {
    struct Input {
      uint64_t x_off, n;
      ActKind kind;
    };
    // Each fast product's rounded input: one per input vector and kind, shared by the products
    // that read it (Q, K and V read one).
    std::vector<int> input_of(ops.size(), -1);
    std::vector<Input> inputs;
    for (size_t i = 0; i < ops.size(); ++i) {
      const auto kind = fast_kernel_acts(ops[i].w->type);
      if (!kind || ops[i].w->n_in % block_of(*kind) != 0) continue;
      const Input in{ops[i].x_off, ops[i].w->n_in, *kind};
      auto same = std::find_if(inputs.begin(), inputs.end(), [&](const Input& o) {
        return o.x_off == in.x_off && o.n == in.n && o.kind == in.kind;
      });
      input_of[i] = static_cast<int>(same - inputs.begin());
      if (same == inputs.end()) inputs.push_back(in);
    }
    if (acts_.size() < inputs.size()) acts_.resize(inputs.size());
    for (size_t k = 0; k < inputs.size(); ++k) {
      quantize_acts(inputs[k].kind, act + inputs[k].x_off, stride, n_tokens, inputs[k].n, pool,
                    acts_[k]);
    }
    // An interleaved matrix (interleaved.h) goes in units of a group of eight rows.
    std::vector<std::optional<InterleavedMatrix>> grouped(ops.size());
    for (size_t i = 0; i < ops.size(); ++i) {
      const auto& w = *ops[i].w;
      if (input_of[i] >= 0 && has_interleaved_layout(w.type) && interleaved_.count(w.data)) {
        grouped[i] = InterleavedMatrix(w.type, w.n_out, w.n_in, w.data);
      }
    }
    auto units = [&](size_t i) {
      return grouped[i] ? ops[i].w->n_out / kGroupRows : ops[i].w->n_out;
    };
    uint64_t total = 0;
    for (size_t i = 0; i < ops.size(); ++i) total += units(i);
    pool.parallel_for(total, [&](uint64_t begin, uint64_t end) {
      uint64_t base = 0;
      for (size_t i = 0; i < ops.size(); ++i) {
        const auto& op = ops[i];
        const uint64_t lo = std::max(begin, base), hi = std::min(end, base + units(i));
        if (lo < hi && input_of[i] < 0) {
          reference::exact_rows(ops.subspan(i, 1), act, stride, n_tokens, lo - base, hi - base);
        } else if (lo < hi && grouped[i]) {
          interleaved_rows(*grouped[i], lo - base, hi - base,
                           acts_[static_cast<size_t>(input_of[i])], act + op.out_off, stride);
        } else if (lo < hi) {
          fast_rows(op.w->type, op.w->data, op.w->row_size(), lo - base, hi - base,
                    acts_[static_cast<size_t>(input_of[i])], act + op.out_off, stride);
        }
        base += units(i);
      }
    });
  }

  bool has_attention_rows() const override { return true; }
  void dot_rows(std::span<const float* const> queries, const float* rows, uint32_t n, uint32_t hd,
                float* dots) const override {
    cpu::dot_rows(queries, rows, n, hd, dots);
  }
  void add_rows(const float* weights, std::span<float* const> outs, const float* rows, uint32_t n,
                uint32_t hd) const override {
    cpu::add_rows(weights, outs, rows, n, hd);
  }
  void swiglu(float* gate, const float* up, uint32_t n) const override { cpu::swiglu(gate, up, n); }
  void softmax(float* scores, uint32_t n, float scale, const float* sink) const override {
    cpu::softmax(scores, n, scale, sink);
  }

 private:
  std::set<const std::byte*> interleaved_;
  mutable std::vector<QuantizedActs> acts_;
};

}  // namespace

std::unique_ptr<reference::Products> make_fast_products(
    std::span<const std::byte* const> interleaved) {
  return std::make_unique<FastProducts>(interleaved);
}

}  // namespace gauntlet::engine::cpu
