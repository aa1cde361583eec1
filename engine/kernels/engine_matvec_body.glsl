// The body of engine_matvec.comp and engine_matvec_texels.comp (which defines WEIGHTS_AS_TEXELS).
// Matrix-vector product out[r] = W[r] . x for one weight format (MODE 0), or the token-embedding
// row lookup (MODE 1). The weights are read as 32-bit words and decoded in the shader, so no
// 8- or 16-bit storage feature is needed: f16 through unpackHalf2x16, bf16 by a shift, q8_0 and
// q4_0 blocks (34 and 18 bytes, so 2-byte aligned) through 2-byte-aligned word reads.
// Specialization constants as engine_matvec_common.glsl lists them: TILE_WORDS is TILE, or TILE / 2
// when ACT_F16, rounded up to a multiple of 4 (the tile is read as 16-byte vectors); RED is the
// workgroup; ACCUMULATE 1 makes out[r] += W[r] . x, a residual add in the same pass.
#ifdef WEIGHTS_AS_TEXELS
// The weights as a uniform texel buffer of 32-bit words (engine_matvec_texels.comp): llvmpipe
// (Mesa 22.3) loads a storage buffer inside a loop lane by lane, each lane a branch, a bounds
// check and a store through the stack, where a texel fetch is one vector gather (its q8_0 matvec
// 0.39 -> 0.74 GB/s, q4_0 0.25 -> 0.42, BM_Matvec). Binding 2: the texel view after the two
// storage bindings (backends::KernelSource::texel_views).
layout(binding = 2) uniform usamplerBuffer weight_texels;
uint weight_word(uint i) { return texelFetch(weight_texels, int(i)).x; }
#else
layout(std430, binding = 0) readonly buffer W { uint w[]; };
// The same weights as 16-byte vectors: CPU drivers load a whole vector per invocation at once.
layout(std430, binding = 0) readonly buffer W4 { uvec4 w4[]; };
uint weight_word(uint i) { return w[i]; }
#endif
// Words i .. i + 3, and the 16-byte vector i (words 4i .. 4i + 3).
uvec4 weight_words4(uint i) {
  return uvec4(weight_word(i), weight_word(i + 1u), weight_word(i + 2u), weight_word(i + 3u));
}
#ifdef WEIGHTS_AS_TEXELS
// The weights as 16-byte texels (binding 4: backends::KernelSource::texel_vectors): one fetch, where
// four word fetches are four calls and four gathers (BM_Matvec GB/s on llvmpipe: q8_0 2.8 -> 4.2-4.6,
// q4_0 1.8 -> 2.2-2.4).
layout(binding = 4) uniform usamplerBuffer weight_vectors;
uvec4 weight_vec4(uint i) { return texelFetch(weight_vectors, int(i)); }
#else
uvec4 weight_vec4(uint i) { return w4[i]; }
#endif
#include "engine_matvec_common.glsl"
// 12 ROW_PATH: how the rows are walked, chosen by the host from the type, n_in and TILE
// (kernels.cpp's matvec_row_path): 0 block by block (row_dot), 1 groups of 8 q8_0 / q4_0 blocks
// (n_in and TILE multiples of 256), 2 float rows of 8 elements (multiples of 8). A constant, not
// a test on n_in here: llvmpipe runs every side of a branch, and the paths not taken cost it a
// pass of their loops each (BM_Matvec q8_0 4.6-7.6 -> 8.0-10.1 GB/s, q4_0 2.8-4.5 -> 4.8-6.0).
layout(constant_id = 12) const uint ROW_PATH = 0;

const uint QK = 32;

uint row_bytes(uint n) {
  if (WEIGHT_FORMAT == 0) return n * 4;
  if (WEIGHT_FORMAT == 1 || WEIGHT_FORMAT == 30) return n * 2;
  if (WEIGHT_FORMAT == 8) return n / QK * 34;
  return n / QK * 18;
}

// Four bytes at a 2-byte-aligned byte offset.
uint word_at(uint off) {
  uint i = off >> 2;
  if ((off & 2u) == 0u) return weight_word(i);
  return (weight_word(i) >> 16) | (weight_word(i + 1) << 16);
}

float half_at(uint off) {
  uint v = weight_word(off >> 2);
  return unpackHalf2x16((off & 2u) != 0u ? v >> 16 : v).x;
}

