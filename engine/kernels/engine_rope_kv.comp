#version 450
// Rotary embedding of q (in place) and k, then k and v into the KV cache, for every token of a
// pass (token t = workgroup y: activations at t * stride, angles at table row t, position and
// sequence at pass[2t], pass[2t + 1]; K and V into slot pos % ring of its sequence's cache). A
// table row holds cos/sin of the position's angles (table[2i], table[2i + 1]). neox 0 (llama): pair
// i of a head is elements (2i, 2i + 1); neox 1 (qwen2, qwen3, phi3): (i, i + rope_dims / 2).
// Invocation g < n_q_pairs turns one pair of q in place; invocation n_q_pairs + j writes cache
// elements (2j, 2j + 1) from k as read (never written here). Constants: 0 workgroup, 3 KV_F16
// (the cache holds f16 pairs packed in words: storage only).
layout(local_size_x_id = 0) in;
layout(constant_id = 3) const uint KV_F16 = 0;
// 4 KV_WRITE 0 (a quantized cache, or K and V of different types): k is turned in place like q
// and nothing is written here; engine_kv_store.comp writes the cache after the rotation.
layout(constant_id = 4) const uint KV_WRITE = 1;
layout(std430, binding = 0) buffer A { float act[]; };
layout(std430, binding = 1) buffer K { uint k_cache[]; };
layout(std430, binding = 2) buffer V { uint v_cache[]; };
layout(std430, binding = 3) readonly buffer T { float table[]; };
layout(std430, binding = 4) readonly buffer P { uint pass[]; };
layout(push_constant) uniform Params {
  uint q_off;
  uint k_off;
  uint v_off;
  uint n_q_pairs;
  uint n_kv_pairs;
  uint head_dim;
  uint rope_dims;
  uint layer_off;
  uint neox;
  uint stride;
  uint ring;
  uint seq_stride;
} p;

// Element e of the head at act[head] after the rotation: its pair is (e, e + step) or
// (e - step, e).
float turned(uint head, uint e, uint tb) {
  if (e >= p.rope_dims) return act[head + e];
  uint step = p.neox != 0 ? p.rope_dims / 2 : 1;
  uint i = p.neox != 0 ? e % (p.rope_dims / 2) : e / 2;
  bool first = p.neox != 0 ? e < p.rope_dims / 2 : e % 2 == 0;
  float c = table[tb + 2 * i], s = table[tb + 2 * i + 1];
  return first ? act[head + e] * c - act[head + e + step] * s
               : act[head + e - step] * s + act[head + e] * c;
}

void main() {
  uint g = gl_GlobalInvocationID.x;
  uint t = gl_WorkGroupID.y;
  uint tok = t * p.stride;  // this token's activations
  uint tb = t * p.rope_dims;  // its table row
  uint half_head = p.head_dim / 2;
  if (g < p.n_q_pairs) {
    uint i = g % half_head;
    if (2 * i >= p.rope_dims) return;
    uint head = tok + p.q_off + (g / half_head) * p.head_dim;
    uint a = head + (p.neox != 0 ? i : 2 * i);
    uint b = head + (p.neox != 0 ? i + p.rope_dims / 2 : 2 * i + 1);
    float c = table[tb + 2 * i], s = table[tb + 2 * i + 1];
    float x = act[a], y = act[b];
    act[a] = x * c - y * s;
    act[b] = x * s + y * c;
    return;
  }
  uint j = g - p.n_q_pairs;
  if (j >= p.n_kv_pairs) return;
  if (KV_WRITE == 0) {
    uint i = j % half_head;
    if (2 * i >= p.rope_dims) return;
    uint head = tok + p.k_off + (j / half_head) * p.head_dim;
    uint a = head + (p.neox != 0 ? i : 2 * i);
    uint b = head + (p.neox != 0 ? i + p.rope_dims / 2 : 2 * i + 1);
    float c = table[tb + 2 * i], s = table[tb + 2 * i + 1];
    float x = act[a], y = act[b];
    act[a] = x * c - y * s;
    act[b] = x * s + y * c;
    return;
  }
  uint head = (j / half_head) * p.head_dim, e = 2 * (j % half_head);
  vec2 k = vec2(turned(tok + p.k_off + head, e, tb), turned(tok + p.k_off + head, e + 1, tb));
  vec2 v = vec2(act[tok + p.v_off + head + e], act[tok + p.v_off + head + e + 1]);
  uint slot = pass[2 * t] % p.ring;
  uint at = pass[2 * t + 1] * p.seq_stride + p.layer_off + slot * 2 * p.n_kv_pairs + head + e;
  if (KV_F16 != 0) {
    k_cache[at / 2] = packHalf2x16(k);
    v_cache[at / 2] = packHalf2x16(v);
  } else {
    k_cache[at] = floatBitsToUint(k.x);
    k_cache[at + 1] = floatBitsToUint(k.y);
    v_cache[at] = floatBitsToUint(v.x);
    v_cache[at + 1] = floatBitsToUint(v.y);
  }
}
