// GGUF dequantization through a weight type's block decoder (the generated prelude declares the
// weights w[] at binding 0 and includes core/kernels/types/access.glsl and <type>.glsl):
// invocation g decodes elements [16g, 16g + 16) with decode16 into o16, and the same elements one
// at a time with value_at into o1. See dequant_type.cl.
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(std430, binding = 1) writeonly buffer O16 { float o16[]; };
layout(std430, binding = 2) writeonly buffer O1 { float o1[]; };
layout(push_constant) uniform Params { uint n; uint type_id; uint k; uint fault; } p;

void main() {
#ifdef TYPE_TABLES
  init_type_tables();
#endif
  const uint e = 16u * gl_GlobalInvocationID.x;
  if (e >= p.n) return;
  const mat4 v = decode16((e / BLOCK_ELEMS) * BLOCK_BYTES, (e % BLOCK_ELEMS) / 16u);
  for (uint k = 0u; k < 4u; ++k) {
    for (uint i = 0u; i < 4u; ++i) o16[e + 4u * k + i] = v[k][i];
  }
  if (p.fault == 2u && e == (p.n / 2u) / 16u * 16u) {
    o16[e] = uintBitsToFloat(floatBitsToUint(v[0][0]) ^ 1u);
  }
  for (uint t = 0u; t < 16u; ++t) {
    const uint i = e + t;
    o1[i] = value_at((i / BLOCK_ELEMS) * BLOCK_BYTES, i % BLOCK_ELEMS);
  }
  if (p.fault == 1u && e == 0u) o16[p.n] = 1.0;
}
