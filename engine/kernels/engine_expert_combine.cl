// The mixture's output for each token of a pass (token t = group y, its activations at
// t * stride), element i < n: the k picked experts' outputs (slots of n at out_off) times their
// weights (at sel_off + k), added in the order picked, as build_moe_ffn's ggml_mul and ggml_adds;
// with `shared`, plus the shared expert's output already at xb_off times sigmoid(g) of its gate
// g at sel_off + 2k, as qwen2moe computes it (ggml_silu(g) / g); with `shared` 2, plus it as it
// is (nemotron_h_moe's shared expert has no gate). The sum goes to xb_off. With
// `scaled`, each pick's output is first multiplied by its expert's entry of `scale` (gemma4's
// ffn_down_exps.scale, build_lora_mm_id's down_exps_s).
typedef struct {
  uint n;
  uint k;
  uint out_off;
  uint sel_off;
  uint xb_off;
  uint shared;
  uint stride;
  uint scaled;
} CombineParams;

// Pick s's output, times its expert's scale with `scaled`.
float pick_out(const __global float* act, const __global float* scale, CombineParams p, uint s,
               uint i) {
  const float v = act[p.out_off + s * p.n + i];
  return p.scaled != 0 ? v * scale[(uint)act[p.sel_off + s]] : v;
}

__kernel void expert_combine(__global float* act, __global const float* scale, CombineParams p) {
  const uint i = get_global_id(0);
  if (i >= p.n) return;
  act += get_global_id(1) * p.stride;
  const __global float* weights = act + p.sel_off + p.k;
  float sum = pick_out(act, scale, p, 0, i) * weights[0];
  for (uint s = 1; s < p.k; ++s) sum += pick_out(act, scale, p, s, i) * weights[s];
  if (p.shared == 1) {
    const float g = act[p.sel_off + 2 * p.k];
    sum += act[p.xb_off + i] * (g / (1.0f + exp(-g)) / g);
  } else if (p.shared == 2) {
    sum += act[p.xb_off + i];
  }
  act[p.xb_off + i] = sum;
}
