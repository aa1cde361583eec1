#version 450
// Shared memory sized by specialization constant 3 (in 32-bit words); see limits.cl.
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(constant_id = 3) const uint SHARED_WORDS = 1;
layout(std430, binding = 0) buffer O { uint o[]; };
layout(push_constant) uniform Params { uint bytes; uint seed; uint n; uint pad; } p;
shared uint scratch[SHARED_WORDS];

void main() {
  uint lid = gl_LocalInvocationID.x, size = gl_WorkGroupSize.x;
  for (uint j = lid; j < SHARED_WORDS; j += size) scratch[j] = (j * 2654435761u + p.seed) >> 8;
  barrier();
  uint sum = 0u;
  for (uint j = (lid + 1u) % size; j < SHARED_WORDS; j += size) sum += (scratch[j] & 0xffu) * (1u + (j & 7u)) + (scratch[j] >> 20);
  o[lid] = sum;
}
