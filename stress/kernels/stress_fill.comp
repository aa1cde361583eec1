#version 450
// Writes a memtest-style pattern, a function of each 32-bit word's index in the buffer, so that
// the host can recompute what every word must hold. Grid-stride: any count in one short dispatch.
// Storage buffers are at most maxStorageBufferRange (< 4 GiB), so word indices fit in 32 bits.
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(std430, binding = 0) buffer Data { uint data[]; };
layout(push_constant) uniform Params {
  uint mode;  // 0 walking ones, 1 walking zeros, 2 own address, 3 seeded random
  uint seed;
  uint offset_lo;
  uint offset_hi;
  uint count;
  uint mask;
} p;

uint mix32(uint x) {
  x ^= x >> 16;
  x *= 0x7feb352du;
  x ^= x >> 15;
  x *= 0x846ca68bu;
  x ^= x >> 16;
  return x;
}

uint pattern_word(uint index) {
  if (p.mode == 0u) return 1u << (index & 31u);
  if (p.mode == 1u) return ~(1u << (index & 31u));
  if (p.mode == 2u) return index << 2;
  return mix32(index ^ mix32(p.seed ^ p.offset_hi));
}

void main() {
  uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  for (uint i = gl_GlobalInvocationID.x; i < p.count; i += stride) {
    uint index = p.offset_lo + i;
    data[index] = pattern_word(index) ^ p.mask;
  }
}
