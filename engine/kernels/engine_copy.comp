#version 450
// dst = src, 16 bytes per invocation: the copy bandwidth the decode's bandwidth is compared with.
layout(local_size_x_id = 0) in;
layout(std430, binding = 0) readonly buffer S { uvec4 src[]; };
layout(std430, binding = 1) writeonly buffer D { uvec4 dst[]; };
layout(push_constant) uniform Params {
  uint n;
} p;

void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i < p.n) dst[i] = src[i];
}
