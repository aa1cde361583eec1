// Rotary embedding of q (in place) and k, then k and v into the KV cache, for every token of a
// pass (token t = group y: its activations at t * stride, its angles at table row t, its position
// and sequence at pass[2t], pass[2t + 1]). A table row holds the position's angles: table[2i] =
// cos, table[2i + 1] = sin, i < rope_dims / 2. The token's K and V go to slot pos % ring of its
// sequence's cache for this layer.
// NEOX 0 (llama): pair i of a head is elements (2i, 2i + 1); NEOX 1 (qwen2, qwen3, phi3): pair i
// is (i, i + rope_dims / 2). Elements past rope_dims are not turned.
// Work-item g < n_q_pairs turns one pair of q in place (it reads and writes both elements);
// work-item n_q_pairs + j writes cache elements (2j, 2j + 1), each the turned value of k read
// from the activations (never written here), so no work-item reads what another writes.
// KV_F16: the cache holds f16 (vstore_half: storage only, no f16 arithmetic needed).
// KV_WRITE 0 (a quantized cache, or K and V of different types): k is turned in place like q and
// nothing is written here; engine_kv_store.cl writes the cache after the rotation.
typedef struct {
  uint q_off;
  uint k_off;
  uint v_off;
  uint n_q_pairs;   // n_head * head_dim / 2
  uint n_kv_pairs;  // n_head_kv * head_dim / 2
  uint head_dim;
  uint rope_dims;
  uint layer_off;   // element index of this layer's slot 0 in sequence 0's cache
  uint neox;
  uint stride;      // floats between two tokens' activations
  uint ring;        // slots of this layer
  uint seq_stride;  // elements between two sequences' caches
} RopeParams;

// Element e of one head after the rotation: its pair is (e, e + step) or (e - step, e).
inline float turned(__global const float* head, uint e, __global const float* table, RopeParams p) {
  if (e >= p.rope_dims) return head[e];
  const uint step = p.neox ? p.rope_dims / 2 : 1;
  const uint i = p.neox ? e % (p.rope_dims / 2) : e / 2;
  const bool first = p.neox ? e < p.rope_dims / 2 : e % 2 == 0;
  const float c = table[2 * i], s = table[2 * i + 1];
  return first ? head[e] * c - head[e + step] * s : head[e - step] * s + head[e] * c;
}

__kernel void rope_kv(__global float* act, __global uchar* k_cache, __global uchar* v_cache,
                      __global const float* tables, __global const uint* pass, RopeParams p) {
  const uint g = get_global_id(0);
  const uint t = get_global_id(1);
  act += t * p.stride;
  __global const float* table = tables + t * p.rope_dims;
  const uint half_head = p.head_dim / 2;
  if (g < p.n_q_pairs) {
    const uint i = g % half_head;
    if (2 * i >= p.rope_dims) return;
    const uint head = p.q_off + (g / half_head) * p.head_dim;
    const uint a = head + (p.neox ? i : 2 * i), b = head + (p.neox ? i + p.rope_dims / 2 : 2 * i + 1);
    const float c = table[2 * i], s = table[2 * i + 1];
    const float x = act[a], y = act[b];
    act[a] = x * c - y * s;
    act[b] = x * s + y * c;
    return;
  }
  const uint j = g - p.n_q_pairs;
  if (j >= p.n_kv_pairs) return;
#if !KV_WRITE
  const uint i = j % half_head;
  if (2 * i >= p.rope_dims) return;
  const uint kh = p.k_off + (j / half_head) * p.head_dim;
  const uint a = kh + (p.neox ? i : 2 * i), b = kh + (p.neox ? i + p.rope_dims / 2 : 2 * i + 1);
  const float c = table[2 * i], s = table[2 * i + 1];
  const float x = act[a], y = act[b];
  act[a] = x * c - y * s;
  act[b] = x * s + y * c;
  return;
#endif
  const uint head = (j / half_head) * p.head_dim, e = 2 * (j % half_head);
  __global const float* k_head = act + p.k_off + head;
  const float2 k = (float2)(turned(k_head, e, table, p), turned(k_head, e + 1, table, p));
  const float2 v = (float2)(act[p.v_off + head + e], act[p.v_off + head + e + 1]);
  const uint slot = pass[2 * t] % p.ring;
  const uint at = pass[2 * t + 1] * p.seq_stride + p.layer_off + slot * 2 * p.n_kv_pairs + head + e;
#if KV_F16
  vstore_half2(k, 0, (__global half*)k_cache + at);
  vstore_half2(v, 0, (__global half*)v_cache + at);
#else
  vstore2(k, 0, (__global float*)k_cache + at);
  vstore2(v, 0, (__global float*)v_cache + at);
#endif
}
