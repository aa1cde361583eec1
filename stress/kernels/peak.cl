// Peak arithmetic throughput, in the manner of clpeak: each work-item runs a long unrolled run of
// multiply-adds on vector registers, four independent chains (so that the latency of one is
// hidden behind the others), and writes one value, so that no work can be dropped. Each chain is
// clpeak's pair x = y * x + y, y = x * y + x: every operand is a value the chain computed, so no
// compiler can fold steps together, even where a driver inlines the parameters as constants and
// reassociates (llvmpipe folded a chain of multiply-adds by constants). The positive values run
// to +inf and stay there, which costs nothing extra on CPUs and GPUs (unlike denormals).
typedef struct {
  uint iterations;  // of the unrolled body
  uint seed;
  uint unused0;
  uint unused1;
} PeakParams;

#define EACH4(OP) OP(x0, y0) OP(x1, y1) OP(x2, y2) OP(x3, y3)
#define TIMES4(X) X X X X
#define TIMES16(X) TIMES4(X) TIMES4(X) TIMES4(X) TIMES4(X)

// f32: per iteration 16 x 4 chains x 2 float4 FMAs = 512 FMAs = 1024 FLOP per work-item.
#define FMA_F32(x, y) x = fma(y, x, y); y = fma(x, y, x);
__kernel void peak_f32(__global float* out, PeakParams p) {
  const float s = (float)((uint)get_global_id(0) ^ p.seed) * 1e-9f;
  float4 x0 = (float4)(s, s + 0.1f, s + 0.2f, s + 0.3f), y0 = x0 + 0.5f;
  float4 x1 = x0 + 1.0f, y1 = x0 + 1.5f, x2 = x0 + 2.0f, y2 = x0 + 2.5f;
  float4 x3 = x0 + 3.0f, y3 = x0 + 3.5f;
  for (uint i = 0; i < p.iterations; ++i) {
    TIMES16(EACH4(FMA_F32))
  }
  const float4 sum = (x0 + y0) + (x1 + y1) + (x2 + y2) + (x3 + y3);
  out[get_global_id(0)] = sum.x + sum.y + sum.z + sum.w;
}

// int8 dot products of four packed values with 32-bit integer arithmetic (the form that
// conform.int8.dot4 verifies): each step adds the dot product of an accumulator's own four bytes
// with a fixed char4, so that the steps of one accumulator depend on each other and cannot be
// folded. Per iteration 16 x 8 dot products = 512 multiply-adds = 1024 OP per work-item.
#define EACH8(OP) OP(a0) OP(a1) OP(a2) OP(a3) OP(a4) OP(a5) OP(a6) OP(a7)
#define DOT_I8(a) a += dot4(a, b);
inline int dot4(int packed, char4 b) {
  const char4 x = as_char4(packed);
  return x.s0 * b.s0 + x.s1 * b.s1 + x.s2 * b.s2 + x.s3 * b.s3;
}
__kernel void peak_int8(__global int* out, PeakParams p) {
  const char4 b = as_char4(p.seed | 0x01010101u);
  const int s = (int)((uint)get_global_id(0) * 2654435761u);
  int a0 = s, a1 = s ^ 0x11, a2 = s ^ 0x22, a3 = s ^ 0x33;
  int a4 = s ^ 0x44, a5 = s ^ 0x55, a6 = s ^ 0x66, a7 = s ^ 0x77;
  for (uint i = 0; i < p.iterations; ++i) {
    TIMES16(EACH8(DOT_I8))
  }
  out[get_global_id(0)] = ((a0 ^ a1) ^ (a2 ^ a3)) ^ ((a4 ^ a5) ^ (a6 ^ a7));
}

// The opposite: one scalar chain, each FMA waiting for the one before. Run by one work-item, it
// shows the rate of a device that hides nothing; the peak must be far above it.
// Per iteration 16 x 2 FMAs = 64 FLOP.
__kernel void peak_serial(__global float* out, PeakParams p) {
  float x = (float)((uint)get_global_id(0) ^ p.seed) * 1e-9f, y = x + 0.5f;
  for (uint i = 0; i < p.iterations; ++i) {
    TIMES16(FMA_F32(x, y))
  }
  out[get_global_id(0)] = x + y;
}
