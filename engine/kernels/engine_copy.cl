// dst = src, 16 bytes per work-item: the copy bandwidth the decode's bandwidth is compared with.
typedef struct {
  uint n;  // uint4 elements
} CopyParams;

__kernel void copy(__global const uint4* src, __global uint4* dst, CopyParams p) {
  const uint i = get_global_id(0);
  if (i < p.n) dst[i] = src[i];
}
