// The matvec's f32 activations read as texels, straight from the buffer (binding 3, the second
// texel view: backends::KernelSource::texel_views), not through the shared tile, which llvmpipe
// loads lane by lane although every lane reads the same address; f16 activations keep the tile,
// where they are rounded. The includer declares ACT_F16 and VECTOR_READS first.
#ifdef WEIGHTS_AS_TEXELS
layout(binding = 3) uniform usamplerBuffer act_texels;
const bool TILE_AS_TEXELS = ACT_F16 == 0;
uint act_texel(uint i) { return texelFetch(act_texels, int(i)).x; }
// The activations again as 16-byte vectors (binding 5: backends::KernelSource::texel_vectors).
layout(binding = 5) uniform usamplerBuffer act_vectors;
#else
const bool TILE_AS_TEXELS = false;
uint act_texel(uint i) { return 0u; }
#endif
uint tile_origin = 0u;  // the tile's first element in act[]
uvec4 act_texels4(uint i) {
#ifdef WEIGHTS_AS_TEXELS
  // One fetch where every read is a whole vector of the view (VECTOR_READS bit 0).
  if ((VECTOR_READS & 1u) != 0u) return texelFetch(act_vectors, int(i >> 2));
#endif
  return uvec4(act_texel(i), act_texel(i + 1u), act_texel(i + 2u), act_texel(i + 3u));
}
