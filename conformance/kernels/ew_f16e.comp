#version 450
// 16-bit storage with f32 arithmetic (the emulated path), two halves per 32-bit word.
// n counts halves; one invocation per word. Reduce: k halves per output, k even.
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(std430, binding = 0) readonly buffer A { uint a[]; };
layout(std430, binding = 1) readonly buffer B { uint b[]; };
layout(std430, binding = 2) readonly buffer C { uint c[]; };
layout(std430, binding = 3) buffer O { uint o[]; };
layout(push_constant) uniform Params { uint n; uint op; uint k; uint fault; } p;

float ld(uint w, uint half_index) { return unpackHalf2x16(w)[half_index]; }

float one(uint i, uint h) {
  uint wa = a[i], wb = b[i], wc = c[i];
  if (p.op == 1u) return ld(wa, h) + ld(wb, h);
  if (p.op == 2u) return ld(wa, h) * ld(wb, h);
  if (p.op == 3u) return fma(ld(wa, h), ld(wb, h), ld(wc, h));
  return ld(wa, h);
}

void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i * 2u >= p.n) return;
  vec2 r;
  if (p.op == 4u) {
    for (uint e = 0u; e < 2u; ++e) {
      float s = 0.0;
      uint base = (i * 2u + e) * p.k;
      for (uint j = 0u; j < p.k; ++j) s += ld(a[(base + j) / 2u], (base + j) % 2u);
      r[e] = s;
    }
  } else {
    r = vec2(one(i, 0u), one(i, 1u));
  }
  o[i] = packHalf2x16(r);
}
