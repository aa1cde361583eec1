#version 450
// Elementwise ops over the activation buffer, i < n. Constant 3 OP: 0 residual add a += b;
// 1 SwiGLU a = silu(a) * b; 2 GeGLU a = gelu(a) * b (GELU's tanh approximation, as ggml_gelu);
// 3 a *= value (gemma's embedding scale); 4 a = value * tanh(a / value) (soft-cap).
layout(local_size_x_id = 0) in;
layout(constant_id = 3) const uint OP = 0;
layout(std430, binding = 0) buffer A { float act[]; };
layout(push_constant) uniform Params {
  uint n;
  uint a_off;
  uint b_off;
  float value;
} p;

void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i >= p.n) return;
  float a = act[p.a_off + i];
  if (OP == 0) {
    act[p.a_off + i] = a + act[p.b_off + i];
  } else if (OP == 1) {
    act[p.a_off + i] = a / (1.0 + exp(-a)) * act[p.b_off + i];
  } else if (OP == 2) {
    float gelu = 0.5 * a * (1.0 + tanh(0.7978845608 * a * (1.0 + 0.044715 * a * a)));
    act[p.a_off + i] = gelu * act[p.b_off + i];
  } else if (OP == 3) {
    act[p.a_off + i] = a * p.value;
  } else {
    act[p.a_off + i] = p.value * tanh(a / p.value);
  }
}
