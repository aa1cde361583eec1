#version 450
// int8 values packed four per 32-bit word, wrapping arithmetic. n counts values.
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(std430, binding = 0) readonly buffer A { uint a[]; };
layout(std430, binding = 1) readonly buffer B { uint b[]; };
layout(std430, binding = 2) readonly buffer C { uint c[]; };
layout(std430, binding = 3) buffer O { uint o[]; };
layout(push_constant) uniform Params { uint n; uint op; uint k; uint fault; } p;

int ld(uint w, uint e) { return bitfieldExtract(int(w), int(8u * e), 8); }

void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i * 4u >= p.n) return;
  uint wa = a[i], wb = b[i], wc = c[i];
  uint result = 0u;
  for (uint e = 0u; e < 4u; ++e) {
    int r;
    if (p.op == 1u) r = ld(wa, e) + ld(wb, e);
    else if (p.op == 2u) r = ld(wa, e) * ld(wb, e);
    else if (p.op == 3u) r = ld(wa, e) * ld(wb, e) + ld(wc, e);
    else r = ld(wa, e);
    result |= (uint(r) & 0xffu) << (8u * e);
  }
  o[i] = result;
}