// Weight elements 2j and 2j + 1 of a float-format row starting at byte `row_off`.
vec2 weight_pair(uint row_off, uint j) {
  if (WEIGHT_FORMAT == 0) {
    uint i = (row_off >> 2) + 2 * j;
    return vec2(uintBitsToFloat(weight_word(i)), uintBitsToFloat(weight_word(i + 1)));
  }
  uint v = weight_word((row_off >> 2) + j);
  if (WEIGHT_FORMAT == 1) return unpackHalf2x16(v);
  return vec2(uintBitsToFloat(v << 16), uintBitsToFloat(v & 0xffff0000u));
}

uint tile_word(uint i) {
  return TILE_AS_TEXELS ? act_texel(tile_origin + i) : tile[i >> 2][i & 3u];
}
uvec4 tile_words4(uint i) {
  return TILE_AS_TEXELS ? act_texels4(tile_origin + i) : tile[i >> 2];
}

float tile_at(uint i) {
  if (ACT_F16 != 0) {
    uint v = tile_word(i >> 1);
    return unpackHalf2x16((i & 1u) != 0u ? v >> 16 : v).x;
  }
  return uintBitsToFloat(tile_word(i));
}

vec2 tile_pair(uint j) {
  if (ACT_F16 != 0) return unpackHalf2x16(tile_word(j));
  return vec2(uintBitsToFloat(tile_word(2 * j)), uintBitsToFloat(tile_word(2 * j + 1)));
}

// Elements [i, i + 4) of the tile, i a multiple of 4.
vec4 tile4(uint i) {
  if (ACT_F16 != 0) {
    uvec4 v = tile[i >> 3];
    return (i & 4u) != 0u ? vec4(unpackHalf2x16(v.z), unpackHalf2x16(v.w))
                          : vec4(unpackHalf2x16(v.x), unpackHalf2x16(v.y));
  }
  return uintBitsToFloat(tile_words4(i));
}

// Elements [i, i + 8) of the tile, i a multiple of 8: one or two vector loads.
void tile8(uint i, out vec4 a, out vec4 b) {
  if (ACT_F16 != 0) {
    uvec4 v = tile[i >> 3];
    a = vec4(unpackHalf2x16(v.x), unpackHalf2x16(v.y));
    b = vec4(unpackHalf2x16(v.z), unpackHalf2x16(v.w));
  } else {
    a = uintBitsToFloat(tile_words4(i));
    b = uintBitsToFloat(tile_words4(i + 4u));
  }
}

vec4 q8_4(uint v) {
  return vec4(bitfieldExtract(int(v), 0, 8), bitfieldExtract(int(v), 8, 8),
              bitfieldExtract(int(v), 16, 8), bitfieldExtract(int(v), 24, 8));
}

// Four weights of a 16-bit float format from two words.
vec4 half_pair4(uint u0, uint u1) {
  if (WEIGHT_FORMAT == 1) return vec4(unpackHalf2x16(u0), unpackHalf2x16(u1));
  return uintBitsToFloat(uvec4(u0 << 16, u0 & 0xffff0000u, u1 << 16, u1 & 0xffff0000u));
}

// The two words j and j + 1 of a block that starts at an even byte offset, shifted to the word that
// begins 2 bytes into the block when the block starts on a word: quant word j of q8_0 or q4_0
// (misaligned blocks start 2 bytes into a word, so their quant words are whole words).
uint quant_word(uint lo, uint hi, bool misaligned) {
  return mix((lo >> 16) | (hi << 16), hi, misaligned);
}

