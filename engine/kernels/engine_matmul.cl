// Matrix-matrix product for the tokens of a pass: out[t][r] = W[r] . x[t] for rows r < n_out and
// tokens t < n_tok; token t's input is at t * stride + x_off, its output at t * stride + out_off.
// Workgroup (g, c) computes WG_X * ROWS rows for the TOKENS tokens [c * TOKENS, ...): per pass over
// n_in it holds TILE activation elements of each of its tokens in local memory, and every weight
// chunk a work-item decodes serves all of them (the weights are read once per TOKENS tokens, where
// a matvec reads them once per token). Defines (build options):
//   WEIGHT_FORMAT  ggml type id; the type's block decoder (core/kernels/types/<type>.cl) comes
//                  before this file and defines BLOCK_ELEMS, BLOCK_BYTES, decode16 and value_at
//   WG_X           workgroup size
//   TILE           activation elements per token per pass: a multiple of 16 holding whole blocks
//   TOKENS         tokens per workgroup (the token tile)
//   ROWS           rows per work-item
//   ACCUMULATE     1: out += W . x (a residual add in the same pass)
//   EXPERTS        1: the expert-indexed product (mul_mat_id): workgroup (g, c) takes token tile c
//                  of engine_expert_group.cl's list (an expert and up to TOKENS of its picks;
//                  past the list's tiles it does nothing), w holds the experts' matrices of n_out
//                  rows one after the other, and pick t * k + j reads x_off + j * x_slot and
//                  writes out_off + j * out_slot of token t
// Local memory (the dynamic __local argument): TOKENS * TILE floats, planner::local_mem_bytes()
// of the matmul variant.
typedef struct {
  uint n_in;
  uint n_out;
  uint x_off;
  uint out_off;
  uint stride;
  uint n_tok;
  uint groups_off;
  uint group_len;
  uint k;
  uint x_slot;
  uint out_slot;
} MatmulParams;

#define GROUP_AT(i) ((i) / p.group_len * p.stride + p.groups_off + (i) % p.group_len)

// Where the tile's token t reads its input (slot = x_slot) or writes its output (out_slot), less
// x_off / out_off.
GAUNTLET_INLINE uint token_base(const __global float* act, MatmulParams p, uint first, uint t, uint slot) {
#if EXPERTS
  const uint pick = (uint)act[GROUP_AT(1 + first + t)];
  return pick / p.k * p.stride + pick % p.k * slot;
#else
  return (first + t) * p.stride;
#endif
}

#define ROW_BYTES(n) ((n) / BLOCK_ELEMS * BLOCK_BYTES)
#define STEP (BLOCK_ELEMS < 16 ? 16 : BLOCK_ELEMS)
#define CHUNKS (BLOCK_ELEMS < 16 ? 1 : BLOCK_ELEMS / 16)

// Four partial sums of 16 weights times 16 activations.
GAUNTLET_INLINE float4 dot16(float16 w, const __local float* x) {
  const float16 v = vload16(0, x);
  return w.s0123 * v.s0123 + w.s4567 * v.s4567 + w.s89ab * v.s89ab + w.scdef * v.scdef;
}

__kernel void matmul(__global const uchar* w, __global float* act, MatmulParams p,
                     __local float* tile) {
  const uint lid = get_local_id(0);
  const uint row0 = (uint)get_global_id(0) * ROWS;
  const ulong row_bytes = ROW_BYTES(p.n_in);
#if EXPERTS
  // Tile c of the grouped picks: `first` indexes the picks, `n_tok` counts the tile's.
  const uint c = get_group_id(1);
  if (c >= (uint)act[GROUP_AT(0)]) return;
  const uint entry = 1 + p.n_tok * p.k + 3 * c;
  w += (ulong)act[GROUP_AT(entry)] * p.n_out * row_bytes;
  const uint first = (uint)act[GROUP_AT(entry + 1)];
  const uint tokens = (uint)act[GROUP_AT(entry + 2)];
#else
  const uint first = (uint)get_group_id(1) * TOKENS;
  const uint tokens = min((uint)TOKENS, p.n_tok - min(first, p.n_tok));
#endif
  float4 acc[ROWS][TOKENS];
  for (uint r = 0; r < ROWS; ++r) {
    for (uint t = 0; t < TOKENS; ++t) acc[r][t] = (float4)(0.0f);
  }
  for (uint base = 0; base < p.n_in; base += TILE) {
    const uint len = min((uint)TILE, p.n_in - base);
    barrier(CLK_LOCAL_MEM_FENCE);
    // Tokens past the tile's and elements past len load zeros: they add nothing. Token by token,
    // so that an expert tile looks its pick up once per token.
    for (uint t = 0; t < TOKENS; ++t) {
      const uint from = t < tokens ? token_base(act, p, first, t, p.x_slot) + p.x_off + base : 0;
      for (uint j = lid; j < TILE; j += WG_X) {
        tile[t * TILE + j] = t < tokens && j < len ? act[from + j] : 0.0f;
      }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint r = 0; r < ROWS; ++r) {
      const __global uchar* row = w + min(row0 + r, p.n_out - 1) * row_bytes;
      for (uint b = 0; b < len; b += STEP) {
        const __global uchar* blk = row + (base + b) / BLOCK_ELEMS * BLOCK_BYTES;
        // Unrolled, each chunk index is a constant: a k-quant sub-block's scale and shifts fold.
#pragma unroll
        for (uint c = 0; c < CHUNKS; ++c) {
          const float16 wv = decode16(blk, c);
          for (uint t = 0; t < TOKENS; ++t) acc[r][t] += dot16(wv, tile + t * TILE + b + 16 * c);
        }
      }
    }
  }
  for (uint r = 0; r < ROWS; ++r) {
    for (uint t = 0; t < TOKENS; ++t) {
      if (row0 + r >= p.n_out || t >= tokens) continue;
      const float4 a = acc[r][t];
      const float sum = (a.x + a.y) + (a.z + a.w);
      __global float* out = act + token_base(act, p, first, t, p.out_slot) + p.out_off + row0 + r;
#if ACCUMULATE
      *out += sum;
#else
      *out = sum;
#endif
    }
  }
}
