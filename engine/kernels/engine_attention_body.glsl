// Attention of one query head of one token (workgroup (h, t)) over its sequence's positions
// first..pos of the KV cache (token t's position and sequence are pass[2t], pass[2t + 1];
// position u in slot u % ring of the sequence's cache for this layer; a sliding-window layer,
// window > 0, starts at pos + 1 - window), grouped-query,
// with the scores soft-capped (softcap * tanh(score / softcap)) when softcap > 0, and head h's
// sink logit sinks[h] in the softmax's denominator when `sinks` (gpt-oss). Scores pass through a shared tile of SCORE_TILE positions with a running
// (online) softmax, so any context fits. Constants: 0 workgroup; 3 HEAD_DIM; 4 SCORE_TILE;
// 5 K_TYPE, 10 V_TYPE (ggml type ids: 0 f32, 1 f16, else a quantized type of
// engine_kv_types.glsl); 6 ACT_F16; 7 DIMS_PER_ITEM (ceil(HEAD_DIM / workgroup), at most 8); 8 Q_WORDS
// (HEAD_DIM, or HEAD_DIM / 2 with ACT_F16); 9 RED (= workgroup); 11 V_VEC (4: the first
// HEAD_DIM / 4 invocations sum V four dimensions each, for CPU drivers; needs HEAD_DIM / 4 <=
// workgroup; 1: one dimension per invocation, DIMS_PER_ITEM of them).
layout(local_size_x_id = 0) in;
layout(constant_id = 3) const uint HEAD_DIM = 64;
layout(constant_id = 4) const uint SCORE_TILE = 64;
layout(constant_id = 5) const uint K_TYPE = 0;
layout(constant_id = 6) const uint ACT_F16 = 0;
layout(constant_id = 7) const uint DIMS_PER_ITEM = 1;
layout(constant_id = 8) const uint Q_WORDS = 64;
layout(constant_id = 9) const uint RED = 64;
layout(constant_id = 10) const uint V_TYPE = 0;
layout(constant_id = 11) const uint V_VEC = 1;
layout(std430, binding = 0) buffer A { float act[]; };
#ifdef KV_AS_TEXELS
// The caches (bindings 1 and 2) read as texels of 32-bit words (bindings 5 and 6, their views:
// backends::KernelSource::texel_views), for CPU Vulkan drivers (engine_attention_texels.comp):
// llvmpipe loads a storage buffer inside a loop lane by lane and fetches texels as one gather.
layout(binding = 5) uniform usamplerBuffer k_texels;
layout(binding = 6) uniform usamplerBuffer v_texels;
uint k_word(uint i) { return texelFetch(k_texels, int(i)).x; }
uint v_word(uint i) { return texelFetch(v_texels, int(i)).x; }
#else
layout(std430, binding = 1) readonly buffer K { uint k_cache[]; };
layout(std430, binding = 2) readonly buffer V { uint v_cache[]; };
uint k_word(uint i) { return k_cache[i]; }
uint v_word(uint i) { return v_cache[i]; }
#endif
layout(std430, binding = 3) readonly buffer P { uint pass[]; };
layout(std430, binding = 4) readonly buffer S { float sink_logits[]; };
layout(push_constant) uniform Params {
  uint q_off;
  uint out_off;
  uint group;
  uint n_kv;
  uint layer_off;
  uint window;
  float scale;
  uint stride;
  uint ring;
  float softcap;
  uint seq_stride;
  uint sinks;
} p;

shared float red[RED];
shared uint qv[Q_WORDS];
shared float scores[SCORE_TILE];

uint reading_v = 0u;  // which cache the quantized decoders read
uint kv_word(uint i) { return reading_v != 0u ? v_word(i) : k_word(i); }
#include "engine_kv_types.glsl"

float kv_at(uint which, uint i) {
  const uint type = which == 0 ? K_TYPE : V_TYPE;
  if (type > 1u) {
    reading_v = which;
    return kv_value(type, (i / 32u) * kv_block_bytes(type), i % 32u);
  }
  uint v = which == 0 ? k_word(type == 1u ? i >> 1 : i) : v_word(type == 1u ? i >> 1 : i);
  if (type == 1u) return unpackHalf2x16((i & 1u) != 0u ? v >> 16 : v).x;
  return uintBitsToFloat(v);
}

vec4 v_quad(uint i) {  // V elements i .. i + 3 (i a multiple of 4)
  if (V_TYPE > 1u) {
    return vec4(kv_at(1u, i), kv_at(1u, i + 1u), kv_at(1u, i + 2u), kv_at(1u, i + 3u));
  }
  if (V_TYPE == 1u) {
    return vec4(unpackHalf2x16(v_word(i >> 1)), unpackHalf2x16(v_word((i >> 1) + 1u)));
  }
  return uintBitsToFloat(uvec4(v_word(i), v_word(i + 1u), v_word(i + 2u), v_word(i + 3u)));
}

vec2 kv_pair(uint i) {  // K elements i, i + 1 (i even)
  if (K_TYPE > 1u) return vec2(kv_at(0u, i), kv_at(0u, i + 1u));
  if (K_TYPE == 1u) return unpackHalf2x16(k_word(i >> 1));
  return vec2(uintBitsToFloat(k_word(i)), uintBitsToFloat(k_word(i + 1)));
}

