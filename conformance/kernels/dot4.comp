#version 450
// int8 dot product of four packed values, unpacked one by one (see quant.cl).
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(std430, binding = 0) readonly buffer A { uint a[]; };
layout(std430, binding = 1) readonly buffer B { uint b[]; };
layout(std430, binding = 2) readonly buffer C { int acc[]; };
layout(std430, binding = 3) buffer O { int o[]; };
layout(push_constant) uniform Params { uint n; uint op; uint k; uint fault; } p;

void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i >= p.n) return;
  int r = acc[i];
  for (int e = 0; e < 4; ++e) {
    r += bitfieldExtract(int(a[i]), 8 * e, 8) * bitfieldExtract(int(b[i]), 8 * e, 8);
  }
  o[i] = r;
}
