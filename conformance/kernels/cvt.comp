#version 450
// Conversions, two values per invocation (see dtype.cl cvt). Bindings: f32 in, 16-bit in
// (packed pairs), 16-bit out (packed pairs), f32 out.
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(std430, binding = 0) readonly buffer IF { float in_f[]; };
layout(std430, binding = 1) readonly buffer IH { uint in_h[]; };
layout(std430, binding = 2) buffer OH { uint out_h[]; };
layout(std430, binding = 3) buffer OF { float out_f[]; };
layout(push_constant) uniform Params { uint n; uint op; uint k; uint fault; } p;

uint bf16(float v) {
  uint bits = floatBitsToUint(v);
  if ((bits & 0x7fffffffu) > 0x7f800000u) return (bits >> 16) | 0x40u;
  return (bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16;
}

void main() {
  uint w = gl_GlobalInvocationID.x;
  if (w * 2u >= p.n) return;
  uint i0 = 2u * w, i1 = 2u * w + 1u;
  if (p.op == 0u) {
    out_h[w] = packHalf2x16(vec2(in_f[i0], in_f[i1]));
  } else if (p.op == 1u) {
    vec2 v = unpackHalf2x16(in_h[w]);
    out_f[i0] = v.x;
    out_f[i1] = v.y;
  } else if (p.op == 2u) {
    out_h[w] = bf16(in_f[i0]) | (bf16(in_f[i1]) << 16);
  } else {
    out_f[i0] = uintBitsToFloat((in_h[w] & 0xffffu) << 16);
    out_f[i1] = uintBitsToFloat(in_h[w] & 0xffff0000u);
  }
  if (p.fault == 2u && w == p.n / 4u) {
    if (p.op == 0u || p.op == 2u) out_h[w] ^= 1u;
    else out_f[i0] = uintBitsToFloat(floatBitsToUint(out_f[i0]) ^ 1u);
  }
}
