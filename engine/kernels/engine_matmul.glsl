// Matrix-matrix product for the tokens of a pass, out[t][r] = W[r] . x[t] for rows r < n_out and
// tokens t < n_tok (token t's input at t * stride + x_off, output at t * stride + out_off), for a
// block type whose decoder (core/kernels/types/<type>.glsl) the generated wrapper includes before
// this body, with the weights `w[]` at binding 0. Workgroup (g, c) computes workgroup * ROWS rows
// for the TOKENS tokens [c * TOKENS, ...): per pass over n_in it holds TILE activation elements of
// each of its tokens in shared memory, and every weight chunk an invocation decodes serves all of
// them. Specialization constants: 0 workgroup; 3 WEIGHT_FORMAT; 4 TILE (a multiple of 16 holding
// whole blocks); 5 TOKENS (at most 32); 6 ROWS (at most 8); 7 ACCUMULATE (1: out += W . x);
// 8 TILE_VECS = TOKENS * TILE / 4, the shared vec4s (planner::local_mem_bytes of the variant);
// 9 EXPERTS (1: the expert-indexed product over engine_expert_group's tiles, as
// engine_matmul.cl's EXPERTS says).
layout(local_size_x_id = 0) in;
layout(constant_id = 3) const uint WEIGHT_FORMAT = 0;
layout(constant_id = 4) const uint TILE = 256;
layout(constant_id = 5) const uint TOKENS = 8;
layout(constant_id = 6) const uint ROWS = 1;
layout(constant_id = 7) const uint ACCUMULATE = 0;
layout(constant_id = 8) const uint TILE_VECS = 512;
layout(constant_id = 9) const uint EXPERTS = 0;

layout(std430, binding = 1) buffer A { float act[]; };
layout(push_constant) uniform Params {
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
} p;

uint group_at(uint i) { return i / p.group_len * p.stride + p.groups_off + i % p.group_len; }

// Where the tile's token t reads its input (slot = x_slot) or writes its output (out_slot),
// less x_off / out_off.
uint token_base(uint first, uint t, uint slot) {
  if (EXPERTS == 0u) return (first + t) * p.stride;
  const uint pick = uint(act[group_at(1u + first + t)]);
  return pick / p.k * p.stride + pick % p.k * slot;
}

#ifdef WEIGHTS_AS_TEXELS
// On a CPU Vulkan driver the activations are read as texels too, straight from the buffer: llvmpipe
// loads shared memory lane by lane, even where every lane reads the same address, and a texel fetch
// is one gather (binding 3, the second texel view: backends::KernelSource::texel_views).
layout(binding = 3) uniform usamplerBuffer act_texels;
float act_at(uint i) { return uintBitsToFloat(texelFetch(act_texels, int(i)).x); }
vec4 act4(uint i) { return vec4(act_at(i), act_at(i + 1u), act_at(i + 2u), act_at(i + 3u)); }
#else
shared vec4 tile[TILE_VECS];
#endif

const uint STEP = BLOCK_ELEMS < 16u ? 16u : BLOCK_ELEMS;
const uint CHUNKS = BLOCK_ELEMS < 16u ? 1u : BLOCK_ELEMS / 16u;

