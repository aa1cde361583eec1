// Matrix-vector product out[r] = W[r] . x (MODE 0), or the token-embedding row lookup (MODE 1),
// for a block type whose decoder (core/kernels/types/<type>.glsl) the generated wrapper includes
// before this body, with the weights at binding 0 (SOURCE_WORD: `w[]`, or a texel buffer on a CPU
// Vulkan driver, engine/device/config.h). The same specialization constants and push constants
// as engine_matvec.comp (engine_matvec_common.glsl; that kernel keeps its own vector paths for the
// five types it was tuned for); TILE holds whole blocks.
#include "engine_matvec_common.glsl"

// Elements [i, i + 4) of the tile, i a multiple of 4.
vec4 tile4(uint i) {
  if (TILE_AS_TEXELS) return uintBitsToFloat(act_texels4(tile_origin + i));
  if (ACT_F16 != 0) {
    uvec4 v = tile[i >> 3];
    return (i & 4u) != 0u ? vec4(unpackHalf2x16(v.z), unpackHalf2x16(v.w))
                          : vec4(unpackHalf2x16(v.x), unpackHalf2x16(v.y));
  }
  return uintBitsToFloat(tile[i >> 2]);
}

void load_tile(uint x_off, uint base, uint len) {
  tile_origin = x_off + base;
  if (TILE_AS_TEXELS) return;
  uint lid = gl_LocalInvocationID.x;
  if (ACT_F16 != 0) {
    for (uint j = lid; j < len / 2; j += gl_WorkGroupSize.x) {
      uint at = x_off + base + 2 * j;
      tile[j >> 2][j & 3u] = packHalf2x16(vec2(act[at], act[at + 1]));
    }
  } else {
    for (uint j = lid; j < len; j += gl_WorkGroupSize.x) {
      tile[j >> 2][j & 3u] = floatBitsToUint(act[x_off + base + j]);
    }
  }
}

#ifdef WEIGHTS_AS_TEXELS
// stage_block (below) through 16-byte fetches where the weights are whole vectors (VECTOR_READS &
// 2): llvmpipe pays a texel fetch per word, so a q6_K block (53 words) costs 53 fetches by words and
// 15 by vectors. The block begins at word q (0..3) of its first vector and byte `shift` / 8 of
// that word; word k of the fetched vectors is picked by selects on q, so every array index stays
// a constant. The vectors past the block's end are clamped to the view's last one (their words
// are never used).
const uint STAGE_VECTORS = (4u + (BLOCK_BYTES + 3u) / 4u + 3u) / 4u;
uint fetched_word(uvec4 v[STAGE_VECTORS], uint q, uint k) {
  const uint a = v[k >> 2][k & 3u];
  const uint b = v[(k + 1u) >> 2][(k + 1u) & 3u];
  const uint c = v[(k + 2u) >> 2][(k + 2u) & 3u];
  const uint d = v[(k + 3u) >> 2][(k + 3u) & 3u];
  return q == 0u ? a : q == 1u ? b : q == 2u ? c : d;
}
void stage_block_vectors(uint off, uint row) {
  const uint first = off >> 4, last = uint(textureSize(weight_vectors)) - 1u;
  uvec4 v[STAGE_VECTORS];
  [[unroll]] for (uint k = 0u; k < STAGE_VECTORS; ++k) v[k] = weight_vector(min(first + k, last));
  const uint q = (off >> 2) & 3u;
  const uint shift = BLOCK_BYTES % 4u == 0u ? 0u : (off & 3u) << 3;
  uint next = fetched_word(v, q, 0u);
  [[unroll]] for (uint k = 0u; k < (BLOCK_BYTES + 3u) / 4u; ++k) {
    const uint word = next;
    next = fetched_word(v, q, k + 1u);
    staged[row][k] = shift == 0u ? word : (word >> shift) | (next << (32u - shift));
  }
}
#endif

// Copies the block at byte offset off into `staged` (engine_matvec_blocks_words.glsl) so that it
// starts at the staged words' byte 0, never reading past the block's last word; the decoders then
// read it at offset 0, so every index into `staged` is a constant. (A block left at its
// byte in the word gave the decoders a variable index, which llvmpipe turns into a chain of
// branches over every staged word: mxfp4 decoded at half of q4_0's speed.)
// (q4_K and q5_K, the types of whole 16-byte blocks, take the code-word products instead.)
void stage_block(uint off, uint row) {
#ifdef WEIGHTS_AS_TEXELS
  if ((VECTOR_READS & 2u) != 0u) {
    stage_block_vectors(off, row);
    return;
  }
#endif
  const uint shift = BLOCK_BYTES % 4u == 0u ? 0u : (off & 3u) << 3;
  const uint words = ((off & 3u) + BLOCK_BYTES + 3u) >> 2;
  uint next = SOURCE_WORD(off >> 2);
  [[unroll]] for (uint k = 0u; k < (BLOCK_BYTES + 3u) / 4u; ++k) {
    const uint word = next;
    next = k + 1u < words ? SOURCE_WORD((off >> 2) + k + 1u) : 0u;
    staged[row][k] = shift == 0u ? word : (word >> shift) | (next << (32u - shift));
  }
}

void embed() {
  uint i = gl_GlobalInvocationID.x;
  if (i >= p.n_in) return;
  uint row_off = p.row * (p.n_in / BLOCK_ELEMS * BLOCK_BYTES);
  const uint off = row_off + (i / BLOCK_ELEMS) * BLOCK_BYTES;
  stage_block(off, 0u);
  act[p.out_off + i] = value_at(0u, i % BLOCK_ELEMS);
}

