// Matrix-vector product out[r] = W[r] . x for one weight format, and the token-embedding row
// lookup. Defines (build options):
//   WEIGHT_FORMAT  ggml type id: 0 f32, 1 f16, 30 bf16, 8 q8_0, 2 q4_0 (16-bit formats are read as
//                  storage and widened: the arithmetic is f32 everywhere)
//   WG_X           workgroup size (a power of two)
//   TILE           activation elements held in local memory per pass (n_in for the whole vector;
//                  a multiple of 32 otherwise)
//   ACT_F16        1: the local activation tile is stored as f16
//   ROWS           rows per workgroup (they share each loaded tile)
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
#define TILE_STORE(t, i, v) vstore_half((v), (i), (t))
#else
#define TILE_T float
#define TILE_LOAD(t, i) ((t)[i])
#define TILE_STORE(t, i, v) ((t)[i] = (v))
#endif

inline float bf16_to_f32(ushort b) { return as_float(((uint)b) << 16); }

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

// Dot product of the row's elements [base, base + len) with the tile.
inline float partial_dot(const __global uchar* row, uint base, uint len,
                         const __local TILE_T* tile, uint lid) {
  float acc = 0.0f;
#if WEIGHT_FORMAT == 0 || WEIGHT_FORMAT == 1 || WEIGHT_FORMAT == 30
  for (uint i = lid; i < len; i += WG_X) acc += weight_at(row, base + i) * TILE_LOAD(tile, i);
#elif WEIGHT_FORMAT == 8
  const uint first = base / QK;
  for (uint b = lid; b < len / QK; b += WG_X) {
    const __global uchar* blk = row + (first + b) * 34u;
    const float d = vload_half(0, (const __global half*)blk);
    const __global char* q = (const __global char*)(blk + 2);
    float s = 0.0f;
    for (uint j = 0; j < QK; ++j) s += (float)q[j] * TILE_LOAD(tile, b * QK + j);
    acc += d * s;
  }
#elif WEIGHT_FORMAT == 2
  const uint first = base / QK;
  for (uint b = lid; b < len / QK; b += WG_X) {
    const __global uchar* blk = row + (first + b) * 18u;
    const float d = vload_half(0, (const __global half*)blk);
    const __global uchar* q = blk + 2;
    float s = 0.0f;
    for (uint j = 0; j < QK / 2; ++j) {
      const uchar v = q[j];
      s += (float)((int)(v & 15u) - 8) * TILE_LOAD(tile, b * QK + j);
      s += (float)((int)(v >> 4) - 8) * TILE_LOAD(tile, b * QK + j + QK / 2);
    }
    acc += d * s;
  }
#endif
  return acc;
}

__kernel void matvec(__global const uchar* w, __global float* act, MatvecParams p,
                     __local float* lmem) {
  __local float* red = lmem;
  __local TILE_T* tile = (__local TILE_T*)(lmem + WG_X);
  const uint lid = get_local_id(0);
  const uint row0 = get_group_id(0) * ROWS;
  const ulong row_bytes = ROW_BYTES(p.n_in);
  float acc[ROWS];
  for (uint r = 0; r < ROWS; ++r) acc[r] = 0.0f;

  for (uint base = 0; base < p.n_in; base += TILE) {
    const uint len = min((uint)TILE, p.n_in - base);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint i = lid; i < len; i += WG_X) TILE_STORE(tile, i, act[p.x_off + base + i]);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint r = 0; r < ROWS; ++r) {
      const uint row = row0 + r;
      if (row < p.n_out) acc[r] += partial_dot(w + row * row_bytes, base, len, tile, lid);
    }
  }
  for (uint r = 0; r < ROWS; ++r) {
    red[lid] = acc[r];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint s = WG_X / 2; s > 0; s >>= 1) {
      if (lid < s) red[lid] += red[lid + s];
      barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0 && row0 + r < p.n_out) act[p.out_off + row0 + r] = red[0];
    barrier(CLK_LOCAL_MEM_FENCE);
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
