#version 450
// Rotary embedding of q (in place) and k, then k and v into the KV cache at one position; the
// table holds cos/sin of this position's angles (table[2i], table[2i + 1]). Constants: 0
// workgroup, 3 KV_F16 (the cache holds f16 pairs packed in words: storage only).
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
} p;

vec2 rotate(vec2 v, uint pair) {
  uint i = pair % (p.head_dim / 2);
  if (2 * i >= p.rope_dims) return v;
  float c = table[2 * i], s = table[2 * i + 1];
  return vec2(v.x * c - v.y * s, v.x * s + v.y * c);
}

void main() {
  uint g = gl_GlobalInvocationID.x;
  if (g < p.n_q_pairs) {
    uint at = p.q_off + 2 * g;
    vec2 r = rotate(vec2(act[at], act[at + 1]), g);
    act[at] = r.x;
    act[at + 1] = r.y;
    return;
  }
  uint j = g - p.n_q_pairs;
  if (j >= p.n_kv_pairs) return;
  vec2 k = rotate(vec2(act[p.k_off + 2 * j], act[p.k_off + 2 * j + 1]), j);
  vec2 v = vec2(act[p.v_off + 2 * j], act[p.v_off + 2 * j + 1]);
  uint at = p.cache_off + 2 * j;
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
