#version 450
// Rotary embedding of q (in place) and k, then k and v into the KV cache at one position; the
// table holds cos/sin of this position's angles (table[2i], table[2i + 1]). neox 0 (llama): pair
// i of a head is elements (2i, 2i + 1); neox 1 (qwen2, qwen3, phi3): (i, i + rope_dims / 2).
// Invocation g < n_q_pairs turns one pair of q in place; invocation n_q_pairs + j writes cache
// elements (2j, 2j + 1) from k as read (never written here). Constants: 0 workgroup, 3 KV_F16
// (the cache holds f16 pairs packed in words: storage only).
layout(local_size_x_id = 0) in;
layout(constant_id = 3) const uint KV_F16 = 0;
layout(std430, binding = 0) buffer A { float act[]; };
layout(std430, binding = 1) buffer K { uint k_cache[]; };
layout(std430, binding = 2) buffer V { uint v_cache[]; };
layout(std430, binding = 3) readonly buffer T { float table[]; };
layout(push_constant) uniform Params {
  uint q_off;
  uint k_off;
  uint v_off;
  uint n_q_pairs;
  uint n_kv_pairs;
  uint head_dim;
  uint rope_dims;
  uint cache_off;
  uint neox;
} p;

// Element e of the head at act[head] after the rotation: its pair is (e, e + step) or
// (e - step, e).
float turned(uint head, uint e) {
  if (e >= p.rope_dims) return act[head + e];
  uint step = p.neox != 0 ? p.rope_dims / 2 : 1;
  uint i = p.neox != 0 ? e % (p.rope_dims / 2) : e / 2;
  bool first = p.neox != 0 ? e < p.rope_dims / 2 : e % 2 == 0;
  float c = table[2 * i], s = table[2 * i + 1];
  return first ? act[head + e] * c - act[head + e + step] * s
               : act[head + e - step] * s + act[head + e] * c;
}

void main() {
  uint g = gl_GlobalInvocationID.x;
  uint half_head = p.head_dim / 2;
  if (g < p.n_q_pairs) {
    uint i = g % half_head;
    if (2 * i >= p.rope_dims) return;
    uint head = p.q_off + (g / half_head) * p.head_dim;
    uint a = head + (p.neox != 0 ? i : 2 * i);
    uint b = head + (p.neox != 0 ? i + p.rope_dims / 2 : 2 * i + 1);
    float c = table[2 * i], s = table[2 * i + 1];
    float x = act[a], y = act[b];
    act[a] = x * c - y * s;
    act[b] = x * s + y * c;
    return;
  }
  uint j = g - p.n_q_pairs;
  if (j >= p.n_kv_pairs) return;
  uint head = (j / half_head) * p.head_dim, e = 2 * (j % half_head);
  vec2 k = vec2(turned(p.k_off + head, e), turned(p.k_off + head, e + 1));
  vec2 v = vec2(act[p.v_off + head + e], act[p.v_off + head + e + 1]);
  uint at = p.cache_off + head + e;
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
