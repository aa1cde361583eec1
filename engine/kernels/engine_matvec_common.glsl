// What both matvec bodies (engine_matvec_body.glsl, engine_matvec_blocks.glsl) declare: their
// specialization constants (0 workgroup; 3 WEIGHT_FORMAT; 4 TILE activation elements per pass;
// 5 ACT_F16; 6 ROWS per invocation; 7 TILE_WORDS shared words for the tile; 8 RED reduction
// scratch; 9 MODE; 10 ACCUMULATE; 11 VECTOR_READS), the activations at binding 1, the push constants, the expert
// addressing, the shared tile and reduction scratch, and the texel activations.
layout(local_size_x_id = 0) in;
layout(constant_id = 3) const uint WEIGHT_FORMAT = 0;
layout(constant_id = 4) const uint TILE = 256;
layout(constant_id = 5) const uint ACT_F16 = 0;
layout(constant_id = 6) const uint ROWS = 1;
layout(constant_id = 7) const uint TILE_WORDS = 256;
layout(constant_id = 8) const uint RED = 64;
layout(constant_id = 9) const uint MODE = 0;
layout(constant_id = 10) const uint ACCUMULATE = 0;
// Which texel reads may take whole 16-byte vectors, set by the host where it knows them safe
// (kernels.h's VectorReads): bit 0, every activation read (its offsets are multiples of 4);
// bit 1, every staged weight block (the weights are whole vectors). A constant, not a test in the
// shader: llvmpipe (Mesa 22.3) runs both sides of a branch, and its texel fetches ignore the
// execution mask, so a fallback costs its fetches even where no invocation takes it (the act
// vectors' word fallback held BM_Matvec q8_0 at 5.7 GB/s against 6.6-7.8 without it).
layout(constant_id = 11) const uint VECTOR_READS = 0;

layout(std430, binding = 1) buffer A { float act[]; };
// With `slots` > 0 the weights are a stack of expert matrices (mul_mat_id), as in engine_matvec.cl.
layout(push_constant) uniform Params {
  uint n_in;
  uint n_out;
  uint x_off;
  uint out_off;
  uint row;
  uint stride;
  uint sel_off;
  uint slots;
  uint x_slot;
  uint out_slot;
} p;

// The expert stack's byte offset and the input and output offsets of this workgroup row.
void expert_addressing(uint rb, out uint w_off, out uint x_off, out uint out_off) {
  w_off = 0;
  x_off = p.x_off;
  out_off = p.out_off;
  if (p.slots == 0) return;
  uint slot = gl_WorkGroupID.y % p.slots;
  uint tok = (gl_WorkGroupID.y / p.slots) * p.stride;
  w_off = uint(act[tok + p.sel_off + slot]) * p.n_out * rb;
  x_off = tok + p.x_off + slot * p.x_slot;
  out_off = tok + p.out_off + slot * p.out_slot;
}

// The activation tile as 16-byte vectors: CPU drivers pay per shared load, not per byte.
shared uvec4 tile[TILE_WORDS / 4];
shared float red[RED];
#include "engine_act_texels.glsl"
