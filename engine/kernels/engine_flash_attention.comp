#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
// Flash attention, as engine_flash_attention.cl: workgroup (g, t) serves the GROUP query heads of
// KV head g for token t over its sequence's positions first..pos, K and V read TILE positions at
// a time into shared memory (dequantized once for the group), a running (online) softmax per
// head, the output divided by the sum at the end. Constants: 0 workgroup; 3 HEAD_DIM; 4 TILE;
// 5 GROUP; 6 K_TYPE, 7 V_TYPE (ggml type ids, engine_kv_types.glsl); 8 ACC (ceil(GROUP *
// HEAD_DIM / workgroup), at most 32); 9 Q_SIZE (GROUP * HEAD_DIM); 10 KV_SIZE (TILE * HEAD_DIM);
// 11 S_SIZE (GROUP * TILE).
layout(local_size_x_id = 0) in;
layout(constant_id = 3) const uint HEAD_DIM = 64;
layout(constant_id = 4) const uint TILE = 32;
layout(constant_id = 5) const uint GROUP = 1;
layout(constant_id = 6) const uint K_TYPE = 0;
layout(constant_id = 7) const uint V_TYPE = 0;
layout(constant_id = 8) const uint ACC = 1;
layout(constant_id = 9) const uint Q_SIZE = 64;
layout(constant_id = 10) const uint KV_SIZE = 2048;
layout(constant_id = 11) const uint S_SIZE = 32;
layout(std430, binding = 0) buffer A { float act[]; };
layout(std430, binding = 1) readonly buffer K { uint k_cache[]; };
layout(std430, binding = 2) readonly buffer V { uint v_cache[]; };
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
  uint sinks;  // 1: sink_logits holds one logit per query head (gpt-oss)
} p;

shared float qs[Q_SIZE];
shared float k_tile[KV_SIZE];
shared float v_tile[KV_SIZE];
shared float scores[S_SIZE];
shared float run_max[GROUP];
shared float run_sum[GROUP];
shared float corr[GROUP];

uint reading_v = 0u;  // which cache the quantized decoders read
uint kv_word(uint i) { return reading_v != 0u ? v_cache[i] : k_cache[i]; }
#include "engine_kv_types.glsl"

float kv_at(uint which, uint i) {
  const uint type = which == 0u ? K_TYPE : V_TYPE;
  if (type > 1u) {
    reading_v = which;
    return kv_value(type, (i / 32u) * kv_block_bytes(type), i % 32u);
  }
  uint v = which == 0u ? k_cache[type == 1u ? i >> 1 : i] : v_cache[type == 1u ? i >> 1 : i];
  if (type == 1u) return unpackHalf2x16((i & 1u) != 0u ? v >> 16 : v).x;
  return uintBitsToFloat(v);
}

void main() {
  const uint lid = gl_LocalInvocationID.x;
  const uint wg = gl_WorkGroupSize.x;
  const uint kvh = gl_WorkGroupID.x;
  const uint t = gl_WorkGroupID.y;
  const uint n_pos = pass[2u * t] + 1u;
  const uint first = p.window > 0u && n_pos > p.window ? n_pos - p.window : 0u;
  const uint layer_off = pass[2u * t + 1u] * p.seq_stride + p.layer_off;
  const uint kv_head_off = kvh * HEAD_DIM;
  const uint tok = t * p.stride;
  for (uint i = lid; i < GROUP * HEAD_DIM; i += wg) {
    qs[i] = act[tok + p.q_off + kvh * GROUP * HEAD_DIM + i];
  }
  for (uint g = lid; g < GROUP; g += wg) {
    run_max[g] = -1.0 / 0.0;
    run_sum[g] = 0.0;
  }
  // Bounded by ACC itself and unrolled: an array indexed by a variable is a chain of branches on
  // llvmpipe.
  float acc[ACC];
  [[unroll]] for (uint k = 0u; k < ACC; ++k) acc[k] = 0.0;

  for (uint t0 = first; t0 < n_pos; t0 += TILE) {
    const uint len = min(TILE, n_pos - t0);
    barrier();
    for (uint i = lid; i < len * HEAD_DIM; i += wg) {
      const uint row = layer_off + ((t0 + i / HEAD_DIM) % p.ring) * p.n_kv + kv_head_off;
      k_tile[i] = kv_at(0u, row + i % HEAD_DIM);
      v_tile[i] = kv_at(1u, row + i % HEAD_DIM);
    }
    barrier();
    for (uint i = lid; i < GROUP * len; i += wg) {
      const uint g = i / len, tt = i % len;
      float d = 0.0;
      for (uint e = 0u; e < HEAD_DIM; ++e) d += qs[g * HEAD_DIM + e] * k_tile[tt * HEAD_DIM + e];
      const float score = d * p.scale;
      scores[g * TILE + tt] = p.softcap > 0.0 ? p.softcap * tanh(score / p.softcap) : score;
    }
    barrier();
    for (uint g = lid; g < GROUP; g += wg) {
      float tile_max = -1.0 / 0.0;
      for (uint tt = 0u; tt < len; ++tt) tile_max = max(tile_max, scores[g * TILE + tt]);
      const float new_m = max(run_max[g], tile_max);
      float sum = 0.0;
      for (uint tt = 0u; tt < len; ++tt) {
        const float e = exp(scores[g * TILE + tt] - new_m);
        scores[g * TILE + tt] = e;
        sum += e;
      }
      corr[g] = exp(run_max[g] - new_m);
      run_sum[g] = run_sum[g] * corr[g] + sum;
      run_max[g] = new_m;
    }
    barrier();
    [[unroll]] for (uint k = 0u; k < ACC; ++k) {
      const uint i = lid + k * wg;
      if (i < GROUP * HEAD_DIM) {
        const uint g = i / HEAD_DIM, d = i % HEAD_DIM;
        float a = acc[k] * corr[g];
        for (uint tt = 0u; tt < len; ++tt) a += scores[g * TILE + tt] * v_tile[tt * HEAD_DIM + d];
        acc[k] = a;
      }
    }
  }
  barrier();
  [[unroll]] for (uint k = 0u; k < ACC; ++k) {
    const uint i = lid + k * wg;
    if (i >= GROUP * HEAD_DIM) continue;
    const uint g = i / HEAD_DIM;
    float a = acc[k], sum = run_sum[g];
    if (p.sinks != 0u) {  // the head's sink logit joins the denominator (as engine_attention)
      const float sink = sink_logits[kvh * GROUP + g], new_m = max(run_max[g], sink);
      const float cs = exp(run_max[g] - new_m);
      a *= cs;
      sum = sum * cs + exp(sink - new_m);
    }
    act[tok + p.out_off + kvh * GROUP * HEAD_DIM + i] = a / sum;
  }
}
