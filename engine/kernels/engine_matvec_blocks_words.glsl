// The block decoders read words from registers here, not from w[]: the matvec stages each block
// it decodes once (one load per word) where a decoder would load a word for every field it reads
// (llvmpipe pays per load; a k-quant block's scales, f16 fields and quants would cost ~9 loads
// per 16 weights). The block is staged from its byte 0, so every index the decoders use is a
// constant.
// One staged block per row an invocation computes; the decoders read row `staged_row`'s.
const uint STAGE_WORDS = 53u;  // q6_K: 210 bytes, staged from byte 0
const uint STAGE_ROWS = 8u;
uint staged[STAGE_ROWS][STAGE_WORDS];
uint staged_row = 0u;
#define WEIGHT_WORD(i) staged[staged_row][i]
// The weights again as 16-byte vectors, for the code-word products (blocks of whole 16-byte
// vectors in rows of them, which the view holds whole): a texel buffer's second view (binding 4:
// backends::KernelSource::texel_vectors; one fetch where four word fetches are four on llvmpipe),
// or the storage buffer read as uvec4.
#define WEIGHT_VECTORS 1
#ifdef WEIGHTS_AS_TEXELS
layout(binding = 4) uniform usamplerBuffer weight_vectors;
uvec4 weight_vector(uint i) { return texelFetch(weight_vectors, int(i)); }
#else
layout(std430, binding = 0) readonly buffer W4 { uvec4 w4[]; };
uvec4 weight_vector(uint i) { return w4[i]; }
#endif
