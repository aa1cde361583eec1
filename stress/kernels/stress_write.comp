#version 450
// Bandwidth: device-side write of `count` 16-byte vectors.
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(std430, binding = 0) writeonly buffer Dst { uvec4 dst[]; };
layout(push_constant) uniform Params { uint count; } p;

void main() {
  uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  for (uint i = gl_GlobalInvocationID.x; i < p.count; i += stride) dst[i] = uvec4(i ^ 0x5a5a5a5au);
}
