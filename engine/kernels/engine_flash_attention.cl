// Flash attention: workgroup (g, t) serves the GROUP query heads that share KV head g (grouped
// query attention) for token t of the pass, over its sequence's positions first..pos (token t's
// position and sequence are pass[2t], pass[2t + 1]; a sliding-window layer, window > 0, starts at
// pos + 1 - window; position u sits in slot u % ring of the sequence's cache for this layer). K
// and V are read TILE positions at a time into local memory (dequantized to f32 once for all the
// group's heads: the point of the kernel), each head keeps a running (online) softmax over the
// tiles, and the output is divided by the sum at the end, as ggml's flash_attn_ext does.
// Defines: WG_X, HEAD_DIM, TILE, GROUP, K_TYPE, V_TYPE (as engine_attention.cl), ACC
// (ceil(GROUP * HEAD_DIM / WG_X): output elements per work-item).
// Local memory: q (GROUP x HEAD_DIM), K and V tiles (TILE x HEAD_DIM each), scores (GROUP x
// TILE), and per head its running max, sum and this tile's correction (3 x GROUP), all f32:
// planner::local_mem_bytes of the flash variant.
typedef struct {
  uint q_off;
  uint out_off;
  uint group;      // n_head / n_head_kv (= GROUP)
  uint n_kv;       // n_embd_kv: the cache's row stride
  uint layer_off;  // element index of this layer's position 0
  uint window;     // a sliding-window layer's window; 0: every position
  float scale;
  uint stride;     // floats between two tokens' activations
  uint ring;       // positions the layer's cache holds
  float softcap;   // scores become softcap * tanh(score / softcap) when > 0 (gemma2)
  uint seq_stride; // elements between two sequences' caches
  uint sinks;      // 1: the sinks buffer holds one logit per query head (gpt-oss)
} AttentionParams;

#if K_TYPE == 0
#define K_LOAD(i) (((const __global float*)k_cache)[i])
#elif K_TYPE == 1
#define K_LOAD(i) vload_half((i), (const __global half*)k_cache)
#else
#define K_LOAD(i) k_value_at(k_cache + ((i) / K_ELEMS) * K_BYTES, (i) % K_ELEMS)
#endif
#if V_TYPE == 0
#define V_LOAD(i) (((const __global float*)v_cache)[i])
#elif V_TYPE == 1
#define V_LOAD(i) vload_half((i), (const __global half*)v_cache)
#else
#define V_LOAD(i) v_value_at(v_cache + ((i) / V_ELEMS) * V_BYTES, (i) % V_ELEMS)
#endif

__kernel void flash_attention(__global float* act, __global const uchar* k_cache,
                              __global const uchar* v_cache, __global const uint* pass,
                              __global const float* sinks, AttentionParams p,
                              __local float* lmem) {
  const uint t = get_group_id(1);
  const uint kvh = get_group_id(0);
  const uint lid = get_local_id(0);
  const uint n_pos = pass[2 * t] + 1;
  const uint first = p.window > 0 && n_pos > p.window ? n_pos - p.window : 0;
  const uint layer_off = pass[2 * t + 1] * p.seq_stride + p.layer_off;
  const uint kv_head_off = kvh * HEAD_DIM;
  act += t * p.stride;
  __local float* q = lmem;
  __local float* kt = q + GROUP * HEAD_DIM;
  __local float* vt = kt + TILE * HEAD_DIM;
  __local float* s = vt + TILE * HEAD_DIM;
  __local float* m = s + GROUP * TILE;
  __local float* l = m + GROUP;
  __local float* c = l + GROUP;
  // The group's query heads are back to back: heads kvh * GROUP .. kvh * GROUP + GROUP - 1.
  for (uint i = lid; i < GROUP * HEAD_DIM; i += WG_X) {
    q[i] = act[p.q_off + kvh * GROUP * HEAD_DIM + i];
  }
  for (uint g = lid; g < GROUP; g += WG_X) {
    m[g] = -INFINITY;
    l[g] = 0.0f;
  }
  float acc[ACC];
  for (uint k = 0; k < ACC; ++k) acc[k] = 0.0f;

  for (uint t0 = first; t0 < n_pos; t0 += TILE) {
    const uint len = min((uint)TILE, n_pos - t0);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint i = lid; i < len * HEAD_DIM; i += WG_X) {
      const uint row = layer_off + ((t0 + i / HEAD_DIM) % p.ring) * p.n_kv + kv_head_off;
      kt[i] = K_LOAD(row + i % HEAD_DIM);
      vt[i] = V_LOAD(row + i % HEAD_DIM);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint i = lid; i < GROUP * len; i += WG_X) {
      const uint g = i / len, tt = i % len;
      float dot = 0.0f;
      for (uint d = 0; d < HEAD_DIM; ++d) dot += q[g * HEAD_DIM + d] * kt[tt * HEAD_DIM + d];
      const float score = dot * p.scale;
      s[g * TILE + tt] = p.softcap > 0.0f ? p.softcap * tanh(score / p.softcap) : score;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint g = lid; g < GROUP; g += WG_X) {
      float tile_max = -INFINITY;
      for (uint tt = 0; tt < len; ++tt) tile_max = fmax(tile_max, s[g * TILE + tt]);
      const float new_m = fmax(m[g], tile_max);
      float sum = 0.0f;
      for (uint tt = 0; tt < len; ++tt) {
        const float e = exp(s[g * TILE + tt] - new_m);
        s[g * TILE + tt] = e;
        sum += e;
      }
      c[g] = exp(m[g] - new_m);
      l[g] = l[g] * c[g] + sum;
      m[g] = new_m;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint k = 0; k < ACC; ++k) {
      const uint i = lid + k * WG_X;
      if (i >= GROUP * HEAD_DIM) break;
      const uint g = i / HEAD_DIM, d = i % HEAD_DIM;
      float a = acc[k] * c[g];
      for (uint tt = 0; tt < len; ++tt) a += s[g * TILE + tt] * vt[tt * HEAD_DIM + d];
      acc[k] = a;
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint k = 0; k < ACC; ++k) {
    const uint i = lid + k * WG_X;
    if (i >= GROUP * HEAD_DIM) break;
    const uint g = i / HEAD_DIM;
    float a = acc[k], sum = l[g];
    if (p.sinks != 0) {  // the head's sink logit joins the denominator (as engine_attention)
      const float sink = sinks[kvh * GROUP + g], new_m = fmax(m[g], sink), cs = exp(m[g] - new_m);
      a *= cs;
      sum = sum * cs + exp(sink - new_m);
    }
    act[p.out_off + kvh * GROUP * HEAD_DIM + i] = a / sum;
  }
}
