// out = x / sqrt(mean(x^2) + eps) * weight; WG_X floats of local scratch. Workgroup (r, t)
// normalizes row r of token t (elements t * stride + in_off + r * n ..): one row for a layer's
// norm, one per head for qwen3's Q/K norm, all with the same weight unless weight_stride gives
// each row its own (Mamba2's grouped norm: row r's at r * weight_stride).
typedef struct {
  uint n;
  uint in_off;
  uint out_off;
  float eps;
  uint stride;  // floats between two tokens' activations
  uint weight_stride;
} RmsnormParams;

__kernel void rmsnorm(__global float* act, __global const float* weight, RmsnormParams p,
                      __local float* red) {
  const uint lid = get_local_id(0);
  const uint tok = get_group_id(1) * p.stride;
  const uint in_off = tok + p.in_off + get_group_id(0) * p.n;
  const uint out_off = tok + p.out_off + get_group_id(0) * p.n;
  float sum = 0.0f;
  for (uint i = lid; i < p.n; i += WG_X) {
    const float v = act[in_off + i];
    sum += v * v;
  }
  red[lid] = sum;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint s = WG_X / 2; s > 0; s >>= 1) {
    if (lid < s) red[lid] += red[lid + s];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  const float scale = rsqrt(red[0] / (float)p.n + p.eps);
  __global const float* w = weight + get_group_id(0) * p.weight_stride;
  for (uint i = lid; i < p.n; i += WG_X) act[out_off + i] = act[in_off + i] * scale * w[i];
}
