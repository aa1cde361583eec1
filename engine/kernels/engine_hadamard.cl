// Turns each chunk of CHUNK floats at `off` of each token's activations by the orthonormal
// Walsh-Hadamard matrix, as ggml-cpu's fast transform does (ggml_compute_forward_fwht, ops.cpp):
// every element times `scale` (1 / sqrtf(CHUNK)) first, then the butterflies u + v, u - v at
// strides 1, 2, 4, ... (the same additions as the host's engine/reference/kv_rows.cpp, so the
// result is bit for bit). Workgroup (c, t) turns chunk c of token t, one element per work-item
// (the workgroup is CHUNK); local memory: CHUNK floats.
typedef struct {
  uint off;
  uint stride;  // floats between two tokens' activations
  float scale;
} HadamardParams;

__kernel void hadamard(__global float* act, HadamardParams p, __local float* x) {
  const uint i = get_local_id(0);
  const uint n = get_local_size(0);
  act += get_group_id(1) * p.stride + p.off + get_group_id(0) * n;
  x[i] = act[i] * p.scale;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint len = 1; len < n; len <<= 1) {
    const float mine = x[i], other = x[i ^ len];
    barrier(CLK_LOCAL_MEM_FENCE);
    x[i] = (i & len) == 0 ? mine + other : other - mine;
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  act[i] = x[i];
}
