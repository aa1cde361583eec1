#include "engine/reference/gemma4_layer.h"

#include <cmath>
#include <vector>

#include "engine/model/tensor_type.h"
#include "engine/reference/experts.h"
#include "engine/reference/layer_ops.h"
#include "engine/reference/matmuls.h"

namespace gauntlet::engine::reference {

void per_layer_embedding(const model::ModelShape& s, const model::ModelWeights& w, uint32_t l,
                         float* act, std::span<const PassToken> tokens,
                         const planner::ActivationLayout& a, ThreadPool& pool) {
  const model::LayerWeights& L = w.layers[l];
  const uint32_t ple = s.n_embd_per_layer, n_embd = s.n_embd;
  const uint64_t stride = a.total, all = uint64_t{ple} * s.n_layer;
  const size_t n = tokens.size();
  // Rows [l * ple, (l + 1) * ple) of the model projection: this layer's slice.
  const model::TensorView proj_l{w.per_layer_model_proj.type, w.per_layer_model_proj.n_in, ple,
                                 w.per_layer_model_proj.row(uint64_t{l} * ple), 1};
  for (size_t t = 0; t < n; ++t)
    embed_token(s, w.token_embd, tokens[t].token, act + t * stride + a.ple_x);
  matmuls(pool, act, stride, n, {{&proj_l, a.ple_x, a.ple_in}, {&L.ple_gate, a.x, a.ple_gate}});
  const float proj_scale = 1.0f / std::sqrt(static_cast<float>(n_embd));
  const float table_scale = std::sqrt(static_cast<float>(ple));
  const float input_scale = 1.0f / std::sqrt(2.0f);
  std::vector<float> row(all);
  for (size_t t = 0; t < n; ++t) {
    float* b = act + t * stride;
    float* in = b + a.ple_in;
    for (uint32_t i = 0; i < ple; ++i) in[i] *= proj_scale;
    rmsnorm(in, in, floats(w.per_layer_proj_norm), ple, s.rms_eps);
    const auto& table = w.per_layer_token_embd;
    model::dequantize_row(table.type, table.row(static_cast<uint64_t>(tokens[t].token)), row.data(),
                          all);
    const float* mine = row.data() + uint64_t{l} * ple;
    for (uint32_t i = 0; i < ple; ++i) in[i] = (in[i] + mine[i] * table_scale) * input_scale;
    gated_activation(model::Activation::gelu, b + a.ple_gate, in, ple);
  }
  matmuls(pool, act, stride, n, {{&L.ple_proj, a.ple_gate, a.xb}});
  for (size_t t = 0; t < n; ++t) {
    float* b = act + t * stride;
    rmsnorm(b + a.xb, b + a.xb, floats(L.ple_post_norm), n_embd, s.rms_eps);
    for (uint32_t i = 0; i < n_embd; ++i) b[a.x + i] += b[a.xb + i];
  }
}

void dense_beside_experts_ffn(const model::ModelShape& s, const model::LayerWeights& L, float* act,
                              size_t n, const planner::ActivationLayout& a, ThreadPool& pool) {
  const uint64_t stride = a.total;
  const uint32_t n_embd = s.n_embd;
  auto each = [&](auto&& fn) {
    for (size_t t = 0; t < n; ++t) fn(act + t * stride);
  };
  each([&](float* b) { rmsnorm(b + a.xb, b + a.x, floats(L.ffn_norm), n_embd, s.rms_eps); });
  matmuls(pool, act, stride, n, {{&L.w_gate, a.xb, a.hb}, {&L.w_up, a.xb, a.hb2}});
  each([&](float* b) { gated_activation(model::Activation::gelu, b + a.hb, b + a.hb2, s.n_ff); });
  matmuls(pool, act, stride, n, {{&L.w_down, a.hb, a.mlp}});
  const float router_scale = 1.0f / std::sqrt(static_cast<float>(n_embd));
  each([&](float* b) {
    rmsnorm(b + a.mlp, b + a.mlp, floats(L.post_ffn_norm_1), n_embd, s.rms_eps);
    rmsnorm(b + a.xb, b + a.x, floats(L.pre_ffn_norm_2), n_embd, s.rms_eps);
    float* r = b + a.router_in;
    rmsnorm(r, b + a.x, nullptr, n_embd, s.rms_eps);
    const float* scale = floats(L.router_scale);
    for (uint32_t i = 0; i < n_embd; ++i) r[i] = r[i] * router_scale * scale[i];
  });
  experts_ffn(s, L, act, n, a, pool);
  each([&](float* b) {
    rmsnorm(b + a.xb, b + a.xb, floats(L.post_ffn_norm_2), n_embd, s.rms_eps);
    for (uint32_t i = 0; i < n_embd; ++i) b[a.xb + i] = b[a.mlp + i] + b[a.xb + i];
  });
}

}  // namespace gauntlet::engine::reference
