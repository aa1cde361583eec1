#version 450
// The router of a mixture of experts, one invocation per token of a pass; as
// engine_expert_route.cl (gating 0: softmax then top k; 1: top k logits, softmax over them; 2:
// sigmoid, picked by sigmoid + bias where `biased`).
layout(local_size_x_id = 0) in;
layout(std430, binding = 0) buffer A { float act[]; };
layout(std430, binding = 1) readonly buffer B { float bias[]; };
layout(push_constant) uniform Params {
  uint n_expert;
  uint k;
  uint router_off;
  uint sel_off;
  uint norm;
  uint stride;
  uint n_tok;
  uint gating;
  uint biased;
  float scale;  // the weights' w_scale, as engine_expert_route.cl
} p;

void main() {
  uint t = gl_GlobalInvocationID.x;
  if (t >= p.n_tok) return;
  uint r = t * p.stride + p.router_off;
  uint sel = t * p.stride + p.sel_off;
  if (p.gating == 0) {
    float max_logit = act[r];
    for (uint i = 1; i < p.n_expert; ++i) max_logit = max(max_logit, act[r + i]);
    float sum = 0.0;
    for (uint i = 0; i < p.n_expert; ++i) {
      act[r + i] = exp(act[r + i] - max_logit);
      sum += act[r + i];
    }
    float scale = 1.0 / sum;
    for (uint i = 0; i < p.n_expert; ++i) act[r + i] *= scale;
  }
  if (p.gating == 2) {
    for (uint i = 0; i < p.n_expert; ++i) act[r + i] = 1.0 / (1.0 + exp(-act[r + i]));
  }
  float picked = 0.0;
  for (uint j = 0; j < p.k; ++j) {
    uint best = p.n_expert;
    for (uint i = 0; i < p.n_expert; ++i) {
      bool taken = false;
      for (uint m = 0; m < j; ++m) taken = taken || uint(act[sel + m]) == i;
      bool above = p.biased != 0 ? act[r + i] + bias[i] > act[r + best] + bias[best]
                                 : act[r + i] > act[r + best];
      if (!taken && (best == p.n_expert || above)) best = i;
    }
    act[sel + j] = float(best);
    act[sel + p.k + j] = act[r + best];
    picked += act[r + best];
  }
  if (p.gating == 1) {
    float max_w = act[sel + p.k];
    for (uint j = 1; j < p.k; ++j) max_w = max(max_w, act[sel + p.k + j]);
    float sum = 0.0;
    for (uint j = 0; j < p.k; ++j) {
      act[sel + p.k + j] = exp(act[sel + p.k + j] - max_w);
      sum += act[sel + p.k + j];
    }
    float scale = 1.0 / sum;
    for (uint j = 0; j < p.k; ++j) act[sel + p.k + j] *= scale;
    picked = 1.0;
  }
  if (p.norm != 0) {
    float divisor = max(picked, 6.103515625e-5);
    for (uint j = 0; j < p.k; ++j) act[sel + p.k + j] /= divisor;
  }
  if (p.scale != 0.0 && p.scale != 1.0) {
    for (uint j = 0; j < p.k; ++j) act[sel + p.k + j] *= p.scale;
  }
}
