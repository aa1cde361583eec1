#version 450
// out[i] = i * SCALE + OFFSET + p.add + 1000000 * workgroup width: shows that specialization
// constants (ids 0..4) and push constants reach the kernel.
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(constant_id = 3) const int SCALE = 1;
layout(constant_id = 4) const int OFFSET = 0;
layout(std430, binding = 0) writeonly buffer Out { int values[]; };
layout(push_constant) uniform Params {
  int add;
  uint n;
} p;

void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i < p.n) {
    values[i] = int(i) * SCALE + OFFSET + p.add + 1000000 * int(gl_WorkGroupSize.x);
  }
}