vec2 q_pair(uint j) {
  if (ACT_F16 != 0) return unpackHalf2x16(qv[j]);
  return vec2(uintBitsToFloat(qv[2 * j]), uintBitsToFloat(qv[2 * j + 1]));
}

void main() {
  uint lid = gl_LocalInvocationID.x;
  uint wg = gl_WorkGroupSize.x;
  uint h = gl_WorkGroupID.x;
  uint t = gl_WorkGroupID.y;
  uint n_pos = pass[2 * t] + 1;
  uint first = p.window > 0 && n_pos > p.window ? n_pos - p.window : 0;
  uint layer_off = pass[2 * t + 1] * p.seq_stride + p.layer_off;
  uint tok = t * p.stride;
  uint kv_head_off = (h / p.group) * HEAD_DIM;
  uint q_base = tok + p.q_off + h * HEAD_DIM;
  if (ACT_F16 != 0) {
    for (uint j = lid; j < HEAD_DIM / 2; j += wg) {
      qv[j] = packHalf2x16(vec2(act[q_base + 2 * j], act[q_base + 2 * j + 1]));
    }
  } else {
    for (uint i = lid; i < HEAD_DIM; i += wg) qv[i] = floatBitsToUint(act[q_base + i]);
  }

  float m = -1.0 / 0.0, l = 0.0;
  // Bounded by DIMS_PER_ITEM itself and unrolled: an array indexed by a variable is a chain of
  // branches on llvmpipe.
  float acc[DIMS_PER_ITEM];
  [[unroll]] for (uint k = 0; k < DIMS_PER_ITEM; ++k) acc[k] = 0.0;
  vec4 acc4 = vec4(0.0);

  for (uint t0 = first; t0 < n_pos; t0 += SCORE_TILE) {
    uint len = min(SCORE_TILE, n_pos - t0);
    barrier();
    float local_max = -1.0 / 0.0;
    for (uint tt = lid; tt < len; tt += wg) {
      uint base = layer_off + ((t0 + tt) % p.ring) * p.n_kv + kv_head_off;
      float d = 0.0;
      for (uint j = 0; j < HEAD_DIM / 2; ++j) d += dot(q_pair(j), kv_pair(base + 2 * j));
      float score = d * p.scale;
      scores[tt] = p.softcap > 0.0 ? p.softcap * tanh(score / p.softcap) : score;
      local_max = max(local_max, scores[tt]);
    }
    red[lid] = local_max;
    barrier();
    for (uint s = wg / 2; s > 0; s >>= 1) {
      if (lid < s) red[lid] = max(red[lid], red[lid + s]);
      barrier();
    }
    float new_m = max(m, red[0]);
    float c = exp(m - new_m);
    barrier();
    float local_sum = 0.0;
    for (uint tt = lid; tt < len; tt += wg) {
      scores[tt] = exp(scores[tt] - new_m);
      local_sum += scores[tt];
    }
    red[lid] = local_sum;
    barrier();
    for (uint s = wg / 2; s > 0; s >>= 1) {
      if (lid < s) red[lid] += red[lid + s];
      barrier();
    }
    l = l * c + red[0];
    m = new_m;
    if (V_VEC == 4u) {
      // Invocation i < HEAD_DIM / 4 sums dimensions 4i .. 4i + 3: one score load serves four, and
      // the rest of the workgroup's SIMD groups skip the loop (a CPU driver loads lane by lane).
      if (lid < HEAD_DIM / 4u) {
        vec4 a = acc4 * c;
        for (uint tt = 0; tt < len; ++tt) {
          a += scores[tt] *
               v_quad(layer_off + ((t0 + tt) % p.ring) * p.n_kv + kv_head_off + 4u * lid);
        }
        acc4 = a;
      }
    } else {
      [[unroll]] for (uint k = 0; k < DIMS_PER_ITEM; ++k) {
        uint d = lid + k * wg;
        if (d >= HEAD_DIM) continue;
        float a = acc[k] * c;
        for (uint tt = 0; tt < len; ++tt) {
          a += scores[tt] * kv_at(1, layer_off + ((t0 + tt) % p.ring) * p.n_kv + kv_head_off + d);
        }
        acc[k] = a;
      }
    }
  }
  if (p.sinks != 0) {
    float sink = sink_logits[h], new_m = max(m, sink), c = exp(m - new_m);
    l = l * c + exp(sink - new_m);
    [[unroll]] for (uint k = 0; k < DIMS_PER_ITEM; ++k) acc[k] *= c;
    acc4 *= c;
  }
  if (V_VEC == 4u) {
    if (lid < HEAD_DIM / 4u) {
      const uint at = tok + p.out_off + h * HEAD_DIM + 4u * lid;
      [[unroll]] for (uint k = 0u; k < 4u; ++k) act[at + k] = acc4[k] / l;
    }
    return;
  }
  [[unroll]] for (uint k = 0; k < DIMS_PER_ITEM; ++k) {
    uint d = lid + k * wg;
    if (d < HEAD_DIM) act[tok + p.out_off + h * HEAD_DIM + d] = acc[k] / l;
  }
}
