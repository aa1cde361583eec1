// Elementwise ops over the activation buffer. OP 0: residual add a += b. OP 1: SwiGLU
// a = silu(a) * b.
typedef struct {
  uint n;
  uint a_off;
  uint b_off;
} ElementwiseParams;

__kernel void elementwise(__global float* act, ElementwiseParams p) {
  const uint i = get_global_id(0);
  if (i >= p.n) return;
  const float a = act[p.a_off + i], b = act[p.b_off + i];
#if OP == 0
  act[p.a_off + i] = a + b;
#else
  act[p.a_off + i] = a / (1.0f + exp(-a)) * b;
#endif
}