// The dot product of one row's elements [base, base + len) with the tile, as 4 lanes. One
// invocation walks its row from start to end; the tile index is the same in every invocation.
vec4 row_dot(uint row_off, uint base, uint len) {
  vec4 acc = vec4(0.0);
  if (WEIGHT_FORMAT == 0) {
    uint at = (row_off >> 2) + base;
    uint i = 0;
    if ((at & 3u) == 0u) {
      for (; i + 4 <= len; i += 4) acc += uintBitsToFloat(weight_vec4((at + i) >> 2)) * tile4(i);
    }
    for (; i + 4 <= len; i += 4) {
      acc += uintBitsToFloat(weight_words4(at + i)) * tile4(i);
    }
    for (; i < len; i += 2) acc.xy += weight_pair(row_off, (base + i) / 2) * tile_pair(i / 2);
  } else if (WEIGHT_FORMAT == 1 || WEIGHT_FORMAT == 30) {
    uint at = (row_off >> 2) + base / 2;
    uint i = 0;
    if ((at & 3u) == 0u) {
      for (; i + 8 <= len; i += 8) {
        uvec4 u = weight_vec4((at + i / 2) >> 2);
        acc += half_pair4(u.x, u.y) * tile4(i) + half_pair4(u.z, u.w) * tile4(i + 4);
      }
    }
    for (; i + 4 <= len; i += 4) {
      acc += half_pair4(weight_word(at + i / 2), weight_word(at + i / 2 + 1)) * tile4(i);
    }
    for (; i < len; i += 2) acc.xy += weight_pair(row_off, (base + i) / 2) * tile_pair(i / 2);
  } else if (WEIGHT_FORMAT == 8) {
    uint off = row_off + (base / QK) * 34;
    for (uint b = 0; b < len; b += QK, off += 34) {
      uint a = off >> 2;
      bool mis = (off & 2u) != 0u;
      uint prev = weight_word(a);
      float d = unpackHalf2x16(mix(prev, prev >> 16, mis)).x;
      vec4 s = vec4(0.0);
      for (uint j = 0; j < 8; ++j) {
        uint next = weight_word(a + 1 + j);
        s += q8_4(quant_word(prev, next, mis)) * tile4(b + 4 * j);
        prev = next;
      }
      acc += d * s;
    }
  } else {
    uint off = row_off + (base / QK) * 18;
    for (uint b = 0; b < len; b += QK, off += 18) {
      uint a = off >> 2;
      bool mis = (off & 2u) != 0u;
      uint prev = weight_word(a);
      float d = unpackHalf2x16(mix(prev, prev >> 16, mis)).x;
      vec4 s = vec4(0.0);
      for (uint j = 0; j < 4; ++j) {
        uint next = weight_word(a + 1 + j);
        uvec4 v = uvec4(quant_word(prev, next, mis)) >> uvec4(0, 8, 16, 24);
        s += (vec4(v & 15u) - 8.0) * tile4(b + 4 * j) +
             (vec4((v >> 4) & 15u) - 8.0) * tile4(b + 16 + 4 * j);
        prev = next;
      }
      acc += d * s;
    }
  }
  return acc;
}

void embed() {
  uint i = gl_GlobalInvocationID.x;
  if (i >= p.n_in) return;
  uint row_off = p.row * row_bytes(p.n_in);
  float v;
  if (WEIGHT_FORMAT == 0) {
    v = uintBitsToFloat(weight_word((row_off >> 2) + i));
  } else if (WEIGHT_FORMAT == 1) {
    v = half_at(row_off + 2 * i);
  } else if (WEIGHT_FORMAT == 30) {
    uint x = weight_word((row_off + 2 * i) >> 2);
    v = uintBitsToFloat((i & 1u) != 0u ? x & 0xffff0000u : x << 16);
  } else if (WEIGHT_FORMAT == 8) {
    uint off = row_off + (i / QK) * 34;
    uint j = i % QK;
    uint x = word_at(off + 2 + (j & ~3u));
    v = half_at(off) * float(bitfieldExtract(int(x), int(8 * (j & 3u)), 8));
  } else {
    uint off = row_off + (i / QK) * 18;
    uint j = i % QK;
    uint k = j % 16;
    uint x = word_at(off + 2 + (k & ~3u));
    uint byte = (x >> (8 * (k & 3u))) & 255u;
    uint q = j < 16 ? byte & 15u : byte >> 4;
    v = half_at(off) * (float(q) - 8.0);
  }
  act[p.out_off + i] = v;
}

// Block k (0..7) of a group of eight q8_0 or q4_0 blocks held as 16-byte vectors (17 of them for
// q8_0, 9 for q4_0; blocks of 34 / 18 bytes: even blocks start on a word, odd ones 2 bytes in),
// against the block's 32 activation elements t.
vec4 group_block_dot(uvec4 g[17], uint k, vec4 t[8]) {
  const uint half_words = WEIGHT_FORMAT == 8 ? 17 : 9;  // block size in 2-byte units
  uint w0 = (half_words * k) / 2;
  bool odd = (k & 1u) != 0u;
  uint head = g[w0 >> 2][w0 & 3u];
  float d = unpackHalf2x16(odd ? head >> 16 : head).x;
  vec4 s = vec4(0.0);
  [[unroll]] for (uint j = 0; j < (WEIGHT_FORMAT == 8 ? 8 : 4); ++j) {
    uint lo = g[(w0 + j) >> 2][(w0 + j) & 3u];
    uint hi = g[(w0 + j + 1) >> 2][(w0 + j + 1) & 3u];
    uint q = odd ? hi : (lo >> 16) | (hi << 16);
    if (WEIGHT_FORMAT == 8) {
      s += q8_4(q) * t[j];
    } else {
      uvec4 v = uvec4(q) >> uvec4(0, 8, 16, 24);
      s += (vec4(v & 15u) - 8.0) * t[j] + (vec4((v >> 4) & 15u) - 8.0) * t[4 + j];
    }
  }
  return d * s;
}

