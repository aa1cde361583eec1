// The gated attention of qwen35's attention layers (src/models/qwen35.cpp build_layer_attn), for
// each token of a pass (token t = group y, its activations at t * stride), i < n (n_head *
// head_dim). MODE 0: the Q projection holds each head's [q | gate] (2 head_dim), split into q and
// gate: q[i] = in[2 h head_dim + d], gate[i] = in[2 h head_dim + head_dim + d] for i = h head_dim
// + d. MODE 1: the attention's output times sigmoid(gate): out[i] *= 1 / (1 + exp(-gate[i])).
// MODE 2 (laguna, src/models/laguna.cpp): one gate value per head, out[i] *= softplus(gate[h])
// with ggml's softplus (x above 20: x; else log(1 + exp(x))).
typedef struct {
  uint n;
  uint head_dim;
  uint in_off;   // MODE 0: [q | gate] per head
  uint out_off;  // MODE 0: q; MODE 1: the attention's output
  uint gate_off;
  uint stride;
} QueryGateParams;

__kernel void query_gate(__global float* act, QueryGateParams p) {
  const uint i = get_global_id(0);
  if (i >= p.n) return;
  act += get_global_id(1) * p.stride;
#if MODE == 0
  const uint h = i / p.head_dim, d = i % p.head_dim;
  const uint at = p.in_off + 2 * h * p.head_dim + d;
  act[p.out_off + i] = act[at];
  act[p.gate_off + i] = act[at + p.head_dim];
#elif MODE == 1
  act[p.out_off + i] *= 1.0f / (1.0f + exp(-act[p.gate_off + i]));
#else
  const float g = act[p.gate_off + i / p.head_dim];
  act[p.out_off + i] *= g > 20.0f ? g : log(1.0f + exp(g));
#endif
}
