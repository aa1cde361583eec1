#version 450
// Native f16 arithmetic on 16-bit storage (shaderFloat16 + storageBuffer16BitAccess).
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_shader_16bit_storage : require
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(std430, binding = 0) readonly buffer A { float16_t a[]; };
layout(std430, binding = 1) readonly buffer B { float16_t b[]; };
layout(std430, binding = 2) readonly buffer C { float16_t c[]; };
layout(std430, binding = 3) buffer O { float16_t o[]; };
layout(push_constant) uniform Params { uint n; uint op; uint k; uint fault; } p;

void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i >= p.n) return;
  float16_t r;
  if (p.op == 0u) r = a[i];
  else if (p.op == 1u) r = a[i] + b[i];
  else if (p.op == 2u) r = a[i] * b[i];
  else if (p.op == 3u) r = fma(a[i], b[i], c[i]);
  else {
    r = float16_t(0.0);
    for (uint j = 0u; j < p.k; ++j) r += a[i * p.k + j];
  }
  o[i] = r;
}
