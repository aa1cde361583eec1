#version 450
// Workgroup with a barrier: each invocation reads what its mirror wrote (shared array sized by
// specialization constant 3 = the workgroup size).
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(constant_id = 3) const uint TMP = 1;
layout(std430, binding = 0) buffer O { uint o[]; };
layout(push_constant) uniform Params { uint bytes; uint seed; uint n; uint pad; } p;
shared uint tmp[TMP];

void main() {
  uint lid = gl_LocalInvocationID.x, size = gl_WorkGroupSize.x, i = gl_GlobalInvocationID.x;
  tmp[lid] = i * 7u + 1u;
  barrier();
  o[i] = tmp[size - 1u - lid];
}
