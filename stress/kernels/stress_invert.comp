#version 450
// Moving inversions: every word read and written back as its complement, in place.
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(std430, binding = 0) buffer Data { uint data[]; };
layout(push_constant) uniform Params {
  uint offset_lo;
  uint offset_hi;
  uint count;
} p;

void main() {
  uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  for (uint i = gl_GlobalInvocationID.x; i < p.count; i += stride) {
    data[p.offset_lo + i] = ~data[p.offset_lo + i];
  }
}
