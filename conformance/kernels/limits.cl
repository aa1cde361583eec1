// Local memory and workgroup cases.
typedef struct {
  uint bytes;
  uint seed;
  uint n;
  uint pad;
} LParams;

// Every byte of the local buffer is written by one work-item and read back by another, so a
// buffer the device cannot really hold gives a wrong checksum.
inline void local_body(__local uchar* scratch, uint bytes, __global uint* out, uint seed) {
  uint lid = get_local_id(0), size = get_local_size(0);
  for (uint j = lid; j < bytes; j += size) scratch[j] = (uchar)((j * 2654435761u + seed) >> 24);
  barrier(CLK_LOCAL_MEM_FENCE);
  uint sum = 0;
  for (uint j = (lid + 1) % size; j < bytes; j += size) sum += (uint)scratch[j] * (1u + (j & 7u));
  out[lid] = sum;
}

__kernel void local_arg(__global uint* out, LParams p, __local uchar* scratch) {
  local_body(scratch, p.bytes, out, p.seed);
}

#ifdef LOCAL_BYTES
__kernel void local_static(__global uint* out, LParams p) {
  __local uchar scratch[LOCAL_BYTES];
  local_body(scratch, LOCAL_BYTES, out, p.seed);
}
#endif

#ifdef HAVE_SUBGROUPS
#pragma OPENCL EXTENSION cl_khr_subgroups : enable
#endif
// Without barriers: each work-item writes a value of its ids, and the subgroup size it sees.
__kernel void wg_plain(__global uint* out, __global uint* sub, LParams p) {
  uint i = get_global_id(0);
  if (i >= p.n) return;
  out[i] = i * 2654435761u ^ get_local_id(0);
#ifdef HAVE_SUBGROUPS
  sub[i] = get_sub_group_size();
#else
  sub[i] = 0;
#endif
}

// With a barrier: each work-item reads the value its mirror in the group wrote.
__kernel void wg_barrier(__global uint* out, LParams p, __local uint* tmp) {
  uint lid = get_local_id(0), size = get_local_size(0), i = get_global_id(0);
  tmp[lid] = i * 7u + 1u;
  barrier(CLK_LOCAL_MEM_FENCE);
  out[i] = tmp[size - 1 - lid];
}
