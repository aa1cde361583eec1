// Bandwidth: device-side write of `count` 16-byte vectors.
typedef struct {
  uint count;           // 16-byte vectors
  uint per_invocation;  // 0: grid-stride; otherwise each work-item moves one contiguous run this long
} BwParams;

__kernel void stress_write(__global uint4* dst, BwParams p) {
  const size_t id = get_global_id(0);
  const size_t begin = p.per_invocation == 0 ? id : id * p.per_invocation;
  const size_t end = p.per_invocation == 0 ? p.count : min(begin + p.per_invocation, (size_t)p.count);
  const size_t step = p.per_invocation == 0 ? get_global_size(0) : 1;
  for (size_t i = begin; i < end; i += step) dst[i] = (uint4)((uint)i ^ 0x5a5a5a5au);
}
