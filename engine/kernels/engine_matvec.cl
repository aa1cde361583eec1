// Matrix-vector product out[r] = W[r] . x for one weight format, and the token-embedding row
// lookup. Defines (build options):
//   WEIGHT_FORMAT  ggml type id of the weights; the type's block decoder comes before this file
//                  (every type is widened to f32: the arithmetic is f32 everywhere)
//   WG_X           workgroup size (a power of two)
//   TILE           activation elements held in local memory per pass (n_in for the whole vector;
//                  a multiple of 32 otherwise)
//   ACT_F16        1: the local activation tile is stored as f16
//   ACCUMULATE     1: out[r] += W[r] . x (a residual add in the same pass); 0: out[r] = W[r] . x
//   ROWS           rows per work-item (a workgroup computes WG_X * ROWS rows and shares each
//                  loaded tile)
// Local memory (the dynamic __local argument): WG_X floats of reduction scratch, the tile (rounded
// up to 16 bytes), then the tile's sums of 16 elements (f32, used by BLOCK_CODE_WORDS types);
// the planner's local_mem_bytes() gives the same number.
// With `slots` > 0 the weights are a stack of expert matrices of n_out rows (mul_mat_id): group
// row y serves token y / slots (its activations at that times `stride`) and its pick y % slots,
// the expert whose id (a float) is at sel_off + slot; the input is at x_off + slot * x_slot and the
// output at out_off + slot * out_slot.
typedef struct {
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
} MatvecParams;

#if ACT_F16
#define TILE_T half
#define TILE_LOAD(t, i) vload_half((i), (t))
#define TILE_LOAD16(t, i) vload_half16(0, (t) + (i))
#define TILE_LOAD8(t, i) vload_half8(0, (t) + (i))
#define TILE_STORE(t, i, v) vstore_half((v), (i), (t))
#else
#define TILE_T float
#define TILE_LOAD(t, i) ((t)[i])
#define TILE_LOAD16(t, i) vload16(0, (t) + (i))
#if WG_X >= 8
// Eight floats at a multiple of 8: the tile starts WG_X floats into local memory, so they are
// 32-byte aligned and read as one vector (as vload8, PoCL recomputed each address in two scalar
// instructions: a quarter of q4_K's loop).
#define TILE_LOAD8(t, i) (*(const __local float8*)((t) + (i)))
#else
#define TILE_LOAD8(t, i) vload8(0, (t) + (i))
#endif
#define TILE_STORE(t, i, v) ((t)[i] = (v))
#endif
// Eight of the tile's sums at a multiple of 8: they start 16-byte aligned (after WG_X floats and
// the tile rounded up to 16 bytes), so two aligned float4 reads.
#if WG_X >= 4
#define SUMS8(s, i) \
  ((float8)(*(const __local float4*)((s) + (i)), *(const __local float4*)((s) + (i) + 4)))
#else
#define SUMS8(s, i) vload8(0, (s) + (i))
#endif

// The weight type's block decoder (core/kernels/types/<type>.cl, placed before this file) defines
// BLOCK_ELEMS, BLOCK_BYTES, decode16(block, c) and value_at(block, j).
#define ROW_BYTES(n) ((n) / BLOCK_ELEMS * BLOCK_BYTES)
#define CHUNKS_PER_BLOCK (BLOCK_ELEMS < 16 ? 1 : BLOCK_ELEMS / 16)

// A type whose block starts with its f16 scale (BLOCK_F16_SCALE: q8_0, q4_0) has the scaled
// codes row_dot factors; mxfp4's decoder defines its own.
#ifdef BLOCK_F16_SCALE
#define BLOCK_SCALED_CODES 1
GAUNTLET_INLINE float block_scale(const __global uchar* blk) { return load_f16(blk); }
GAUNTLET_INLINE float8 block_scales8(const __global uchar* blk) {
  return f16_to_f32x8((uint8)(load_u16(blk), load_u16(blk + BLOCK_BYTES),
                              load_u16(blk + 2 * BLOCK_BYTES), load_u16(blk + 3 * BLOCK_BYTES),
                              load_u16(blk + 4 * BLOCK_BYTES), load_u16(blk + 5 * BLOCK_BYTES),
                              load_u16(blk + 6 * BLOCK_BYTES), load_u16(blk + 7 * BLOCK_BYTES)));
}
#endif

// Where activation i of a tile is kept. A type of code words (BLOCK_CODE_WORDS) keeps each 32 in
// the order its words give them: byte k of word j holds element 4j + k, so element i goes to
// 8 * (i % 4) + (i % 32) / 4 and byte k of eight words meets eight consecutive activations. The
// tile holds whole blocks there (the host checks a chunk's size).
GAUNTLET_INLINE uint tile_slot(uint i) {
#ifdef BLOCK_CODE_WORDS
  return (i & ~31u) | ((i & 3u) << 3) | ((i >> 2) & 7u);
#else
  return i;
#endif
}

