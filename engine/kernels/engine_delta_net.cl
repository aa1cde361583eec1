// The gated delta rule of a gated DeltaNet layer (qwen35) on its f32 state, token by token:
// ggml_gated_delta_net with a scalar gate per head (ggml/src/ggml-cpu/ops.cpp
// ggml_compute_forward_gated_delta_net_one_chunk), after build_gdn_l2_norm of q and k and the
// gate from src/models/qwen35.cpp: beta = sigmoid(b), g = softplus(alpha + dt_bias) * ssm_a.
// Workgroup (h, s) owns value head h of sequence s; it walks the pass's tokens in order and for
// each of its sequence's: q and k of key head h % groups (the conv's output: q heads, k heads, v
// heads) L2-normalised into local memory, the state S (n x n, column j at j * n) decayed by
// exp(g), S += k (beta (v - S^T k))^T, out = S^T q / sqrt(n). Work-item j owns columns j, j + WG_X,
// .. of S for the whole pass, so only q and k are shared. A token at position 0 starts from a zero
// state. STATE = n (the key head size), RED = WG_X.
typedef struct {
  uint n;
  uint heads;       // value heads
  uint groups;      // key heads
  uint conv_off;    // q, k, v (the conv's output) of each token
  uint ba_off;      // beta's logits, then alpha's, one per value head
  uint out_off;     // the heads' outputs (n each)
  uint state_off;   // the layer's delta state in a sequence's block
  uint seq_floats;  // floats between two sequences' blocks
  uint stride;
  uint n_tok;
  float eps;
  uint first;  // the tokens first .. n_tok - 1 of the pass
} DeltaNetParams;

__kernel void delta_net(__global float* act, __global float* state,
                        __global const float* dt_bias, __global const float* ssm_a,
                        __global const uint* pass, DeltaNetParams p) {
  __local float qs[STATE], ks[STATE], red_q[RED], red_k[RED];
  const uint lid = get_local_id(0), h = get_group_id(0), seq = get_group_id(1);
  const uint n = p.n, kh = h % p.groups;
  __global float* S = state + seq * p.seq_floats + p.state_off + h * n * n;
  const float nf = (float)n;
  const float tail = 1.0f / sqrt(nf);
  for (uint t = p.first; t < p.n_tok; ++t) {
    if (pass[2 * t + 1] != seq) continue;  // the same for the whole workgroup
    __global float* tok = act + t * p.stride;
    if (pass[2 * t] == 0) {
      for (uint j = lid; j < n; j += WG_X) {
        for (uint i = 0; i < n; ++i) S[j * n + i] = 0.0f;
      }
    }
    float sq = 0.0f, sk = 0.0f;
    for (uint i = lid; i < n; i += WG_X) {
      const float q = tok[p.conv_off + kh * n + i];
      const float k = tok[p.conv_off + (p.groups + kh) * n + i];
      qs[i] = q;
      ks[i] = k;
      sq += q * q;
      sk += k * k;
    }
    red_q[lid] = sq;
    red_k[lid] = sk;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint r = WG_X / 2; r > 0; r >>= 1) {
      if (lid < r) {
        red_q[lid] += red_q[lid + r];
        red_k[lid] += red_k[lid + r];
      }
      barrier(CLK_LOCAL_MEM_FENCE);
    }
    // build_gdn_l2_norm: ggml_rms_norm(v, eps / n) scaled by 1 / sqrt(n).
    const float q_scale = 1.0f / sqrt(red_q[0] / nf + p.eps / nf);
    const float k_scale = 1.0f / sqrt(red_k[0] / nf + p.eps / nf);
    for (uint i = lid; i < n; i += WG_X) {
      qs[i] = qs[i] * q_scale * tail;
      ks[i] = ks[i] * k_scale * tail;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    const float beta = 1.0f / (1.0f + exp(-tok[p.ba_off + h]));
    const float x = tok[p.ba_off + p.heads + h] + dt_bias[h];
    const float g = (x > 20.0f ? x : log(1.0f + exp(x))) * ssm_a[h];
    const float decay = exp(g);
    __global const float* v = tok + p.conv_off + 2 * p.groups * n + h * n;
    for (uint j = lid; j < n; j += WG_X) {
      __global float* col = S + j * n;
      float dot_k = 0.0f;
      for (uint i = 0; i < n; ++i) {
        const float s = col[i] * decay;
        col[i] = s;
        dot_k += s * ks[i];
      }
      const float delta = (v[j] - dot_k) * beta;
      float dot_q = 0.0f;
      for (uint i = 0; i < n; ++i) {
        const float s = col[i] + ks[i] * delta;
        col[i] = s;
        dot_q += s * qs[i];
      }
      tok[p.out_off + h * n + j] = dot_q * tail;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
}
