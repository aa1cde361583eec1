#version 450
// The gated attention of qwen35's attention layers, as engine_query_gate.cl: MODE 0 splits each
// head's [q | gate] of the Q projection into q and gate; MODE 1 multiplies the attention's output
// by sigmoid(gate); MODE 2 by softplus of its head's gate value (laguna). Token t = workgroup y.
// Constants: 0 workgroup, 3 MODE.
layout(local_size_x_id = 0) in;
layout(constant_id = 3) const uint MODE = 0;
layout(std430, binding = 0) buffer A { float act[]; };
layout(push_constant) uniform Params {
  uint n;
  uint head_dim;
  uint in_off;
  uint out_off;
  uint gate_off;
  uint stride;
} p;

void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i >= p.n) return;
  uint tok = gl_WorkGroupID.y * p.stride;
  if (MODE == 0) {
    uint h = i / p.head_dim, d = i % p.head_dim;
    uint at = tok + p.in_off + 2 * h * p.head_dim + d;
    act[tok + p.out_off + i] = act[at];
    act[tok + p.gate_off + i] = act[at + p.head_dim];
  } else if (MODE == 1) {
    act[tok + p.out_off + i] *= 1.0 / (1.0 + exp(-act[tok + p.gate_off + i]));
  } else {
    float g = act[tok + p.gate_off + i / p.head_dim];
    act[tok + p.out_off + i] *= g > 20.0 ? g : log(1.0 + exp(g));
  }
}