#ifdef BLOCK_CODE_WORDS
#if ACT_F16
// The codes of byte k (0..3) of eight words as floats: a shift and a mask on the words themselves,
// no byte shuffles (on PoCL, widening the bytes of each 16 codes took more of the vector pipes
// than the products did).
#define CODES8(w, k) convert_float8(as_int8(((w) >> (8u * (k))) & CODE_MASK))
#define TILE_SCALE(i) 1.0f
#else
// An f32 tile keeps activation 4j + k times 2^-8k, so byte k's codes are taken in place, q * 2^8k
// (below 2^31, and exact as a float), with a mask alone: the products are the same. An activation
// under 2^-102 in magnitude would lose bits as a subnormal, far below any product that counts.
#define CODES8(w, k) convert_float8(as_int8((w) & (CODE_MASK << (8u * (k)))))
#define TILE_SCALE(i) as_float((127u - 8u * ((i) & 3u)) << 23)
#endif
// sum(q * a) per word lane over a group of 32 whose codes are in the words w, the tile in
// code-word order from element t.
GAUNTLET_INLINE float8 group_dot(uint8 w, const __local TILE_T* tile, uint t) {
  return CODES8(w, 0) * TILE_LOAD8(tile, t) + CODES8(w, 1) * TILE_LOAD8(tile, t + 8) +
         CODES8(w, 2) * TILE_LOAD8(tile, t + 16) + CODES8(w, 3) * TILE_LOAD8(tile, t + 24);
}
#else
#define TILE_SCALE(i) 1.0f
#endif

// The dot product of one row's elements [base, base + len) with the tile, as 16 lanes. One
// work-item walks its row from start to end: CPU drivers read it as one sequential stream.
GAUNTLET_INLINE float16 row_dot(const __global uchar* row, uint base, uint len,
                               const __local TILE_T* tile, const __local float* sums) {
  float16 acc = (float16)(0.0f);
#if BLOCK_ELEMS == 1
  // Float types: 16 elements at a time, then the tail one by one.
  uint i = 0;
  for (; i + 16 <= len; i += 16) {
    acc += decode16(row + (base + i) * BLOCK_BYTES, 0) * TILE_LOAD16(tile, i);
  }
  for (; i < len; ++i) acc.s0 += value_at(row + (base + i) * BLOCK_BYTES, 0) * TILE_LOAD(tile, i);
#else
  const __global uchar* blk = row + (base / BLOCK_ELEMS) * BLOCK_BYTES;
  uint b = 0;
#ifdef BLOCK_SCALED_CODES
  // Blocks of 32 whose values are codes16 times one scale per block (q8_0, q4_0, mxfp4): eight
  // blocks a step, their scales widened as one vector and each applied once to its block's sum.
  // On PoCL the scalar widening per block was half of a q8_0 block's instructions.
#define GAUNTLET_BLOCK_SUM(k)                                             \
  (codes16(blk + (k) * BLOCK_BYTES, 0) * TILE_LOAD16(tile, b + 32 * (k)) + \
   codes16(blk + (k) * BLOCK_BYTES, 1) * TILE_LOAD16(tile, b + 32 * (k) + 16))
  for (; b + 8 * BLOCK_ELEMS <= len; b += 8 * BLOCK_ELEMS, blk += 8 * BLOCK_BYTES) {
    const float8 d = block_scales8(blk);
    acc += d.s0 * GAUNTLET_BLOCK_SUM(0) + d.s1 * GAUNTLET_BLOCK_SUM(1);
    acc += d.s2 * GAUNTLET_BLOCK_SUM(2) + d.s3 * GAUNTLET_BLOCK_SUM(3);
    acc += d.s4 * GAUNTLET_BLOCK_SUM(4) + d.s5 * GAUNTLET_BLOCK_SUM(5);
    acc += d.s6 * GAUNTLET_BLOCK_SUM(6) + d.s7 * GAUNTLET_BLOCK_SUM(7);
  }
  for (; b < len; b += BLOCK_ELEMS, blk += BLOCK_BYTES) acc += block_scale(blk) * GAUNTLET_BLOCK_SUM(0);
#undef GAUNTLET_BLOCK_SUM
#endif
#ifdef BLOCK_CODE_WORDS
  // Groups of 32 whose values are step * q less an offset per 16 (q4_K, q5_K, q6_K), in the
  // tile's code-word order: each group's code products are scaled once per lane, and the offsets
  // meet the tile's sums of 16 (which the workgroup adds once for all its rows) once per block.
  float8 offsets = (float8)(0.0f);
  for (; b < len; b += BLOCK_ELEMS, blk += BLOCK_BYTES) {
    const float16 steps = block_steps(blk);
#pragma unroll
    for (uint g = 0; g < 8; g += 2) {
      const uint t = b + 32 * g;
      acc.lo += group_steps(steps, g) * group_dot(group_words(blk, g), tile, t);
      acc.hi += group_steps(steps, g + 1) * group_dot(group_words(blk, g + 1), tile, t + 32);
    }
    offsets += block_offsets(steps, SUMS8(sums, b / 16), SUMS8(sums, b / 16 + 8));
  }
  acc.lo -= offsets;
#else
  for (; b < len; b += BLOCK_ELEMS, blk += BLOCK_BYTES) {
    // Unrolled, each chunk index is a constant: a k-quant sub-block's scale and shifts fold.
#pragma unroll
    for (uint c = 0; c < CHUNKS_PER_BLOCK; ++c) {
      acc += decode16(blk, c) * TILE_LOAD16(tile, b + 16 * c);
    }
  }
#endif
#endif
  return acc;
}

