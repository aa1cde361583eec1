// Each token's K and V rows (k_off, v_off of its activations, already turned by rope and, for a
// quantized cache, by the Walsh-Hadamard rotation) into its sequence's cache slot pos % ring of
// this layer, in the caches' types: work-item (g, t) writes 32-element block g of K (g <
// n_blocks) or block g - n_blocks of V, as llama.cpp's set_rows does with the type's from_float
// (a quantized type's encode_block, core/kernels/types/<type>.cl, renamed k_ / v_ by
// core::opencl_kv_type_headers). Token t's position and sequence are pass[2t], pass[2t + 1].
// With a quantized K, work-items 2 * n_blocks + b also round block b of each token's Q in place to
// Q8_0's values, as llama.cpp's CPU attention takes Q (engine/reference/kv_rows.h
// round_query_q8_0: d = amax / 127 as f16, codes x * (127 / amax) to nearest even).
// Defines: K_TYPE, V_TYPE (ggml type ids: 0 f32, 1 f16, else quantized).
typedef struct {
  uint k_off;
  uint v_off;
  uint n_blocks;    // n_embd_kv / 32
  uint layer_off;   // element index of this layer's slot 0 in sequence 0's cache
  uint stride;      // floats between two tokens' activations
  uint ring;        // slots of this layer
  uint seq_stride;  // elements between two sequences' caches
  uint q_off;
  uint n_q_blocks;  // n_embd_q / 32 (0: Q is left as it is)
} KvStoreParams;

#define STORE_BLOCK(TYPE, ENCODE, BYTES, cache, block, x)                     \
  if (TYPE == 0) {                                                             \
    for (uint j = 0; j < 32; ++j) ((__global float*)(cache))[(block) * 32 + j] = x[j]; \
  } else if (TYPE == 1) {                                                      \
    for (uint j = 0; j < 32; ++j) vstore_half_rte(x[j], (block) * 32 + j, (__global half*)(cache)); \
  } else {                                                                     \
    ENCODE(x, (cache) + (block) * (BYTES));                                    \
  }

#if K_TYPE > 1
#define K_ENCODE k_encode_block
#define K_BLOCK_BYTES K_BYTES
#else
#define K_ENCODE(x, blk)
#define K_BLOCK_BYTES 0
#endif
#if V_TYPE > 1
#define V_ENCODE v_encode_block
#define V_BLOCK_BYTES V_BYTES
#else
#define V_ENCODE(x, blk)
#define V_BLOCK_BYTES 0
#endif

__kernel void kv_store(__global float* act, __global uchar* k_cache, __global uchar* v_cache,
                       __global const uint* pass, KvStoreParams p) {
  const uint g = get_global_id(0);
  const uint t = get_global_id(1);
  if (g >= 2 * p.n_blocks) {
    const uint qb = g - 2 * p.n_blocks;
    if (qb >= p.n_q_blocks) return;
    __global float* q = act + t * p.stride + p.q_off + qb * 32;
    float amax = 0.0f;
    for (uint j = 0; j < 32; ++j) amax = fmax(amax, fabs(q[j]));
    ushort bits;
    vstore_half_rte(amax / 127.0f, 0, (__private half*)&bits);
    const float d = vload_half(0, (__private const half*)&bits);
    const float id = amax != 0.0f ? 127.0f / amax : 0.0f;
    for (uint j = 0; j < 32; ++j) q[j] = rint(q[j] * id) * d;
    return;
  }
  const bool is_v = g >= p.n_blocks;
  const uint b = is_v ? g - p.n_blocks : g;
  __global const float* src = act + t * p.stride + (is_v ? p.v_off : p.k_off) + b * 32;
  float x[32];
  for (uint j = 0; j < 32; ++j) x[j] = src[j];
  const uint row = pass[2 * t + 1] * p.seq_stride + p.layer_off + (pass[2 * t] % p.ring) * p.n_blocks * 32;
  const uint block = row / 32 + b;
  if (is_v) {
    STORE_BLOCK(V_TYPE, V_ENCODE, V_BLOCK_BYTES, v_cache, block, x)
  } else {
    STORE_BLOCK(K_TYPE, K_ENCODE, K_BLOCK_BYTES, k_cache, block, x)
  }
}
