#include "engine/reference/experts.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <utility>
#include <vector>

#include "engine/reference/layer_ops.h"
#include "engine/reference/matmuls.h"

namespace gauntlet::engine::reference {

namespace {

// ggml_soft_max's row: exp(x - max) summed in double, then scaled by 1 / sum.
void softmax(float* x, uint32_t n) {
  const float max = *std::max_element(x, x + n);
  double sum = 0;
  for (uint32_t i = 0; i < n; ++i) {
    x[i] = std::exp(x[i] - max);
    sum += x[i];
  }
  const auto scale = static_cast<float>(1.0 / sum);
  for (uint32_t i = 0; i < n; ++i) x[i] *= scale;
}

// Row r of an f32 tensor (an expert's bias row).
const float* row_floats(const model::TensorView& t, uint64_t r) {
  return reinterpret_cast<const float*>(t.row(r));
}

// gate = act(gate, up), the architecture's activation of the experts.
void expert_activation(const model::Architecture& arch, float* gate, const float* up, uint32_t n) {
  if (arch.expert_activation == model::Activation::swiglu_oai) {
    swiglu_oai(gate, up, n, arch.swiglu_alpha, arch.swiglu_limit);
  } else {
    gated_activation(arch.expert_activation, gate, up, n);
  }
}

// The smallest sum build_moe_ffn divides by (ggml_clamp to the smallest normal f16).
constexpr float kMinWeightSum = 6.103515625e-5f;

// Rows [0, n_out) of expert e's matrix for the tokens that picked it, each token's input at
// `x_off` + slot * `x_slot` of its block, the output at `out_off` + slot * `out_slot`.
struct ExpertProduct {
  model::TensorView stack;
  uint64_t x_off, x_slot, out_off, out_slot;
};

// A token's pick: the token and the slot (rank) the expert has in its selection.
using Users = std::vector<std::vector<std::pair<size_t, uint32_t>>>;

void expert_products(ThreadPool& pool, float* act, uint64_t stride, const Users& users,
                     std::initializer_list<ExpertProduct> list) {
  for (size_t e = 0; e < users.size(); ++e) {
    if (users[e].empty()) continue;
    std::vector<std::pair<model::TensorView, const ExpertProduct*>> ops;
    uint64_t total = 0;
    for (const auto& p : list) {
      ops.emplace_back(p.stack.matrix(e), &p);
      total += p.stack.n_out;
    }
    pool.parallel_for(total, [&](uint64_t begin, uint64_t end) {
      uint64_t base = 0;
      for (const auto& [w, p] : ops) {
        const uint64_t lo = std::max(begin, base), hi = std::min(end, base + w.n_out);
        for (uint64_t r = lo; r < hi; ++r) {
          for (const auto& [t, slot] : users[e]) {
            float* b = act + t * stride;
            model::dot_row_tokens(w.type, w.row(r - base), b + p->x_off + slot * p->x_slot, w.n_in,
                                  1, stride, b + p->out_off + slot * p->out_slot + r - base);
          }
        }
        base += w.n_out;
      }
    });
  }
}

}  // namespace

void top_k(std::span<const float> probs, uint32_t k, uint32_t* ids) {
  std::vector<uint32_t> order(probs.size());
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(),
                   [&](uint32_t a, uint32_t b) { return probs[a] > probs[b]; });
  std::copy_n(order.begin(), k, ids);
}

