// Matrix-vector product out[r] = W[r] . x for one weight format, and the token-embedding row
// lookup. Defines (build options):
//   WEIGHT_FORMAT  ggml type id: 0 f32, 1 f16, 30 bf16, 8 q8_0, 2 q4_0 (16-bit formats are read as
//                  storage and widened: the arithmetic is f32 everywhere)
//   WG_X           workgroup size (a power of two)
//   TILE           activation elements held in local memory per pass (n_in for the whole vector;
//                  a multiple of 32 otherwise)
//   ACT_F16        1: the local activation tile is stored as f16
//   ACCUMULATE     1: out[r] += W[r] . x (a residual add in the same pass); 0: out[r] = W[r] . x
//   ROWS           rows per work-item (a workgroup computes WG_X * ROWS rows and shares each
//                  loaded tile)
// Local memory (the dynamic __local argument): WG_X floats of reduction scratch, then the tile;
// the planner's local_mem_bytes() gives the same number.
typedef struct {
  uint n_in;
  uint n_out;
  uint x_off;
  uint out_off;
  uint row;
} MatvecParams;

#define QK 32

#if WEIGHT_FORMAT == 0
#define ROW_BYTES(n) ((n) * 4u)
#elif WEIGHT_FORMAT == 1 || WEIGHT_FORMAT == 30
#define ROW_BYTES(n) ((n) * 2u)
#elif WEIGHT_FORMAT == 8
#define ROW_BYTES(n) ((n) / QK * 34u)
#elif WEIGHT_FORMAT == 2
#define ROW_BYTES(n) ((n) / QK * 18u)
#endif

#if ACT_F16
#define TILE_T half
#define TILE_LOAD(t, i) vload_half((i), (t))
#define TILE_LOAD16(t, i) vload_half16(0, (t) + (i))
#define TILE_STORE(t, i, v) vstore_half((v), (i), (t))
#else
#define TILE_T float
#define TILE_LOAD(t, i) ((t)[i])
#define TILE_LOAD16(t, i) vload16(0, (t) + (i))
#define TILE_STORE(t, i, v) ((t)[i] = (v))
#endif

inline float bf16_to_f32(ushort b) { return as_float(((uint)b) << 16); }

// An f16 block scale by integer operations (exact for every value; PoCL's vload_half costs as much
// as the rest of a q8_0 block).
inline float f16_scale(const __global uchar* blk) {
  const uint h = *(const __global ushort*)blk;
  const uint em = h & 0x7fffu;
  float f = as_float((em << 13) + 0x38000000u);          // normal: rebias the exponent by 112
  f = em < 0x400u ? (float)em * 0x1.0p-24f : f;          // subnormal: em * 2^-24
  f = em >= 0x7c00u ? as_float((em << 13) | 0x7f800000u) : f;  // inf, nan
  return as_float(as_uint(f) | ((h & 0x8000u) << 16));
}

// One weight element of a float format (element i of the row).
inline float weight_at(const __global uchar* row, uint i) {
#if WEIGHT_FORMAT == 0
  return ((const __global float*)row)[i];
#elif WEIGHT_FORMAT == 1
  return vload_half(i, (const __global half*)row);
#elif WEIGHT_FORMAT == 30
  return bf16_to_f32(((const __global ushort*)row)[i]);
#else
  return 0.0f;
#endif
}

// Sixteen weight elements [i, i + 16) of a float-format row.
inline float16 weight16(const __global uchar* row, uint i) {
#if WEIGHT_FORMAT == 0
  return vload16(0, (const __global float*)row + i);
#elif WEIGHT_FORMAT == 1
  return vload_half16(0, (const __global half*)row + i);
#elif WEIGHT_FORMAT == 30
  return as_float16(convert_uint16(vload16(0, (const __global ushort*)row + i)) << 16);
#else
  return (float16)(0.0f);
#endif
}

