// int8 dot products of four packed values. (GGUF dequantization: dequant_type.cl, over the
// weight types' decoders in core/kernels/types/.)
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