void route_token(const model::ModelShape& s, float* router, float* selected,
                 const float* selection_bias) {
  const uint32_t k = s.n_expert_used;
  const model::ExpertGating gating = s.gating();
  const bool softmax_weight = gating == model::ExpertGating::softmax_weight;
  if (gating == model::ExpertGating::softmax) softmax(router, s.n_expert);
  // ggml_sigmoid: 1 / (1 + e^-x).
  if (gating == model::ExpertGating::sigmoid) {
    for (uint32_t i = 0; i < s.n_expert; ++i) router[i] = 1.0f / (1.0f + std::exp(-router[i]));
  }
  uint32_t ids[model::kMaxExpertsUsed];
  if (selection_bias != nullptr) {
    float biased[model::kMaxExperts];
    for (uint32_t i = 0; i < s.n_expert; ++i) biased[i] = router[i] + selection_bias[i];
    top_k({biased, s.n_expert}, k, ids);
  } else {
    top_k({router, s.n_expert}, k, ids);
  }
  float* weights = selected + k;
  double sum = 0;
  for (uint32_t i = 0; i < k; ++i) {
    selected[i] = static_cast<float>(ids[i]);
    weights[i] = router[ids[i]];
    sum += weights[i];
  }
  // SOFTMAX_WEIGHT: the picked logits' own softmax (build_moe_ffn's ggml_soft_max of weights).
  if (softmax_weight) softmax(weights, k);
  if (s.norm_expert_weights()) {
    const float divisor = std::max(static_cast<float>(sum), kMinWeightSum);
    for (uint32_t i = 0; i < k; ++i) weights[i] /= divisor;
  }
  // build_moe_ffn's w_scale (ggml_scale where it is neither 0 nor 1).
  const float scale = s.expert_weights_scale;
  if (scale != 0.0f && scale != 1.0f) {
    for (uint32_t i = 0; i < k; ++i) weights[i] *= scale;
  }
}

