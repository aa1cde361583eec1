#version 450
// act[t * stride + off + i] += bias[i], i < n, for each token t (workgroup y) of a pass: the F32
// biases of qwen2's Q, K and V projections.
// Constant 0: workgroup.
layout(local_size_x_id = 0) in;
layout(std430, binding = 0) buffer A { float act[]; };
layout(std430, binding = 1) readonly buffer B { float bias[]; };
layout(push_constant) uniform Params {
  uint n;
  uint off;
  uint stride;
} p;

void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i < p.n) act[gl_WorkGroupID.y * p.stride + p.off + i] += bias[i];
}
