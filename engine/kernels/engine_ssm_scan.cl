// Mamba2's selective scan with its D skip and z gate (ggml_ssm_scan with a scalar A per head,
// ggml/src/ggml-cpu/ops.cpp ggml_compute_forward_ssm_scan_f32; build_mamba2_layer in
// src/models/mamba-base.cpp). Work-item (c, s) owns channel c of d_inner (head h = c / head_dim,
// group h / heads_per_group) of sequence s: it walks the pass's tokens in order and, for each of
// its sequence's, dt = softplus(dt_raw[h] + dt_bias[h]), decays its state row (d_state values) by
// exp(dt A[h]), adds B x dt, takes the row's dot product with C, and writes
// y = (that + x D[h]) * silu(z). A token at position 0 starts from a zero state.
typedef struct {
  uint d_state;
  uint head_dim;
  uint heads_per_group;
  uint groups;
  uint inner;
  uint conv_off;    // x (inner), B, C (groups x d_state each): the conv's output
  uint dt_off;      // dt per head, before softplus and bias
  uint z_off;       // the gate (inner)
  uint out_off;     // y (inner)
  uint state_off;   // the layer's scan state in a sequence's block
  uint seq_floats;  // floats between two sequences' blocks
  uint stride;      // floats between two tokens' activations
  uint n_tok;
  uint first;  // the tokens first .. n_tok - 1 of the pass
} SsmScanParams;

__kernel void ssm_scan(__global float* act, __global float* state, __global const float* dt_bias,
                       __global const float* ssm_a, __global const float* ssm_d,
                       __global const uint* pass, SsmScanParams p) {
  const uint c = get_global_id(0);
  if (c >= p.inner) return;
  const uint seq = get_global_id(1);
  const uint h = c / p.head_dim, g = h / p.heads_per_group;
  __global float* s = state + seq * p.seq_floats + p.state_off + c * p.d_state;
  for (uint t = p.first; t < p.n_tok; ++t) {
    if (pass[2 * t + 1] != seq) continue;
    if (pass[2 * t] == 0) {
      for (uint i = 0; i < p.d_state; ++i) s[i] = 0.0f;
    }
    __global float* tok = act + t * p.stride;
    const float raw = tok[p.dt_off + h] + dt_bias[h];
    const float dt = raw > 20.0f ? raw : log(1.0f + exp(raw));
    const float decay = exp(dt * ssm_a[h]);
    const float x = tok[p.conv_off + c];
    const float x_dt = x * dt;
    __global const float* b = tok + p.conv_off + p.inner + g * p.d_state;
    __global const float* cc = b + p.groups * p.d_state;
    float sum = 0.0f;
    for (uint i = 0; i < p.d_state; ++i) {
      const float v = s[i] * decay + b[i] * x_dt;
      s[i] = v;
      sum += v * cc[i];
    }
    const float z = tok[p.z_off + c];
    tok[p.out_off + c] = (sum + x * ssm_d[h]) * (z / (1.0f + exp(-z)));
  }
}