void experts_ffn(const model::ModelShape& s, const model::LayerWeights& L, float* act,
                 size_t n_tokens, const planner::ActivationLayout& a, ThreadPool& pool) {
  const uint64_t stride = a.total, ff = s.expert_ff(), embd = s.n_embd;
  const uint32_t k = s.n_expert_used;
  auto block = [&](size_t t) { return act + t * stride; };
  const model::Architecture& arch = s.traits();
  // gemma4's router reads its own input (gemma4_layer.h), the experts the pre-norm's output.
  const uint64_t router_in = s.dense_beside_experts() ? a.router_in : a.xb;
  matmuls(pool, act, stride, n_tokens, {{&L.router, router_in, a.router}});
  Users users(s.n_expert);
  for (size_t t = 0; t < n_tokens; ++t) {
    float* b = block(t);
    if (arch.expert_biases) add_bias(b + a.router, floats(L.router_b), s.n_expert);
    route_token(s, b + a.router, b + a.selected,
                L.selection_bias.data != nullptr ? floats(L.selection_bias) : nullptr);
    for (uint32_t slot = 0; slot < k; ++slot) {
      users[static_cast<size_t>(b[a.selected + slot])].emplace_back(t, slot);
    }
  }
  // A fused stack writes each pick's gate and up side by side (2 ff from experts_gate on, which
  // the layout keeps beside experts_up): the activation reads and the down product steps 2 ff.
  // Ungated experts (nemotron_h_moe) write up where the gate goes and activate it in place.
  const bool fused = s.fused_expert_gate_up, ungated = arch.ungated_experts;
  const uint64_t gate_step = fused ? 2 * ff : ff;
  if (ungated) {
    expert_products(pool, act, stride, users, {{L.up_exps, a.xb, 0, a.experts_gate, ff}});
  } else if (fused) {
    expert_products(pool, act, stride, users, {{L.gate_up_exps, a.xb, 0, a.experts_gate, 2 * ff}});
  } else {
    expert_products(
        pool, act, stride, users,
        {{L.gate_exps, a.xb, 0, a.experts_gate, ff}, {L.up_exps, a.xb, 0, a.experts_up, ff}});
  }
  for (size_t t = 0; t < n_tokens; ++t) {
    float* b = block(t);
    for (uint32_t slot = 0; slot < k; ++slot) {
      float* gate = b + a.experts_gate + slot * gate_step;
      float* up = fused ? gate + ff : b + a.experts_up + slot * ff;
      if (ungated) {
        activation(arch.expert_activation, gate, static_cast<uint32_t>(ff));
        continue;
      }
      if (arch.expert_biases) {
        // ggml_add_id: each pick's products plus its expert's bias row.
        const auto e = static_cast<uint64_t>(b[a.selected + slot]);
        add_bias(up, row_floats(L.up_exps_b, e), ff);
        add_bias(gate, row_floats(L.gate_exps_b, e), ff);
      }
      expert_activation(arch, gate, up, static_cast<uint32_t>(ff));
    }
  }
  expert_products(pool, act, stride, users,
                  {{L.down_exps, a.experts_gate, gate_step, a.experts_out, embd}});
  if (arch.expert_biases) {
    for (size_t t = 0; t < n_tokens; ++t) {
      float* b = block(t);
      for (uint32_t slot = 0; slot < k; ++slot) {
        const auto e = static_cast<uint64_t>(b[a.selected + slot]);
        add_bias(b + a.experts_out + slot * embd, row_floats(L.down_exps_b, e), embd);
      }
    }
  }
  // gemma4's ffn_down_exps.scale: each pick's output times its expert's scale (build_lora_mm_id's
  // down_exps_s).
  if (L.down_exps_scale.data != nullptr) {
    for (size_t t = 0; t < n_tokens; ++t) {
      float* b = block(t);
      for (uint32_t slot = 0; slot < k; ++slot) {
        const float scale = floats(L.down_exps_scale)[static_cast<uint64_t>(b[a.selected + slot])];
        for (uint64_t i = 0; i < embd; ++i) b[a.experts_out + slot * embd + i] *= scale;
      }
    }
  }
  if (s.shared_expert() && ungated) {
    // nemotron_h_moe's shared expert: act(ffn_up_shexp x), then ffn_down_shexp, added as it is.
    matmuls(pool, act, stride, n_tokens, {{&L.w_up_shexp, a.xb, a.hb}});
    for (size_t t = 0; t < n_tokens; ++t) {
      activation(arch.expert_activation, block(t) + a.hb, s.shared_expert_ff());
    }
    matmuls(pool, act, stride, n_tokens, {{&L.w_down_shexp, a.hb, a.xb}});
  } else if (s.shared_expert()) {
    // The shared expert's gate g = ffn_gate_inp_shexp . x, kept beside the selection.
    if (!arch.shared_expert_unscaled) {
      matmuls(pool, act, stride, n_tokens, {{&L.shexp_gate, a.xb, a.selected + 2 * k}});
    }
    matmuls(pool, act, stride, n_tokens,
            {{&L.w_gate_shexp, a.xb, a.hb}, {&L.w_up_shexp, a.xb, a.hb2}});
    for (size_t t = 0; t < n_tokens; ++t) {
      gated_activation(model::Activation::silu, block(t) + a.hb, block(t) + a.hb2,
                       s.shared_expert_ff());
    }
    matmuls(pool, act, stride, n_tokens, {{&L.w_down_shexp, a.hb, a.xb}});
  }
  for (size_t t = 0; t < n_tokens; ++t) {
    float* b = block(t);
    const float* weights = b + a.selected + k;
    // qwen2moe's sigmoid is ggml_div(ggml_silu(g), g); nemotron_h_moe's and granite's shared
    // expert has none.
    const float g = b[a.selected + 2 * k];
    const float shared_scale = arch.shared_expert_unscaled ? 1.0f : g / (1.0f + std::exp(-g)) / g;
    for (uint64_t i = 0; i < embd; ++i) {
      float sum = b[a.experts_out + i] * weights[0];
      for (uint32_t slot = 1; slot < k; ++slot)
        sum += b[a.experts_out + slot * embd + i] * weights[slot];
      b[a.xb + i] = s.shared_expert() ? sum + b[a.xb + i] * shared_scale : sum;
    }
  }
}

}  // namespace gauntlet::engine::reference
