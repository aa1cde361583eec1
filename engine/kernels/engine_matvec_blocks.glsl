// Matrix-vector product out[r] = W[r] . x (MODE 0), or the token-embedding row lookup (MODE 1),
// for a block type whose decoder (core/kernels/types/<type>.glsl) the generated wrapper includes
// before this body, with the weights `w[]` at binding 0. The same specialization constants and
// push constants as engine_matvec.comp (which keeps its own vector paths for the five types it
// was tuned for): 0 workgroup; 3 WEIGHT_FORMAT; 4 TILE activation elements per pass (whole
// blocks); 5 ACT_F16; 6 ROWS per invocation; 7 TILE_WORDS shared words for the tile; 8 RED
// reduction scratch; 9 MODE; 10 ACCUMULATE.
layout(local_size_x_id = 0) in;
layout(constant_id = 3) const uint WEIGHT_FORMAT = 12;
layout(constant_id = 4) const uint TILE = 256;
layout(constant_id = 5) const uint ACT_F16 = 0;
layout(constant_id = 6) const uint ROWS = 1;
layout(constant_id = 7) const uint TILE_WORDS = 256;
layout(constant_id = 8) const uint RED = 64;
layout(constant_id = 9) const uint MODE = 0;
layout(constant_id = 10) const uint ACCUMULATE = 0;

layout(std430, binding = 1) buffer A { float act[]; };
layout(push_constant) uniform Params {
  uint n_in;
  uint n_out;
  uint x_off;
  uint out_off;
  uint row;
} p;

// The activation tile as 16-byte vectors: CPU drivers pay per shared load, not per byte.
shared uvec4 tile[TILE_WORDS / 4];
shared float red[RED];

// Elements [i, i + 4) of the tile, i a multiple of 4.
vec4 tile4(uint i) {
  if (ACT_F16 != 0) {
    uvec4 v = tile[i >> 3];
    return (i & 4u) != 0u ? vec4(unpackHalf2x16(v.z), unpackHalf2x16(v.w))
                          : vec4(unpackHalf2x16(v.x), unpackHalf2x16(v.y));
  }
  return uintBitsToFloat(tile[i >> 2]);
}

void load_tile(uint base, uint len) {
  uint lid = gl_LocalInvocationID.x;
  if (ACT_F16 != 0) {
    for (uint j = lid; j < len / 2; j += gl_WorkGroupSize.x) {
      uint at = p.x_off + base + 2 * j;
      tile[j >> 2][j & 3u] = packHalf2x16(vec2(act[at], act[at + 1]));
    }
  } else {
    for (uint j = lid; j < len; j += gl_WorkGroupSize.x) {
      tile[j >> 2][j & 3u] = floatBitsToUint(act[p.x_off + base + j]);
    }
  }
}

// The dot product of one row's blocks covering [base, base + len) with the tile, as 4 lanes.
vec4 row_dot(uint row_off, uint base, uint len) {
  vec4 acc = vec4(0.0);
  uint off = row_off + (base / BLOCK_ELEMS) * BLOCK_BYTES;
  for (uint b = 0; b < len; b += BLOCK_ELEMS, off += BLOCK_BYTES) {
    // Unrolled, each chunk index is a constant: a k-quant sub-block's scale and shifts fold.
    [[unroll]] for (uint c = 0; c < BLOCK_ELEMS / 16; ++c) {
      mat4 v = decode16(off, c);
      uint t = b + 16 * c;
      acc += v[0] * tile4(t) + v[1] * tile4(t + 4) + v[2] * tile4(t + 8) + v[3] * tile4(t + 12);
    }
  }
  return acc;
}

void embed() {
  uint i = gl_GlobalInvocationID.x;
  if (i >= p.n_in) return;
  uint row_off = p.row * (p.n_in / BLOCK_ELEMS * BLOCK_BYTES);
  act[p.out_off + i] = value_at(row_off + (i / BLOCK_ELEMS) * BLOCK_BYTES, i % BLOCK_ELEMS);
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
  uint rb = p.n_in / BLOCK_ELEMS * BLOCK_BYTES;
  vec4 acc[8];
  [[unroll]] for (uint r = 0; r < 8; ++r) acc[r] = vec4(0.0);
  for (uint base = 0; base < p.n_in; base += TILE) {
    uint len = min(TILE, p.n_in - base);
    barrier();
    load_tile(base, len);
    barrier();
    [[unroll]] for (uint r = 0; r < 8; ++r) {
      if (r < ROWS) acc[r] += row_dot(min(row0 + r, p.n_out - 1) * rb, base, len);
    }
  }
  // The reduction scratch stages this invocation's results (it is part of the variant's shared
  // memory, which the planner counts).
  [[unroll]] for (uint r = 0; r < 8; ++r) {
    if (r < ROWS) {
      red[lid] = dot(acc[r], vec4(1.0));
      if (row0 + r < p.n_out) {
        if (ACCUMULATE != 0) {
          act[p.out_off + row0 + r] += red[lid];
        } else {
          act[p.out_off + row0 + r] = red[lid];
        }
      }
    }
  }
}
