#version 450
// Mamba2's selective scan with its D skip and z gate, as engine_ssm_scan.cl (ggml_ssm_scan,
// build_mamba2_layer): invocation (c, s) owns channel c of sequence s and walks the pass's tokens
// in order; a token at position 0 starts from a zero state.
// Constant 0: workgroup.
layout(local_size_x_id = 0) in;
layout(std430, binding = 0) buffer A { float act[]; };
layout(std430, binding = 1) buffer S { float state[]; };
layout(std430, binding = 2) readonly buffer Dt { float dt_bias[]; };
layout(std430, binding = 3) readonly buffer SA { float ssm_a[]; };
layout(std430, binding = 4) readonly buffer SD { float ssm_d[]; };
layout(std430, binding = 5) readonly buffer P { uint pass[]; };
layout(push_constant) uniform Params {
  uint d_state;
  uint head_dim;
  uint heads_per_group;
  uint groups;
  uint inner;
  uint conv_off;
  uint dt_off;
  uint z_off;
  uint out_off;
  uint state_off;
  uint seq_floats;
  uint stride;
  uint n_tok;
  uint first;
} p;

void main() {
  uint c = gl_GlobalInvocationID.x;
  if (c >= p.inner) return;
  uint seq = gl_WorkGroupID.y;
  uint h = c / p.head_dim, g = h / p.heads_per_group;
  uint s = seq * p.seq_floats + p.state_off + c * p.d_state;
  for (uint t = p.first; t < p.n_tok; ++t) {
    if (pass[2 * t + 1] != seq) continue;
    if (pass[2 * t] == 0) {
      for (uint i = 0; i < p.d_state; ++i) state[s + i] = 0.0;
    }
    uint tok = t * p.stride;
    float raw = act[tok + p.dt_off + h] + dt_bias[h];
    float dt = raw > 20.0 ? raw : log(1.0 + exp(raw));
    float decay = exp(dt * ssm_a[h]);
    float x = act[tok + p.conv_off + c];
    float x_dt = x * dt;
    uint b = tok + p.conv_off + p.inner + g * p.d_state;
    uint cc = b + p.groups * p.d_state;
    float sum = 0.0;
    for (uint i = 0; i < p.d_state; ++i) {
      float v = state[s + i] * decay + act[b + i] * x_dt;
      state[s + i] = v;
      sum += v * act[cc + i];
    }
    float z = act[tok + p.z_off + c];
    act[tok + p.out_off + c] = (sum + x * ssm_d[h]) * (z / (1.0 + exp(-z)));
  }
}