void main() {
  if (MODE == 1) {
    embed();
    return;
  }
  uint lid = gl_LocalInvocationID.x;
  // Each invocation owns ROWS consecutive rows (clamped to the last row, so that every invocation
  // runs the same loop); the workgroup loads each activation tile once and shares it.
  uint row0 = gl_GlobalInvocationID.x * ROWS;
  uint rb = row_bytes(p.n_in);
  uint w_off, x_off, out_off;
  expert_addressing(rb, w_off, x_off, out_off);
  // Arrays and loops bounded by ROWS itself: larger private arrays, or loops left rolled, put them in
  // scratch memory on llvmpipe.
  uint row_off[ROWS];
  vec4 acc[ROWS];
  [[unroll]] for (uint r = 0; r < ROWS; ++r) {
    row_off[r] = w_off + min(row0 + r, p.n_out - 1) * rb;
    acc[r] = vec4(0.0);
  }
  // Quantized rows of whole groups of 8 blocks, in chunks of whole groups, are read as 16-byte
  // vectors, and each activation vector loaded serves all ROWS rows; float rows (f32, f16, bf16)
  // of whole 16-byte vectors, in tiles of whole groups of 8, likewise (ROW_PATH).
  const bool grouped = ROW_PATH == 1;
  const uint group_bytes = WEIGHT_FORMAT == 8 ? 272 : 144;
  const uint group_vectors = group_bytes / 16;
  const bool float_rows = ROW_PATH == 2;

  for (uint base = 0; base < p.n_in; base += TILE) {
    uint len = min(TILE, p.n_in - base);
    tile_origin = x_off + base;
    barrier();
    uint words = TILE_AS_TEXELS ? 0 : ACT_F16 != 0 ? len / 2 : len;
    for (uint j = lid; j < words / 4; j += gl_WorkGroupSize.x) {
      uint at = x_off + base + (ACT_F16 != 0 ? 8 * j : 4 * j);
      if (ACT_F16 != 0) {
        tile[j] = uvec4(packHalf2x16(vec2(act[at], act[at + 1])),
                        packHalf2x16(vec2(act[at + 2], act[at + 3])),
                        packHalf2x16(vec2(act[at + 4], act[at + 5])),
                        packHalf2x16(vec2(act[at + 6], act[at + 7])));
      } else {
        tile[j] = floatBitsToUint(vec4(act[at], act[at + 1], act[at + 2], act[at + 3]));
      }
    }
    for (uint j = words / 4 * 4 + lid; j < words; j += gl_WorkGroupSize.x) {
      uint at = x_off + base + (ACT_F16 != 0 ? 2 * j : j);
      tile[j >> 2][j & 3u] = ACT_F16 != 0 ? packHalf2x16(vec2(act[at], act[at + 1]))
                                          : floatBitsToUint(act[at]);
    }
    barrier();
    if (grouped) {
      for (uint g0 = 0; g0 < len; g0 += 256) {
        uvec4 q[ROWS][17];
        [[unroll]] for (uint r = 0; r < ROWS; ++r) {
          uint at = (row_off[r] + (base + g0) / QK * (group_bytes / 8)) >> 4;
          [[unroll]] for (uint c = 0; c < group_vectors; ++c) q[r][c] = weight_vec4(at + c);
        }
        [[unroll]] for (uint k = 0; k < 8; ++k) {
          vec4 t[8];
          [[unroll]] for (uint m = 0; m < 4; ++m) tile8(g0 + 32 * k + 8 * m, t[2 * m], t[2 * m + 1]);
          [[unroll]] for (uint r = 0; r < ROWS; ++r) acc[r] += group_block_dot(q[r], k, t);
        }
      }
    } else if (float_rows) {
      // Each activation vector loaded once for all the rows, as the grouped blocks above.
      for (uint i = 0; i < len; i += 8) {
        vec4 a, b;
        tile8(i, a, b);
        [[unroll]] for (uint r = 0; r < ROWS; ++r) {
          if (WEIGHT_FORMAT == 0) {
            const uint at = ((row_off[r] >> 2) + base + i) >> 2;
            acc[r] += uintBitsToFloat(weight_vec4(at)) * a + uintBitsToFloat(weight_vec4(at + 1)) * b;
          } else {
            const uvec4 u = weight_vec4(((row_off[r] >> 2) + (base + i) / 2) >> 2);
            acc[r] += half_pair4(u.x, u.y) * a + half_pair4(u.z, u.w) * b;
          }
        }
      }
    } else {
      [[unroll]] for (uint r = 0; r < ROWS; ++r) acc[r] += row_dot(row_off[r], base, len);
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
