// Elementwise ops over the activation buffer, i < n, for each token of a pass (token t = group y,
// its activations at t * stride). OP 0: residual add a += b. OP 1: SwiGLU
// a = silu(a) * b. OP 2: GeGLU a = gelu(a) * b, GELU's tanh approximation as ggml_gelu computes
// it. OP 3: a *= value (gemma's embedding scale). OP 4: a = value * tanh(a / value) (soft-cap).
// OP 5: gpt-oss's clamped SwiGLU (ggml_swiglu_oai), limit = value: x = min(a, limit),
// y = clamp(b, -limit, limit), a = x / (1 + exp(-alpha x)) * (y + 1). OP 6: a = max(a, 0)^2
// (LLM_FFN_RELU_SQR).
typedef struct {
  uint n;
  uint a_off;
  uint b_off;
  float value;
  uint stride;
  float alpha;
} ElementwiseParams;

__kernel void elementwise(__global float* act, ElementwiseParams p) {
  const uint i = get_global_id(0);
  if (i >= p.n) return;
  act += get_global_id(1) * p.stride;
  const float a = act[p.a_off + i];
#if OP == 0
  act[p.a_off + i] = a + act[p.b_off + i];
#elif OP == 1
  act[p.a_off + i] = a / (1.0f + exp(-a)) * act[p.b_off + i];
#elif OP == 2
  const float gelu = 0.5f * a * (1.0f + tanh(0.7978845608f * a * (1.0f + 0.044715f * a * a)));
  act[p.a_off + i] = gelu * act[p.b_off + i];
#elif OP == 3
  act[p.a_off + i] = a * p.value;
#elif OP == 6
  const float relu = fmax(a, 0.0f);
  act[p.a_off + i] = relu * relu;
#elif OP == 5
  const float x = fmin(a, p.value);
  const float y = clamp(act[p.b_off + i], -p.value, p.value);
  act[p.a_off + i] = x / (1.0f + exp(p.alpha * (-x))) * (y + 1.0f);
#else
  act[p.a_off + i] = p.value * tanh(a / p.value);
#endif
}
