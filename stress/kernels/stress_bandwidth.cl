// Bandwidth: device-side copy, read and write of `count` 16-byte vectors. A read keeps one xor per
// work-item so that the reads cannot be optimised away.
typedef struct {
  uint count;           // 16-byte vectors
  uint per_invocation;  // 0: grid-stride; otherwise each work-item moves one contiguous run this long
} BwParams;

// The vectors this work-item moves: [begin, end) every step-th.
inline void vector_range(BwParams p, size_t* begin, size_t* end, size_t* step) {
  const size_t id = get_global_id(0);
  *begin = p.per_invocation == 0 ? id : id * p.per_invocation;
  *end = p.per_invocation == 0 ? p.count : min(*begin + p.per_invocation, (size_t)p.count);
  *step = p.per_invocation == 0 ? get_global_size(0) : 1;
}

__kernel void stress_copy(__global const uint4* src, __global uint4* dst, BwParams p) {
  size_t begin, end, step;
  vector_range(p, &begin, &end, &step);
  for (size_t i = begin; i < end; i += step) dst[i] = src[i];
}

__kernel void stress_read(__global const uint4* src, __global uint* out, BwParams p) {
  size_t begin, end, step;
  vector_range(p, &begin, &end, &step);
  uint4 acc = (uint4)(0);
  for (size_t i = begin; i < end; i += step) acc ^= src[i];
  out[get_global_id(0)] = acc.x ^ acc.y ^ acc.z ^ acc.w;
}

__kernel void stress_write(__global uint4* dst, BwParams p) {
  size_t begin, end, step;
  vector_range(p, &begin, &end, &step);
  for (size_t i = begin; i < end; i += step) dst[i] = (uint4)((uint)i ^ 0x5a5a5a5au);
}
