#version 450
// The gated delta rule of a gated DeltaNet layer on its f32 state, token by token, as
// engine_delta_net.cl (ggml_gated_delta_net, build_gdn_l2_norm, qwen35's beta and gate):
// workgroup (h, s) owns value head h of sequence s and walks the pass's tokens in order;
// invocation j owns columns j, j + workgroup, .. of the state. A token at position 0 starts from a
// zero state. Constants: 0 workgroup, 3 STATE (n), 4 RED (= workgroup).
layout(local_size_x_id = 0) in;
layout(constant_id = 3) const uint STATE = 16;
layout(constant_id = 4) const uint RED = 64;
layout(std430, binding = 0) buffer A { float act[]; };
layout(std430, binding = 1) buffer S { float state[]; };
layout(std430, binding = 2) readonly buffer D { float dt_bias[]; };
layout(std430, binding = 3) readonly buffer G { float ssm_a[]; };
layout(std430, binding = 4) readonly buffer P { uint pass[]; };
layout(push_constant) uniform Params {
  uint n;
  uint heads;
  uint groups;
  uint conv_off;
  uint ba_off;
  uint out_off;
  uint state_off;
  uint seq_floats;
  uint stride;
  uint n_tok;
  float eps;
  uint first;  // the tokens first .. n_tok - 1 of the pass
} p;
shared float qs[STATE];
shared float ks[STATE];
shared float red_q[RED];
shared float red_k[RED];

void main() {
  uint lid = gl_LocalInvocationID.x, h = gl_WorkGroupID.x, seq = gl_WorkGroupID.y;
  uint wg = gl_WorkGroupSize.x;
  uint n = p.n, kh = h % p.groups;
  uint base = seq * p.seq_floats + p.state_off + h * n * n;
  float nf = float(n);
  float tail = 1.0 / sqrt(nf);
  for (uint t = p.first; t < p.n_tok; ++t) {
    if (pass[2 * t + 1] != seq) continue;  // the same for the whole workgroup
    uint tok = t * p.stride;
    if (pass[2 * t] == 0) {
      for (uint j = lid; j < n; j += wg) {
        for (uint i = 0; i < n; ++i) state[base + j * n + i] = 0.0;
      }
    }
    float sq = 0.0, sk = 0.0;
    for (uint i = lid; i < n; i += wg) {
      float q = act[tok + p.conv_off + kh * n + i];
      float k = act[tok + p.conv_off + (p.groups + kh) * n + i];
      qs[i] = q;
      ks[i] = k;
      sq += q * q;
      sk += k * k;
    }
    red_q[lid] = sq;
    red_k[lid] = sk;
    barrier();
    for (uint r = wg / 2; r > 0; r >>= 1) {
      if (lid < r) {
        red_q[lid] += red_q[lid + r];
        red_k[lid] += red_k[lid + r];
      }
      barrier();
    }
    float q_scale = 1.0 / sqrt(red_q[0] / nf + p.eps / nf);
    float k_scale = 1.0 / sqrt(red_k[0] / nf + p.eps / nf);
    for (uint i = lid; i < n; i += wg) {
      qs[i] = qs[i] * q_scale * tail;
      ks[i] = ks[i] * k_scale * tail;
    }
    barrier();
    float beta = 1.0 / (1.0 + exp(-act[tok + p.ba_off + h]));
    float x = act[tok + p.ba_off + p.heads + h] + dt_bias[h];
    float g = (x > 20.0 ? x : log(1.0 + exp(x))) * ssm_a[h];
    float decay = exp(g);
    uint v = tok + p.conv_off + 2 * p.groups * n + h * n;
    for (uint j = lid; j < n; j += wg) {
      uint col = base + j * n;
      float dot_k = 0.0;
      for (uint i = 0; i < n; ++i) {
        float s = state[col + i] * decay;
        state[col + i] = s;
        dot_k += s * ks[i];
      }
      float delta = (act[v + j] - dot_k) * beta;
      float dot_q = 0.0;
      for (uint i = 0; i < n; ++i) {
        float s = state[col + i] + ks[i] * delta;
        state[col + i] = s;
        dot_q += s * qs[i];
      }
      act[tok + p.out_off + h * n + j] = dot_q * tail;
    }
    barrier();
  }
}
