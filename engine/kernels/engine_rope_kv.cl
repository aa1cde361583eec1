// Rotary embedding of q (in place) and k, then k and v into the KV cache at one position.
// Pairs (2i, 2i + 1) of each head rotate by the angle whose cos/sin the table holds for this
// position (table[2i] = cos, table[2i + 1] = sin, for i < rope_dims / 2).
// KV_F16: the cache holds f16 (vstore_half: storage only, no f16 arithmetic needed).
typedef struct {
  uint q_off;
  uint k_off;
  uint v_off;
  uint n_q_pairs;   // n_head * head_dim / 2
  uint n_kv_pairs;  // n_head_kv * head_dim / 2
  uint head_dim;
  uint rope_dims;
  uint cache_off;   // element index of this layer and position in the cache
} RopeParams;

inline float2 rotate(float2 v, __global const float* table, uint pair, uint head_dim,
                     uint rope_dims) {
  const uint i = pair % (head_dim / 2);
  if (2 * i >= rope_dims) return v;
  const float c = table[2 * i], s = table[2 * i + 1];
  return (float2)(v.x * c - v.y * s, v.x * s + v.y * c);
}

__kernel void rope_kv(__global float* act, __global uchar* k_cache, __global uchar* v_cache,
                      __global const float* table, RopeParams p) {
  const uint g = get_global_id(0);
  if (g < p.n_q_pairs) {
    const uint at = p.q_off + 2 * g;
    const float2 r = rotate((float2)(act[at], act[at + 1]), table, g, p.head_dim, p.rope_dims);
    act[at] = r.x;
    act[at + 1] = r.y;
    return;
  }
  const uint j = g - p.n_q_pairs;
  if (j >= p.n_kv_pairs) return;
  const float2 k = rotate((float2)(act[p.k_off + 2 * j], act[p.k_off + 2 * j + 1]), table, j,
                          p.head_dim, p.rope_dims);
  const float2 v = (float2)(act[p.v_off + 2 * j], act[p.v_off + 2 * j + 1]);
  const uint at = p.cache_off + 2 * j;
#if KV_F16
  vstore_half2(k, 0, (__global half*)k_cache + at);
  vstore_half2(v, 0, (__global half*)v_cache + at);
#else
  vstore2(k, 0, (__global float*)k_cache + at);
  vstore2(v, 0, (__global float*)v_cache + at);
#endif
}