void main() {
#ifdef TYPE_TABLES
  init_type_tables();
#endif
  const uint lid = gl_LocalInvocationID.x;
  const uint wg = gl_WorkGroupSize.x;
  const uint row0 = gl_GlobalInvocationID.x * ROWS;
  const uint rb = p.n_in / BLOCK_ELEMS * BLOCK_BYTES;
  // The tile's tokens: `first` indexes the tokens (or the grouped picks), `tokens` counts them;
  // an expert tile's weights start at its expert's matrix.
  uint first = gl_WorkGroupID.y * TOKENS;
  uint tokens = min(TOKENS, p.n_tok - min(first, p.n_tok));
  uint w_base = 0u;
  if (EXPERTS != 0u) {
    const uint c = gl_WorkGroupID.y;
    if (c >= uint(act[group_at(0u)])) return;
    const uint entry = 1u + p.n_tok * p.k + 3u * c;
    w_base = uint(act[group_at(entry)]) * p.n_out * rb;
    first = uint(act[group_at(entry + 1u)]);
    tokens = uint(act[group_at(entry + 2u)]);
  }
  // One float per output: on CPU drivers every invocation-private value is a SIMD register.
  // Loops and this array are bounded by the constants themselves: a larger private array, or a loop
  // left rolled, puts the sums in scratch memory on llvmpipe.
  float acc[ROWS * TOKENS];
  [[unroll]] for (uint i = 0u; i < ROWS * TOKENS; ++i) acc[i] = 0.0;
  for (uint base = 0u; base < p.n_in; base += TILE) {
    const uint len = min(TILE, p.n_in - base);
#ifndef WEIGHTS_AS_TEXELS
    barrier();
    // Tokens past the tile's and elements past len load zeros: they add nothing. Token by token,
    // so that an expert tile looks its pick up once per token.
    for (uint t = 0u; t < TOKENS; ++t) {
      const uint from = t < tokens ? token_base(first, t, p.x_slot) + p.x_off + base : 0u;
      for (uint q = lid; q < TILE / 4u; q += wg) {
        const uint j = 4u * q;
        vec4 v = vec4(0.0);
        if (t < tokens && j < len) {
          const uint at = from + j;
          v = vec4(act[at], act[at + 1u], act[at + 2u], act[at + 3u]);
        }
        tile[t * TILE / 4u + q] = v;
      }
    }
    barrier();
#endif
    // Invocations past the last row only help load the tile: where a whole SIMD group of them
    // skips the products, a wide matrix with few rows (ffn_down) costs half as much on llvmpipe.
    const uint my_len = row0 < p.n_out ? len : 0u;
    for (uint b = 0u; b < my_len; b += STEP) {
      const uint block_off = w_base + (base + b) / BLOCK_ELEMS * BLOCK_BYTES;
      // Not unrolled: the rows and tokens inside are, and a k-quant block's 16 chunks times them
      // made shaders llvmpipe took minutes to compile (q6_K).
      [[dont_unroll]] for (uint c = 0u; c < CHUNKS; ++c) {
        // Every row's chunk first, then each token's 16 activations read once for all the rows:
        // CPU drivers load shared memory lane by lane, so a load saved is worth many FMAs.
        mat4 v[ROWS];
        [[unroll]] for (uint r = 0u; r < ROWS; ++r) {
          v[r] = decode16(min(row0 + r, p.n_out - 1u) * rb + block_off, c);
        }
        [[unroll]] for (uint t = 0u; t < TOKENS; ++t) {
          if (t >= tokens) break;  // a short pass (a few sequences' steps) fills part of a tile
#ifdef WEIGHTS_AS_TEXELS
          const uint x = token_base(first, t, p.x_slot) + p.x_off + base + b + 16u * c;
          const vec4 x0 = act4(x), x1 = act4(x + 4u), x2 = act4(x + 8u), x3 = act4(x + 12u);
#else
          const uint x = (t * TILE + b + 16u * c) / 4u;
          const vec4 x0 = tile[x], x1 = tile[x + 1u], x2 = tile[x + 2u], x3 = tile[x + 3u];
#endif
          [[unroll]] for (uint r = 0u; r < ROWS; ++r) {
            acc[r * TOKENS + t] +=
                dot(v[r][0], x0) + dot(v[r][1], x1) + dot(v[r][2], x2) + dot(v[r][3], x3);
          }
        }
      }
    }
  }
  [[unroll]] for (uint r = 0u; r < ROWS; ++r) {
    [[unroll]] for (uint t = 0u; t < TOKENS; ++t) {
      if (row0 + r < p.n_out && t < tokens) {
        const float sum = acc[r * TOKENS + t];
        const uint at = token_base(first, t, p.out_slot) + p.out_off + row0 + r;
        if (ACCUMULATE != 0u) {
          act[at] += sum;
        } else {
          act[at] = sum;
        }
      }
    }
  }
}
