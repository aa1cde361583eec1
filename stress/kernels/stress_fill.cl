// Writes a memtest-style pattern, a function of each 32-bit word's index in the buffer, so that
// the host can recompute what every word must hold. Grid-stride: any count in one short dispatch.
typedef struct {
  uint mode;  // 0 walking ones, 1 walking zeros, 2 own address, 3 seeded random
  uint seed;
  uint offset_lo;  // index of this dispatch's first word in the buffer
  uint offset_hi;
  uint count;
  uint mask;  // xor'ed into every word (the complement pass of moving inversions)
} FillParams;

uint mix32(uint x) {
  x ^= x >> 16;
  x *= 0x7feb352du;
  x ^= x >> 15;
  x *= 0x846ca68bu;
  x ^= x >> 16;
  return x;
}

uint pattern_word(uint mode, uint seed, ulong index) {
  uint lo = (uint)index;
  uint hi = (uint)(index >> 32);
  if (mode == 0u) return 1u << (lo & 31u);
  if (mode == 1u) return ~(1u << (lo & 31u));
  if (mode == 2u) return (uint)(index << 2);
  return mix32(lo ^ mix32(seed ^ hi));
}

__kernel void stress_fill(__global uint* data, FillParams p) {
  ulong offset = (ulong)p.offset_lo | ((ulong)p.offset_hi << 32);
  size_t stride = get_global_size(0);
  for (size_t i = get_global_id(0); i < p.count; i += stride) {
    ulong index = offset + i;
    data[index] = pattern_word(p.mode, p.seed, index) ^ p.mask;
  }
}
