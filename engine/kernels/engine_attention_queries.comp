#version 450
#extension GL_EXT_control_flow_attributes : require
// Attention of a pass's tokens, one query per invocation, for CPU Vulkan drivers: workgroup (h, c)
// serves query head h of the pass's tokens [c * WG, c * WG + WG), which belong to one sequence at
// increasing positions (the caller's condition). The workgroup walks the positions of its tokens
// once, each position's K and V rows read at the same address by every invocation, and each
// invocation keeps its own running (online) softmax, query and sums in registers. Today's
// attention (a workgroup per token and head, invocations over positions) reads every row once per
// token: on llvmpipe it spent 2.39 s of a 12 s 512-token pass, this kernel 0.86 s.
// Semantics as engine_attention.comp: positions first..pos of the token
// (a sliding-window layer starts at pos + 1 - window), slot u % ring, grouped-query, the soft-cap
// and gpt-oss's sinks. Constants: 0 workgroup; 3 HEAD_DIM (a multiple of 4, at most 128);
// 4 K_TYPE, 5 V_TYPE (0 f32, 1 f16).
layout(local_size_x_id = 0) in;
layout(constant_id = 3) const uint HEAD_DIM = 64;
layout(constant_id = 4) const uint K_TYPE = 0;
layout(constant_id = 5) const uint V_TYPE = 0;
layout(std430, binding = 0) buffer A { float act[]; };
// The caches (bindings 1 and 2) are read as texels of 32-bit words (bindings 5 and 6, their views:
// backends::KernelSource::texel_views): every invocation reads the same K and V row, which
// llvmpipe loads from a storage buffer lane by lane and fetches from a texel buffer as one gather.
layout(binding = 5) uniform usamplerBuffer k_texels;
layout(binding = 6) uniform usamplerBuffer v_texels;
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
  uint tokens;
} p;

// Elements i .. i + 3 (i a multiple of 4) of a cache row of `type` (0 f32, 1 f16).
vec4 cache_quad(usamplerBuffer cache, uint type, uint i) {
  if (type == 1u) {
    const int at = int(i >> 1);
    return vec4(unpackHalf2x16(texelFetch(cache, at).x),
                unpackHalf2x16(texelFetch(cache, at + 1).x));
  }
  const int at = int(i);
  return uintBitsToFloat(uvec4(texelFetch(cache, at).x, texelFetch(cache, at + 1).x,
                               texelFetch(cache, at + 2).x, texelFetch(cache, at + 3).x));
}
vec4 k_quad(uint i) { return cache_quad(k_texels, K_TYPE, i); }
vec4 v_quad(uint i) { return cache_quad(v_texels, V_TYPE, i); }

// The first position a token at `pos` attends to.
uint first_position(uint pos) { return p.window > 0u && pos + 1u > p.window ? pos + 1u - p.window : 0u; }

void main() {
  const uint h = gl_WorkGroupID.x;
  const uint t0 = gl_WorkGroupID.y * gl_WorkGroupSize.x;
  const uint t = t0 + gl_LocalInvocationID.x;
  const uint last = min(t0 + gl_WorkGroupSize.x, p.tokens) - 1u;
  const bool live = t < p.tokens;
  // Read at addresses every invocation shares, so that they stay one value per SIMD group.
  const uint layer_off = pass[2u * t0 + 1u] * p.seq_stride + p.layer_off;
  const uint begin = first_position(pass[2u * t0]);
  const uint end = pass[2u * last] + 1u;
  const uint kv_head_off = (h / p.group) * HEAD_DIM;

  const uint pos = live ? pass[2u * t] : 0u;
  const uint first = first_position(pos);
  const uint tok = t * p.stride;
  vec4 q[HEAD_DIM / 4];
  vec4 acc[HEAD_DIM / 4];
  [[unroll]] for (uint j = 0u; j < HEAD_DIM / 4u; ++j) {
    const uint at = tok + p.q_off + h * HEAD_DIM + 4u * j;
    q[j] = live ? vec4(act[at], act[at + 1u], act[at + 2u], act[at + 3u]) : vec4(0.0);
    acc[j] = vec4(0.0);
  }
  float m = -1.0 / 0.0, l = 0.0;
  for (uint u = begin; u < end; ++u) {
    const uint base = layer_off + (u % p.ring) * p.n_kv + kv_head_off;
    vec4 d4 = vec4(0.0);
    [[unroll]] for (uint j = 0u; j < HEAD_DIM / 4u; ++j) d4 += q[j] * k_quad(base + 4u * j);
    float score = dot(d4, vec4(1.0)) * p.scale;
    if (p.softcap > 0.0) score = p.softcap * tanh(score / p.softcap);
    if (live && u >= first && u <= pos) {
      const float new_m = max(m, score);
      const float c = exp(m - new_m), e = exp(score - new_m);
      l = l * c + e;
      [[unroll]] for (uint j = 0u; j < HEAD_DIM / 4u; ++j) {
        acc[j] = acc[j] * c + e * v_quad(base + 4u * j);
      }
      m = new_m;
    }
  }
  if (!live) return;
  if (p.sinks != 0u) {
    const float sink = sink_logits[h], new_m = max(m, sink), c = exp(m - new_m);
    l = l * c + exp(sink - new_m);
    [[unroll]] for (uint j = 0u; j < HEAD_DIM / 4u; ++j) acc[j] *= c;
  }
  [[unroll]] for (uint j = 0u; j < HEAD_DIM / 4u; ++j) {
    const uint at = tok + p.out_off + h * HEAD_DIM + 4u * j;
    const vec4 o = acc[j] / l;
    act[at] = o.x;
    act[at + 1u] = o.y;
    act[at + 2u] = o.z;
    act[at + 3u] = o.w;
  }
}
