#version 450
// Bandwidth: device-side write of `count` 16-byte vectors.
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(std430, binding = 0) writeonly buffer Dst { uvec4 dst[]; };
// per_invocation 0: grid-stride; otherwise each invocation moves one contiguous run this long.
layout(push_constant) uniform Params { uint count; uint per_invocation; } p;

void main() {
  uint id = gl_GlobalInvocationID.x;
  uint begin = p.per_invocation == 0 ? id : id * p.per_invocation;
  uint end = p.per_invocation == 0 ? p.count : min(begin + p.per_invocation, p.count);
  uint step = p.per_invocation == 0 ? gl_NumWorkGroups.x * gl_WorkGroupSize.x : 1;
  for (uint i = begin; i < end; i += step) dst[i] = uvec4(i ^ 0x5a5a5a5au);
}