GAUNTLET_INLINE float sum16(float16 v) {
  const float8 a = v.lo + v.hi;
  const float4 b = a.lo + a.hi;
  const float2 c = b.lo + b.hi;
  return c.x + c.y;
}

// Each work-item owns ROWS consecutive rows (clamped to the last row, so every work-item runs the
// same loop); the workgroup loads each activation tile once and shares it.
__kernel void matvec(__global const uchar* w, __global float* act, MatvecParams p,
                     __local float* lmem) {
  __local float* red = lmem;
  __local TILE_T* tile = (__local TILE_T*)(lmem + WG_X);
  // After the tile (rounded to 16 bytes): its sums of 16 (BLOCK_CODE_WORDS), per 256 elements the
  // first 16 of each 32, then the last 16.
  __local float* sums =
      (__local float*)(tile + (ACT_F16 ? (TILE + 7) / 8 * 8 : (TILE + 3) / 4 * 4));
  const uint lid = get_local_id(0);
  const uint row0 = (uint)get_global_id(0) * ROWS;
  const ulong row_bytes = ROW_BYTES(p.n_in);
  uint x_off = p.x_off, out_off = p.out_off;
  if (p.slots != 0) {
    const uint slot = get_group_id(1) % p.slots;
    __global float* tok = act + (get_group_id(1) / p.slots) * p.stride;
    w += (ulong)tok[p.sel_off + slot] * p.n_out * row_bytes;
    act = tok;
    x_off += slot * p.x_slot;
    out_off += slot * p.out_slot;
  }
  float16 acc[ROWS];
  for (uint r = 0; r < ROWS; ++r) acc[r] = (float16)(0.0f);

  for (uint base = 0; base < p.n_in; base += TILE) {
    const uint len = min((uint)TILE, p.n_in - base);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint i = lid; i < len; i += WG_X) {
      TILE_STORE(tile, tile_slot(i), act[x_off + base + i] * TILE_SCALE(i));
    }
    barrier(CLK_LOCAL_MEM_FENCE);
#ifdef BLOCK_CODE_WORDS
    for (uint g = lid; g < len / 32; g += WG_X) {
      // Each byte position's activations back to their own scale (TILE_SCALE(k) is 2^-8k or 1).
      const uint t = 32 * g;
      const float8 a = (TILE_LOAD8(tile, t) + TILE_LOAD8(tile, t + 8) / TILE_SCALE(1u)) +
                       (TILE_LOAD8(tile, t + 16) / TILE_SCALE(2u) +
                        TILE_LOAD8(tile, t + 24) / TILE_SCALE(3u));
      sums[g / 8 * 16 + g % 8] = (a.s0 + a.s1) + (a.s2 + a.s3);
      sums[g / 8 * 16 + 8 + g % 8] = (a.s4 + a.s5) + (a.s6 + a.s7);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
#endif
    for (uint r = 0; r < ROWS; ++r) {
      const uint row = min(row0 + r, p.n_out - 1);
      acc[r] += row_dot(w + row * row_bytes, base, len, tile, sums);
    }
  }
  // The reduction scratch stages this work-item's results (it is part of the variant's local
  // memory, which the planner counts).
  for (uint r = 0; r < ROWS; ++r) {
    red[lid] = sum16(acc[r]);
#if ACCUMULATE
    if (row0 + r < p.n_out) act[out_off + row0 + r] += red[lid];
#else
    if (row0 + r < p.n_out) act[out_off + row0 + r] = red[lid];
#endif
  }
}

// act[out_off + i] = W[row][i]: the token embedding, dequantized.
__kernel void embed(__global const uchar* w, __global float* act, MatvecParams p) {
  const uint i = get_global_id(0);
  if (i >= p.n_in) return;
  const __global uchar* row = w + (ulong)p.row * ROW_BYTES(p.n_in);
  act[p.out_off + i] = value_at(row + (i / BLOCK_ELEMS) * BLOCK_BYTES, i % BLOCK_ELEMS);
}