// The dot product of one row's elements [base, base + len) with the tile, as 16 lanes. One
// work-item walks its row from start to end: CPU drivers read it as one sequential stream.
inline float16 row_dot(const __global uchar* row, uint base, uint len, const __local TILE_T* tile) {
  float16 acc = (float16)(0.0f);
#if WEIGHT_FORMAT == 0 || WEIGHT_FORMAT == 1 || WEIGHT_FORMAT == 30
  uint i = 0;
  for (; i + 16 <= len; i += 16) acc += weight16(row, base + i) * TILE_LOAD16(tile, i);
  for (; i < len; ++i) acc.s0 += weight_at(row, base + i) * TILE_LOAD(tile, i);
#elif WEIGHT_FORMAT == 8
  const __global uchar* blk = row + (base / QK) * 34u;
  for (uint b = 0; b < len; b += QK, blk += 34u) {
    const float d = f16_scale(blk);
    const __global char* q = (const __global char*)(blk + 2);
    const float16 s = convert_float16(vload16(0, q)) * TILE_LOAD16(tile, b) +
                      convert_float16(vload16(1, q)) * TILE_LOAD16(tile, b + 16);
    acc += d * s;
  }
#elif WEIGHT_FORMAT == 2
  const __global uchar* blk = row + (base / QK) * 18u;
  for (uint b = 0; b < len; b += QK, blk += 18u) {
    const float d = f16_scale(blk);
    const uchar16 v = vload16(0, blk + 2);
    const float16 lo = convert_float16(convert_char16(v & (uchar)15) - (char)8);
    const float16 hi = convert_float16(convert_char16(v >> (uchar)4) - (char)8);
    const float16 s = lo * TILE_LOAD16(tile, b) + hi * TILE_LOAD16(tile, b + 16);
    acc += d * s;
  }
#endif
  return acc;
}

inline float sum16(float16 v) {
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
  const uint lid = get_local_id(0);
  const uint row0 = (uint)get_global_id(0) * ROWS;
  const ulong row_bytes = ROW_BYTES(p.n_in);
  float16 acc[ROWS];
  for (uint r = 0; r < ROWS; ++r) acc[r] = (float16)(0.0f);

  for (uint base = 0; base < p.n_in; base += TILE) {
    const uint len = min((uint)TILE, p.n_in - base);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint i = lid; i < len; i += WG_X) TILE_STORE(tile, i, act[p.x_off + base + i]);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint r = 0; r < ROWS; ++r) {
      const uint row = min(row0 + r, p.n_out - 1);
      acc[r] += row_dot(w + row * row_bytes, base, len, tile);
    }
  }
  // The reduction scratch stages this work-item's results (it is part of the variant's local
  // memory, which the planner counts).
  for (uint r = 0; r < ROWS; ++r) {
    red[lid] = sum16(acc[r]);
#if ACCUMULATE
    if (row0 + r < p.n_out) act[p.out_off + row0 + r] += red[lid];
#else
    if (row0 + r < p.n_out) act[p.out_off + row0 + r] = red[lid];
#endif
  }
}

// act[out_off + i] = W[row][i]: the token embedding, dequantized.
__kernel void embed(__global const uchar* w, __global float* act, MatvecParams p) {
  const uint i = get_global_id(0);
  if (i >= p.n_in) return;
  const __global uchar* row = w + (ulong)p.row * ROW_BYTES(p.n_in);
#if WEIGHT_FORMAT == 8
  const __global uchar* blk = row + (i / QK) * 34u;
  act[p.out_off + i] =
      vload_half(0, (const __global half*)blk) * (float)((const __global char*)(blk + 2))[i % QK];
#elif WEIGHT_FORMAT == 2
  const __global uchar* blk = row + (i / QK) * 18u;
  const uint j = i % QK;
  const uchar v = blk[2 + (j % (QK / 2))];
  const int q = j < QK / 2 ? (int)(v & 15u) : (int)(v >> 4);
  act[p.out_off + i] = vload_half(0, (const __global half*)blk) * (float)(q - 8);
#else
  act[p.out_off + i] = weight_at(row, i);
#endif
}
