// Moving inversions: every word read and written back as its complement, in place.
typedef struct {
  uint offset_lo;
  uint offset_hi;
  uint count;
} InvertParams;

__kernel void stress_invert(__global uint* data, InvertParams p) {
  ulong offset = (ulong)p.offset_lo | ((ulong)p.offset_hi << 32);
  size_t stride = get_global_size(0);
  for (size_t i = get_global_id(0); i < p.count; i += stride) data[offset + i] = ~data[offset + i];
}
