// y[i] = a * x[i] + y[i]: the smallest kernel that proves a backend's whole path.
typedef struct {
  float a;
  uint n;
} SaxpyParams;

__kernel void saxpy(__global const float* x, __global float* y, SaxpyParams p) {
  uint i = get_global_id(0);
  if (i < p.n) y[i] = p.a * x[i] + y[i];
}
