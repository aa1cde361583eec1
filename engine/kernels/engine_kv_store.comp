#version 450
#extension GL_GOOGLE_include_directive : require
// Each token's K and V rows (k_off, v_off of its activations, already turned by rope and, for a
// quantized cache, by the Walsh-Hadamard rotation) into its sequence's cache slot pos % ring of
// this layer, in the caches' types: invocation (g, t) writes 32-element block g of K (g <
// n_blocks) or block g - n_blocks of V, as llama.cpp's set_rows does with the type's from_float
// (engine_kv_types.glsl's encoders). A quantized block need not start on a word, so bytes go in
// with atomicAnd / atomicOr (two blocks may share a word). Constants: 0 workgroup, 3 K_TYPE,
// 4 V_TYPE (ggml type ids: 0 f32, 1 f16, else quantized). Invocations 2 * n_blocks + b round
// block b of each token's Q in place to Q8_0's values, as engine_kv_store.cl.
layout(local_size_x_id = 0) in;
layout(constant_id = 3) const uint K_TYPE = 8;
layout(constant_id = 4) const uint V_TYPE = 8;
layout(std430, binding = 0) buffer A { float act[]; };
layout(std430, binding = 1) buffer K { uint k_cache[]; };
layout(std430, binding = 2) buffer V { uint v_cache[]; };
layout(std430, binding = 3) readonly buffer P { uint pass[]; };
layout(push_constant) uniform Params {
  uint k_off;
  uint v_off;
  uint n_blocks;
  uint layer_off;
  uint stride;
  uint ring;
  uint seq_stride;
  uint q_off;
  uint n_q_blocks;
} p;

uint writing_v = 0u;
uint kv_word(uint i) { return writing_v != 0u ? v_cache[i] : k_cache[i]; }
void put_byte(uint off, uint b) {
  const uint i = off >> 2, s = (off & 3u) << 3;
  if (writing_v != 0u) {
    atomicAnd(v_cache[i], ~(0xffu << s));
    atomicOr(v_cache[i], (b & 0xffu) << s);
  } else {
    atomicAnd(k_cache[i], ~(0xffu << s));
    atomicOr(k_cache[i], (b & 0xffu) << s);
  }
}
#define PUT_BYTE(off, b) put_byte(off, b)
#define GAUNTLET_KV_ENCODE 1
#include "engine_kv_types.glsl"

void put_word(uint i, uint w) {
  if (writing_v != 0u) {
    v_cache[i] = w;
  } else {
    k_cache[i] = w;
  }
}

void main() {
  const uint g = gl_GlobalInvocationID.x;
  const uint t = gl_WorkGroupID.y;
  if (g >= 2u * p.n_blocks) {
    const uint qb = g - 2u * p.n_blocks;
    if (qb >= p.n_q_blocks) return;
    const uint q = t * p.stride + p.q_off + qb * 32u;
    float amax = 0.0;
    for (uint j = 0u; j < 32u; ++j) amax = max(amax, abs(act[q + j]));
    const float d = unpackHalf2x16(packHalf2x16(vec2(amax / 127.0, 0.0))).x;
    const float id = amax != 0.0 ? 127.0 / amax : 0.0;
    for (uint j = 0u; j < 32u; ++j) act[q + j] = roundEven(act[q + j] * id) * d;
    return;
  }
  writing_v = g >= p.n_blocks ? 1u : 0u;
  const uint b = writing_v != 0u ? g - p.n_blocks : g;
  const uint src = t * p.stride + (writing_v != 0u ? p.v_off : p.k_off) + b * 32u;
  float x[32];
  for (uint j = 0u; j < 32u; ++j) x[j] = act[src + j];
  const uint row = pass[2u * t + 1u] * p.seq_stride + p.layer_off +
                   (pass[2u * t] % p.ring) * p.n_blocks * 32u;
  const uint block = row / 32u + b;
  const uint type = writing_v != 0u ? V_TYPE : K_TYPE;
  if (type == 0u) {
    for (uint j = 0u; j < 32u; ++j) put_word(block * 32u + j, floatBitsToUint(x[j]));
  } else if (type == 1u) {
    for (uint j = 0u; j < 16u; ++j) {
      put_word(block * 16u + j, packHalf2x16(vec2(x[2u * j], x[2u * j + 1u])));
    }
  } else {
    kv_encode(type, x, block * kv_block_bytes(type));
  }
}
