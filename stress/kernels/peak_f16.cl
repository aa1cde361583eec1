// Peak f16 throughput (cl_khr_fp16), as peak_f32 in peak.cl: per iteration 16 x 4 chains x 2 half4
// FMAs = 512 FMAs = 1024 FLOP per work-item. Only built where conformance verified f16 arithmetic.
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
typedef struct {
  uint iterations;
  uint seed;
  uint unused0;
  uint unused1;
} PeakParams;

#define EACH4(OP) OP(x0, y0) OP(x1, y1) OP(x2, y2) OP(x3, y3)
#define TIMES4(X) X X X X
#define TIMES16(X) TIMES4(X) TIMES4(X) TIMES4(X) TIMES4(X)
#define FMA_F16(x, y) x = fma(y, x, y); y = fma(x, y, x);

__kernel void peak_f16(__global float* out, PeakParams p) {
  const half s = (half)((float)(((uint)get_global_id(0) ^ p.seed) & 255u) * (1.0f / 256.0f));
  half4 x0 = (half4)(s), y0 = x0 + (half)0.5f, x1 = x0 + (half)1, y1 = x0 + (half)1.5f;
  half4 x2 = x0 + (half)2, y2 = x0 + (half)2.5f, x3 = x0 + (half)3, y3 = x0 + (half)3.5f;
  for (uint i = 0; i < p.iterations; ++i) {
    TIMES16(EACH4(FMA_F16))
  }
  const half4 sum = (x0 + y0) + (x1 + y1) + (x2 + y2) + (x3 + y3);
  out[get_global_id(0)] = (float)sum.x + (float)sum.y + (float)sum.z + (float)sum.w;
}
