// The mixture's output for each token of a pass (token t = group y, its activations at
// t * stride), element i < n: the k picked experts' outputs (slots of n at out_off) times their
// weights (at sel_off + k), added in the order picked, as build_moe_ffn's ggml_mul and ggml_adds;
// with `shared`, plus the shared expert's output already at xb_off times sigmoid(g) of its gate
// g at sel_off + 2k, as qwen2moe computes it (ggml_silu(g) / g). The sum goes to xb_off.
typedef struct {
  uint n;
  uint k;
  uint out_off;
  uint sel_off;
  uint xb_off;
  uint shared;
  uint stride;
} CombineParams;

__kernel void expert_combine(__global float* act, CombineParams p) {
  const uint i = get_global_id(0);
  if (i >= p.n) return;
  act += get_global_id(1) * p.stride;
  const __global float* weights = act + p.sel_off + p.k;
  float sum = act[p.out_off + i] * weights[0];
  for (uint s = 1; s < p.k; ++s) sum += act[p.out_off + s * p.n + i] * weights[s];
  if (p.shared != 0) {
    const float g = act[p.sel_off + 2 * p.k];
    sum += act[p.xb_off + i] * (g / (1.0f + exp(-g)) / g);
  }
  act[p.xb_off + i] = sum;
}
