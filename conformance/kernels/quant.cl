// int8 dot products of four packed values, and GGUF block dequantization (q8_0, q4_0).
typedef struct {
  uint n;
  uint op;
  uint k;
  uint fault;
} QParams;

// op 0: plain (unpacked and multiplied one by one); op 1: the integer dot product extension.
#ifdef HAVE_DOT
#pragma OPENCL EXTENSION cl_khr_integer_dot_product : enable
#endif
__kernel void dot4(__global const uint* a, __global const uint* b, __global const int* acc,
                   __global int* out, QParams p) {
  uint i = get_global_id(0);
  if (i >= p.n) return;
  char4 x = as_char4(a[i]);
  char4 y = as_char4(b[i]);
  int r;
#ifdef HAVE_DOT
  if (p.op == 1) {
    r = dot(x, y);
  } else
#endif
  {
    r = (int)x.s0 * y.s0 + (int)x.s1 * y.s1 + (int)x.s2 * y.s2 + (int)x.s3 * y.s3;
  }
  out[i] = r + acc[i];
}

// q8_0: blocks of 34 bytes (f16 scale, 32 int8); q4_0: 18 bytes (f16 scale, 16 bytes of
// nibbles: low nibbles are elements 0..15, high nibbles 16..31, each minus 8).
// op 0: q8_0, op 1: q4_0. One work-item per output element; n = elements.
__kernel void dequant(__global const uchar* blocks, __global float* out, QParams p) {
  uint i = get_global_id(0);
  if (i >= p.n) return;
  uint blk = i / 32, j = i % 32;
  float r;
  if (p.op == 0) {
    __global const uchar* base = blocks + blk * 34;
    float d = vload_half(0, (__global const half*)base);
    r = d * (float)(char)base[2 + j];
  } else {
    __global const uchar* base = blocks + blk * 18;
    float d = vload_half(0, (__global const half*)base);
    uchar byte = base[2 + (j % 16)];
    int v = j < 16 ? (byte & 15) : (byte >> 4);
    r = d * (float)(v - 8);
  }
  out[i] = r;
}
