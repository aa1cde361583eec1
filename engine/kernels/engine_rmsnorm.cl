// out = x / sqrt(mean(x^2) + eps) * weight, one workgroup; WG_X floats of local scratch.
typedef struct {
  uint n;
  uint in_off;
  uint out_off;
  float eps;
} RmsnormParams;

__kernel void rmsnorm(__global float* act, __global const float* weight, RmsnormParams p,
                      __local float* red) {
  const uint lid = get_local_id(0);
  float sum = 0.0f;
  for (uint i = lid; i < p.n; i += WG_X) {
    const float v = act[p.in_off + i];
    sum += v * v;
  }
  red[lid] = sum;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint s = WG_X / 2; s > 0; s >>= 1) {
    if (lid < s) red[lid] += red[lid + s];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  const float scale = rsqrt(red[0] / (float)p.n + p.eps);
  for (uint i = lid; i < p.n; i += WG_X) act[p.out_off + i] = act[p.in_off + i] * scale * weight[i];
}
