#version 450
// Turns each chunk of CHUNK floats at `off` of each token's activations by the orthonormal
// Walsh-Hadamard matrix, as ggml-cpu's fast transform does (ggml_compute_forward_fwht, ops.cpp):
// every element times `scale` (1 / sqrtf(CHUNK)) first, then the butterflies u + v, u - v at
// strides 1, 2, 4, ... (bit for bit the host's engine/reference/kv_rows.cpp). Workgroup (c, t)
// turns chunk c of token t, one element per invocation. Constants: 0 workgroup, 3 CHUNK (the
// same).
layout(local_size_x_id = 0) in;
layout(constant_id = 3) const uint CHUNK = 64;
layout(std430, binding = 0) buffer A { float act[]; };
layout(push_constant) uniform Params {
  uint off;
  uint stride;
  float scale;
} p;

shared float x[CHUNK];

void main() {
  const uint i = gl_LocalInvocationID.x;
  const uint n = gl_WorkGroupSize.x;
  const uint base = gl_WorkGroupID.y * p.stride + p.off + gl_WorkGroupID.x * n;
  x[i] = act[base + i] * p.scale;
  barrier();
  for (uint len = 1u; len < n; len <<= 1) {
    const float mine = x[i], other = x[i ^ len];
    barrier();
    x[i] = (i & len) == 0u ? mine + other : other - mine;
    barrier();
  }
  act[base + i] = x[i];
}
