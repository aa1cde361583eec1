#version 450
// Elementwise ops over the activation buffer. Constant 3 OP: 0 residual add a += b; 1 SwiGLU
// a = silu(a) * b.
layout(local_size_x_id = 0) in;
layout(constant_id = 3) const uint OP = 0;
layout(std430, binding = 0) buffer A { float act[]; };
layout(push_constant) uniform Params {
  uint n;
  uint a_off;
  uint b_off;
} p;

void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i >= p.n) return;
  float a = act[p.a_off + i], b = act[p.b_off + i];
  act[p.a_off + i] = OP == 0 ? a + b : a / (1.0 + exp(-a)) * b;
}
