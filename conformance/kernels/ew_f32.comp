#version 450
// Element-wise f32 cases (see dtype.cl): op 0 copy, 1 add, 2 mul, 3 fma, 4 reduce k per output.
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(std430, binding = 0) readonly buffer A { float a[]; };
layout(std430, binding = 1) readonly buffer B { float b[]; };
layout(std430, binding = 2) readonly buffer C { float c[]; };
layout(std430, binding = 3) buffer O { float o[]; };
layout(push_constant) uniform Params { uint n; uint op; uint k; uint fault; } p;

void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i >= p.n) return;
  float r;
  if (p.op == 0u) r = a[i];
  else if (p.op == 1u) r = a[i] + b[i];
  else if (p.op == 2u) r = a[i] * b[i];
  else if (p.op == 3u) r = fma(a[i], b[i], c[i]);
  else {
    r = 0.0;
    for (uint j = 0u; j < p.k; ++j) r += a[i * p.k + j];
  }
  o[i] = r;
  if (p.fault == 1u && i == 0u) o[p.n] = 1.0;
  if (p.fault == 2u && i == p.n / 2u) o[i] = uintBitsToFloat(floatBitsToUint(r) ^ 1u);
}
