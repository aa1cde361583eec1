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
// Local memory (the dynamic __local argument): TOKENS * TILE floats, planner::local_mem_bytes()
// of the matmul variant.
typedef struct {
  uint n_in;
  uint n_out;
  uint x_off;
  uint out_off;
  uint stride;
  uint n_tok;
} MatmulParams;

#define ROW_BYTES(n) ((n) / BLOCK_ELEMS * BLOCK_BYTES)
#define STEP (BLOCK_ELEMS < 16 ? 16 : BLOCK_ELEMS)
#define CHUNKS (BLOCK_ELEMS < 16 ? 1 : BLOCK_ELEMS / 16)

// Four partial sums of 16 weights times 16 activations.
inline float4 dot16(float16 w, const __local float* x) {
  const float16 v = vload16(0, x);
  return w.s0123 * v.s0123 + w.s4567 * v.s4567 + w.s89ab * v.s89ab + w.scdef * v.scdef;
}

__kernel void matmul(__global const uchar* w, __global float* act, MatmulParams p,
                     __local float* tile) {
  const uint lid = get_local_id(0);
  const uint row0 = (uint)get_global_id(0) * ROWS;
  const uint tok0 = (uint)get_group_id(1) * TOKENS;
  const ulong row_bytes = ROW_BYTES(p.n_in);
  float4 acc[ROWS][TOKENS];
  for (uint r = 0; r < ROWS; ++r) {
    for (uint t = 0; t < TOKENS; ++t) acc[r][t] = (float4)(0.0f);
  }
  for (uint base = 0; base < p.n_in; base += TILE) {
    const uint len = min((uint)TILE, p.n_in - base);
    barrier(CLK_LOCAL_MEM_FENCE);
    // Tokens past n_tok and elements past len load zeros: they add nothing.
    for (uint i = lid; i < TOKENS * TILE; i += WG_X) {
      const uint t = i / TILE, j = i % TILE;
      tile[i] = tok0 + t < p.n_tok && j < len
                    ? act[(tok0 + t) * p.stride + p.x_off + base + j]
                    : 0.0f;
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
      if (row0 + r >= p.n_out || tok0 + t >= p.n_tok) continue;
      const float4 a = acc[r][t];
      const float sum = (a.x + a.y) + (a.z + a.w);
      __global float* out = act + (tok0 + t) * p.stride + p.out_off + row0 + r;
#if ACCUMULATE
      *out += sum;
#else
      *out = sum;
#endif
    }
  }
}
