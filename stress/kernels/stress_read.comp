#version 450
// Bandwidth: device-side read of `count` 16-byte vectors; one xor per thread is kept so that the
// reads cannot be optimised away.
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(std430, binding = 0) readonly buffer Src { uvec4 src[]; };
layout(std430, binding = 1) writeonly buffer Out { uint out_words[]; };
// per_invocation 0: grid-stride; otherwise each invocation moves one contiguous run this long.
layout(push_constant) uniform Params { uint count; uint per_invocation; } p;

void main() {
  uint id = gl_GlobalInvocationID.x;
  uint begin = p.per_invocation == 0 ? id : id * p.per_invocation;
  uint end = p.per_invocation == 0 ? p.count : min(begin + p.per_invocation, p.count);
  uint step = p.per_invocation == 0 ? gl_NumWorkGroups.x * gl_WorkGroupSize.x : 1;
  uvec4 acc = uvec4(0u);
  for (uint i = begin; i < end; i += step) acc ^= src[i];
  out_words[id] = acc.x ^ acc.y ^ acc.z ^ acc.w;
}