#ifdef BLOCK_CODE_WORDS
// The products of a type of code words (q4_K, q5_K; blocks of whole 16-byte vectors in rows of
// them), as engine_matvec.cl's: each group of 32 codes meets its activations with a mask per byte
// (byte k taken in place, q * 2^8k, and its sum scaled by 2^-8k once), its step applied once to
// the group's sum and its offset to the activations' sum, where decode16 took two products per
// weight and each chunk's scales again (BM_MatvecInCache on llvmpipe: q4_K 1.27 -> 1.74 GB/s).
void code_word_products(uint row0, uint w_off, uint rb, uint base, uint len, inout vec4 acc[ROWS]) {
  const uvec4 BYTE = uvec4(0xffu, 0xff00u, 0xff0000u, 0xff000000u);
  const vec4 IN_PLACE = vec4(1.0, 1.0 / 256.0, 1.0 / 65536.0, 1.0 / 16777216.0);
  for (uint b = 0; b < len; b += BLOCK_ELEMS) {
    uint off[ROWS];
    uvec4 head[ROWS];
    [[unroll]] for (uint r = 0; r < ROWS; ++r) {
      off[r] = w_off + min(row0 + r, p.n_out - 1) * rb + (base + b) / BLOCK_ELEMS * BLOCK_BYTES;
      head[r] = weight_vector(off[r] >> 4);
    }
    [[dont_unroll]] for (uint g = 0; g < BLOCK_ELEMS / 32u; ++g) {
      vec4 x[8];
      vec4 sum = vec4(0.0);
      [[unroll]] for (uint j = 0; j < 8u; ++j) {
        x[j] = tile4(b + 32u * g + 4u * j);
        sum += x[j];
      }
      [[unroll]] for (uint r = 0; r < ROWS; ++r) {
        uvec4 words[2];
        group_codes(off[r], g, words[0], words[1]);
        vec4 s = vec4(0.0);
        [[unroll]] for (uint j = 0; j < 8u; ++j) {
          s += vec4(ivec4(uvec4(words[j >> 2][j & 3u]) & BYTE)) * x[j];
        }
        const vec2 so = group_step_offset(head[r], g);
        acc[r] += so.x * (s * IN_PLACE) - so.y * sum;
      }
    }
  }
}
#endif

void main() {
#ifdef TYPE_TABLES
  init_type_tables();
#endif
  if (MODE == 1) {
    embed();
    return;
  }
  uint lid = gl_LocalInvocationID.x;
  // Each invocation owns ROWS consecutive rows (clamped to the last row, so that every invocation
  // runs the same loop); the workgroup loads each activation tile once and shares it.
  uint row0 = gl_GlobalInvocationID.x * ROWS;
  uint rb = p.n_in / BLOCK_ELEMS * BLOCK_BYTES;
  uint w_off, x_off, out_off;
  expert_addressing(rb, w_off, x_off, out_off);
  // Arrays and loops bounded by ROWS itself: larger private arrays, or loops left rolled, put them in
  // scratch memory on llvmpipe.
  vec4 acc[ROWS];
  [[unroll]] for (uint r = 0; r < ROWS; ++r) acc[r] = vec4(0.0);
#ifdef BLOCK_CODE_WORDS
  // Rows of such blocks are whole vectors too. A constant: llvmpipe would run both paths of a test.
  const bool code_words = BLOCK_BYTES % 16u == 0u;
#endif
  for (uint base = 0; base < p.n_in; base += TILE) {
    uint len = min(TILE, p.n_in - base);
    barrier();
    load_tile(x_off, base, len);
    barrier();
#ifdef BLOCK_CODE_WORDS
    if (code_words) {
      code_word_products(row0, w_off, rb, base, len, acc);
      continue;
    }
#endif
    // Block by block: each row's block is staged once, then every 16-element chunk of the tile
    // is loaded once and serves all ROWS rows.
    for (uint b = 0; b < len; b += BLOCK_ELEMS) {
      [[unroll]] for (uint r = 0; r < ROWS; ++r) {
        const uint off =
            w_off + min(row0 + r, p.n_out - 1) * rb + (base + b) / BLOCK_ELEMS * BLOCK_BYTES;
        stage_block(off, r);
      }
      // Not unrolled: unrolled over a k-quant's 16 chunks and the rows, the shader took llvmpipe
      // 7-16 s to compile per specialization (2-5 s now), for about a tenth more decode speed.
      [[dont_unroll]] for (uint c = 0; c < BLOCK_ELEMS / 16; ++c) {
        const uint t = b + 16 * c;
        const mat4 x = mat4(tile4(t), tile4(t + 4), tile4(t + 8), tile4(t + 12));
        [[unroll]] for (uint r = 0; r < ROWS; ++r) {
          staged_row = r;
#ifdef BLOCK_SCALED_CODES
          // The type's codes, its scale applied once to their products (mxfp4).
          const mat4 v = codes16(0u, c);
          acc[r] += block_scale(0u) * (v[0] * x[0] + v[1] * x[1] + v[2] * x[2] + v[3] * x[3]);
#else
          const mat4 v = decode16(0u, c);
          acc[r] += v[0] * x[0] + v[1] * x[1] + v[2] * x[2] + v[3] * x[3];
#endif
        }
      }
    }
  }
  // The reduction scratch stages this invocation's results (it is part of the variant's shared
  // memory, which the planner counts).
  [[unroll]] for (uint r = 0; r < ROWS; ++r) {
    red[lid] = dot(acc[r], vec4(1.0));
    if (row0 + r < p.n_out) {
      if (ACCUMULATE != 0) {
        act[out_off + row0 + r] += red[lid];
      } else {
        act[out_off + row0 + r] = red[lid];
      }
    }
  }
}
