#version 450
// Elementwise ops over the activation buffer, i < n, for each token of a pass (token t =
// workgroup y, its activations at t * stride). Constant 3 OP: 0 residual add a += b;
// 1 SwiGLU a = silu(a) * b; 2 GeGLU a = gelu(a) * b (GELU's tanh approximation, as ggml_gelu);
// 3 a *= value (gemma's embedding scale); 4 a = value * tanh(a / value) (soft-cap); 5 gpt-oss's
// clamped SwiGLU with limit = value, as engine_elementwise.cl; 6 a = max(a, 0)^2.
layout(local_size_x_id = 0) in;
layout(constant_id = 3) const uint OP = 0;
layout(std430, binding = 0) buffer A { float act[]; };
layout(push_constant) uniform Params {
  uint n;
  uint a_off;
  uint b_off;
  float value;
  uint stride;
  float alpha;
} p;

void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i >= p.n) return;
  uint tok = gl_WorkGroupID.y * p.stride;
  uint a_at = tok + p.a_off + i, b_at = tok + p.b_off + i;
  float a = act[a_at];
  if (OP == 0) {
    act[a_at] = a + act[b_at];
  } else if (OP == 1) {
    act[a_at] = a / (1.0 + exp(-a)) * act[b_at];
  } else if (OP == 2) {
    float gelu = 0.5 * a * (1.0 + tanh(0.7978845608 * a * (1.0 + 0.044715 * a * a)));
    act[a_at] = gelu * act[b_at];
  } else if (OP == 3) {
    act[a_at] = a * p.value;
  } else if (OP == 6) {
    float relu = max(a, 0.0);
    act[a_at] = relu * relu;
  } else if (OP == 5) {
    float x = min(a, p.value);
    float y = clamp(act[b_at], -p.value, p.value);
    act[a_at] = x / (1.0 + exp(p.alpha * (-x))) * (y + 1.0);
  } else {
    act[a_at] = p.value * tanh(a / p.value);
  }
}
