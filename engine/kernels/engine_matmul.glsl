// Matrix-matrix product for the tokens of a pass, out[t][r] = W[r] . x[t] for rows r < n_out and
// tokens t < n_tok (token t's input at t * stride + x_off, output at t * stride + out_off), for a
// block type whose decoder (core/kernels/types/<type>.glsl) the generated wrapper includes before
// this body, with the weights `w[]` at binding 0. Workgroup (g, c) computes workgroup * ROWS rows
// for the TOKENS tokens [c * TOKENS, ...): per pass over n_in it holds TILE activation elements of
// each of its tokens in shared memory, and every weight chunk an invocation decodes serves all of
// them. Specialization constants: 0 workgroup; 3 WEIGHT_FORMAT; 4 TILE (a multiple of 16 holding
// whole blocks); 5 TOKENS (at most 32); 6 ROWS (at most 4); 7 ACCUMULATE (1: out += W . x);
// 8 TILE_VECS = TOKENS * TILE / 4, the shared vec4s (planner::local_mem_bytes of the variant).
layout(local_size_x_id = 0) in;
layout(constant_id = 3) const uint WEIGHT_FORMAT = 0;
layout(constant_id = 4) const uint TILE = 256;
layout(constant_id = 5) const uint TOKENS = 8;
layout(constant_id = 6) const uint ROWS = 1;
layout(constant_id = 7) const uint ACCUMULATE = 0;
layout(constant_id = 8) const uint TILE_VECS = 512;

layout(std430, binding = 1) buffer A { float act[]; };
layout(push_constant) uniform Params {
  uint n_in;
  uint n_out;
  uint x_off;
  uint out_off;
  uint stride;
  uint n_tok;
} p;

shared vec4 tile[TILE_VECS];

const uint MAX_ROWS = 4u;
const uint MAX_TOKENS = 32u;
const uint STEP = BLOCK_ELEMS < 16u ? 16u : BLOCK_ELEMS;
const uint CHUNKS = BLOCK_ELEMS < 16u ? 1u : BLOCK_ELEMS / 16u;

void main() {
  const uint lid = gl_LocalInvocationID.x;
  const uint wg = gl_WorkGroupSize.x;
  const uint row0 = gl_GlobalInvocationID.x * ROWS;
  const uint tok0 = gl_WorkGroupID.y * TOKENS;
  const uint rb = p.n_in / BLOCK_ELEMS * BLOCK_BYTES;
  // One float per output: on CPU drivers every invocation-private value is a SIMD register.
  float acc[MAX_ROWS * MAX_TOKENS];
  [[unroll]] for (uint i = 0u; i < MAX_ROWS * MAX_TOKENS; ++i) acc[i] = 0.0;
  for (uint base = 0u; base < p.n_in; base += TILE) {
    const uint len = min(TILE, p.n_in - base);
    barrier();
    // Tokens past n_tok and elements past len load zeros: they add nothing.
    for (uint i = lid; i < TOKENS * TILE / 4u; i += wg) {
      const uint t = (4u * i) / TILE, j = (4u * i) % TILE;
      vec4 v = vec4(0.0);
      if (tok0 + t < p.n_tok && j < len) {
        const uint at = (tok0 + t) * p.stride + p.x_off + base + j;
        v = vec4(act[at], act[at + 1u], act[at + 2u], act[at + 3u]);
      }
      tile[i] = v;
    }
    barrier();
    for (uint b = 0u; b < len; b += STEP) {
      const uint block_off = (base + b) / BLOCK_ELEMS * BLOCK_BYTES;
      // Not unrolled: the rows and tokens inside are, and a k-quant block's 16 chunks times them
      // made shaders llvmpipe took minutes to compile (q6_K).
      [[dont_unroll]] for (uint c = 0u; c < CHUNKS; ++c) {
        [[unroll]] for (uint r = 0u; r < MAX_ROWS; ++r) {
          if (r < ROWS) {
            const mat4 v = decode16(min(row0 + r, p.n_out - 1u) * rb + block_off, c);
            [[unroll]] for (uint t = 0u; t < MAX_TOKENS; ++t) {
              if (t < TOKENS) {
                const uint x = (t * TILE + b + 16u * c) / 4u;
                acc[r * MAX_TOKENS + t] += dot(v[0], tile[x]) + dot(v[1], tile[x + 1u]) +
                                           dot(v[2], tile[x + 2u]) + dot(v[3], tile[x + 3u]);
              }
            }
          }
        }
      }
    }
  }
  [[unroll]] for (uint r = 0u; r < MAX_ROWS; ++r) {
    [[unroll]] for (uint t = 0u; t < MAX_TOKENS; ++t) {
      if (r < ROWS && t < TOKENS && row0 + r < p.n_out && tok0 + t < p.n_tok) {
        const float sum = acc[r * MAX_TOKENS + t];
        const uint at = (tok0 + t) * p.stride + p.out_off + row0 + r;
        if (ACCUMULATE != 0u) {
          act[at] += sum;
        } else {
          act[at] = sum;
        }
      }
    }
  }
}
