// act[t * stride + off + i] += bias[i], i < n, for each token t (group y) of a pass: the F32
// biases of qwen2's Q, K and V projections.
typedef struct {
  uint n;
  uint off;
  uint stride;
} BiasParams;

__kernel void add_bias(__global float* act, __global const float* bias, BiasParams p) {
  const uint i = get_global_id(0);
  if (i < p.n) act[get_global_id(1) * p.stride + p.off + i] += bias[i];
}
