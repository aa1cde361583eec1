// Element-wise dtype cases: one kernel per storage type, the operation chosen at run time so that
// one program covers every op. op: 0 copy, 1 add, 2 mul, 3 fma, 4 reduce k values per output.
// fault (test-only): 1 writes one element past the end, 2 flips the low bit of element n/2.
typedef struct {
  uint n;
  uint op;
  uint k;
  uint fault;
} EwParams;

#define EW_BODY(T, LOAD, STORE, FMA, ACC_T)                          \
  uint i = get_global_id(0);                                         \
  if (i >= p.n) return;                                              \
  ACC_T r;                                                           \
  if (p.op == 0) r = LOAD(a, i);                                     \
  else if (p.op == 1) r = LOAD(a, i) + LOAD(b, i);                   \
  else if (p.op == 2) r = LOAD(a, i) * LOAD(b, i);                   \
  else if (p.op == 3) r = FMA(LOAD(a, i), LOAD(b, i), LOAD(c, i));   \
  else {                                                             \
    r = 0;                                                           \
    for (uint j = 0; j < p.k; ++j) r += LOAD(a, i * p.k + j);        \
  }                                                                  \
  STORE(out, i, r);

#define PLAIN_LOAD(buf, i) buf[i]
#define PLAIN_STORE(buf, i, v) buf[i] = v
#define INT_FMA(x, y, z) ((x) * (y) + (z))

__kernel void ew_f32(__global const float* a, __global const float* b, __global const float* c,
                     __global float* out, EwParams p) {
  EW_BODY(float, PLAIN_LOAD, PLAIN_STORE, fma, float)
  if (p.fault == 1 && i == 0) out[p.n] = 1.0f;
  if (p.fault == 2 && i == p.n / 2) out[i] = as_float(as_uint(r) ^ 1u);
}

__kernel void ew_i8(__global const char* a, __global const char* b, __global const char* c,
                    __global char* out, EwParams p) {
  EW_BODY(char, PLAIN_LOAD, PLAIN_STORE, INT_FMA, char)
}

// 16-bit storage with f32 arithmetic: the emulated path an engine uses without native half.
#define HALF_LOAD(buf, i) vload_half(i, buf)
#define HALF_STORE(buf, i, v) vstore_half_rte(v, i, buf)
__kernel void ew_f16e(__global const half* a, __global const half* b, __global const half* c,
                      __global half* out, EwParams p) {
  EW_BODY(float, HALF_LOAD, HALF_STORE, fma, float)
}

// bfloat16 storage as ushort, arithmetic in f32, rounding to nearest even in integer code.
inline float bf16_load(__global const ushort* buf, uint i) { return as_float((uint)buf[i] << 16); }
inline ushort bf16_round(float v) {
  uint bits = as_uint(v);
  if ((bits & 0x7fffffffu) > 0x7f800000u) return (ushort)((bits >> 16) | 0x40u);
  return (ushort)((bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16);
}
#define BF16_STORE(buf, i, v) buf[i] = bf16_round(v)
__kernel void ew_bf16e(__global const ushort* a, __global const ushort* b,
                       __global const ushort* c, __global ushort* out, EwParams p) {
  EW_BODY(float, bf16_load, BF16_STORE, fma, float)
}

#ifdef HAVE_FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
__kernel void ew_f64(__global const double* a, __global const double* b, __global const double* c,
                     __global double* out, EwParams p) {
  EW_BODY(double, PLAIN_LOAD, PLAIN_STORE, fma, double)
}
#endif

#ifdef HAVE_FP16
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
__kernel void ew_f16n(__global const half* a, __global const half* b, __global const half* c,
                      __global half* out, EwParams p) {
  EW_BODY(half, PLAIN_LOAD, PLAIN_STORE, fma, half)
}
#endif

// Conversions. op: 0 f32 -> f16 (round to nearest even), 1 f16 -> f32, 2 f32 -> bf16, 3 bf16 -> f32.
__kernel void cvt(__global const float* in_f, __global const ushort* in_h, __global ushort* out_h,
                  __global float* out_f, EwParams p) {
  uint i = get_global_id(0);
  if (i >= p.n) return;
  if (p.op == 0) vstore_half_rte(in_f[i], i, (__global half*)out_h);
  else if (p.op == 1) out_f[i] = vload_half(i, (__global const half*)in_h);
  else if (p.op == 2) out_h[i] = bf16_round(in_f[i]);
  else out_f[i] = as_float((uint)in_h[i] << 16);
  if (p.fault == 2 && i == p.n / 2) {
    if (p.op == 0 || p.op == 2) out_h[i] ^= (ushort)1;
    else out_f[i] = as_float(as_uint(out_f[i]) ^ 1u);
  }
}
