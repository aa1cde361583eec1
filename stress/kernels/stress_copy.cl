// Bandwidth: device-side copy of `count` 32-bit words.
typedef struct {
  uint count;
} BwParams;

__kernel void stress_copy(__global const uint* src, __global uint* dst, BwParams p) {
  size_t stride = get_global_size(0);
  for (size_t i = get_global_id(0); i < p.count; i += stride) dst[i] = src[i];
}
