#version 450
// Workgroup without barriers, and the subgroup size each invocation sees.
#extension GL_KHR_shader_subgroup_basic : require
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(std430, binding = 0) buffer O { uint o[]; };
layout(std430, binding = 1) buffer S { uint s[]; };
layout(push_constant) uniform Params { uint bytes; uint seed; uint n; uint pad; } p;

void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i >= p.n) return;
  o[i] = (i * 2654435761u) ^ gl_LocalInvocationID.x;
  s[i] = gl_SubgroupSize;
}
