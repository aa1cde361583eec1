// Bandwidth: device-side read of `count` 16-byte vectors; one xor per thread is kept so that the
// reads cannot be optimised away.
typedef struct {
  uint count;           // 16-byte vectors
  uint per_invocation;  // 0: grid-stride; otherwise each work-item moves one contiguous run this long
} BwParams;

__kernel void stress_read(__global const uint4* src, __global uint* out, BwParams p) {
  const size_t id = get_global_id(0);
  const size_t begin = p.per_invocation == 0 ? id : id * p.per_invocation;
  const size_t end = p.per_invocation == 0 ? p.count : min(begin + p.per_invocation, (size_t)p.count);
  const size_t step = p.per_invocation == 0 ? get_global_size(0) : 1;
  uint4 acc = (uint4)(0);
  for (size_t i = begin; i < end; i += step) acc ^= src[i];
  out[id] = acc.x ^ acc.y ^ acc.z ^ acc.w;
}
