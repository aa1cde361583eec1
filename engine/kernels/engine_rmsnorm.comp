#version 450
// out = x / sqrt(mean(x^2) + eps) * weight. Workgroup (r, t) normalizes row r of token t
// (elements t * stride + in_off + r * n ..): one row for a layer's norm, one per head for qwen3's
// Q/K norm, all with the same weight unless weight_stride gives each row its own (Mamba2's
// grouped norm). Constants: 0 workgroup, 3 RED (= workgroup).
layout(local_size_x_id = 0) in;
layout(constant_id = 3) const uint RED = 64;
layout(std430, binding = 0) buffer A { float act[]; };
layout(std430, binding = 1) readonly buffer Wt { float weight[]; };
layout(push_constant) uniform Params {
  uint n;
  uint in_off;
  uint out_off;
  float eps;
  uint stride;
  uint weight_stride;
} p;
shared float red[RED];

void main() {
  uint lid = gl_LocalInvocationID.x;
  uint tok = gl_WorkGroupID.y * p.stride;
  uint in_off = tok + p.in_off + gl_WorkGroupID.x * p.n;
  uint out_off = tok + p.out_off + gl_WorkGroupID.x * p.n;
  float sum = 0.0;
  for (uint i = lid; i < p.n; i += gl_WorkGroupSize.x) {
    float v = act[in_off + i];
    sum += v * v;
  }
  red[lid] = sum;
  barrier();
  for (uint s = gl_WorkGroupSize.x / 2; s > 0; s >>= 1) {
    if (lid < s) red[lid] += red[lid + s];
    barrier();
  }
  float scale = inversesqrt(red[0] / float(p.n) + p.eps);
  for (uint i = lid; i < p.n; i += gl_WorkGroupSize.x) {
    act[out_off + i] = act[in_off + i] * scale * weight[gl_WorkGroupID.x * p.weight_stride + i];
  }
}
