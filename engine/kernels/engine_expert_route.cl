// The router of a mixture of experts, one work-item per token of a pass (its activations at
// t * stride), as llama.cpp's build_moe_ffn: the n_expert logits at router_off become
// ggml_soft_max's probabilities; the k largest are picked largest first, a tie going to the lower
// id (the host reference's top_k); their ids (as floats) go to sel_off and their weights to
// sel_off + k, divided by their sum (clamped below at the smallest normal f16) when `norm`.
// With `gating` 1 (LLAMA_EXPERT_GATING_FUNC_TYPE_SOFTMAX_WEIGHT, gpt-oss) the k largest logits
// are picked and their weights are the softmax of those k. With `gating` 2 (SIGMOID, lfm2moe) each
// logit becomes its sigmoid; with `biased`, the experts are picked by sigmoid + bias[i] (the
// selection bias exp_probs_b) and weighted by their sigmoids alone. A `scale` other than 0 and 1
// multiplies the weights last (build_moe_ffn's w_scale, nemotron_h_moe).
typedef struct {
  uint n_expert;
  uint k;
  uint router_off;
  uint sel_off;
  uint norm;
  uint stride;
  uint n_tok;
  uint gating;
  uint biased;
  float scale;
} RouteParams;

__kernel void expert_route(__global float* act, __global const float* bias, RouteParams p) {
  const uint t = get_global_id(0);
  if (t >= p.n_tok) return;
  __global float* r = act + t * p.stride + p.router_off;
  __global float* sel = act + t * p.stride + p.sel_off;
  if (p.gating == 0) {
    float max_logit = r[0];
    for (uint i = 1; i < p.n_expert; ++i) max_logit = fmax(max_logit, r[i]);
    float sum = 0.0f;
    for (uint i = 0; i < p.n_expert; ++i) {
      r[i] = exp(r[i] - max_logit);
      sum += r[i];
    }
    const float scale = 1.0f / sum;
    for (uint i = 0; i < p.n_expert; ++i) r[i] *= scale;
  }
  if (p.gating == 2) {
    for (uint i = 0; i < p.n_expert; ++i) r[i] = 1.0f / (1.0f + exp(-r[i]));
  }
  float picked = 0.0f;
  for (uint j = 0; j < p.k; ++j) {
    uint best = p.n_expert;
    for (uint i = 0; i < p.n_expert; ++i) {
      bool taken = false;
      for (uint m = 0; m < j; ++m) taken = taken || (uint)sel[m] == i;
      const bool above = p.biased != 0 ? r[i] + bias[i] > r[best] + bias[best] : r[i] > r[best];
      if (!taken && (best == p.n_expert || above)) best = i;
    }
    sel[j] = (float)best;
    sel[p.k + j] = r[best];
    picked += r[best];
  }
  if (p.gating == 1) {
    float max_w = sel[p.k];
    for (uint j = 1; j < p.k; ++j) max_w = fmax(max_w, sel[p.k + j]);
    float sum = 0.0f;
    for (uint j = 0; j < p.k; ++j) {
      sel[p.k + j] = exp(sel[p.k + j] - max_w);
      sum += sel[p.k + j];
    }
    const float scale = 1.0f / sum;
    for (uint j = 0; j < p.k; ++j) sel[p.k + j] *= scale;
    picked = 1.0f;
  }
  if (p.norm != 0) {
    const float divisor = fmax(picked, 6.103515625e-5f);
    for (uint j = 0; j < p.k; ++j) sel[p.k + j] /= divisor;
  }
  if (p.scale != 0.0f && p.scale != 1.0f) {
    for (uint j = 0; j < p.k; ++j) sel[p.k + j] *= p.scale;
  }
}
