// Attention of one query head of one token (workgroup (h, t)) over its sequence's positions
// first..pos of the KV cache, grouped-query: head h reads KV head h / (n_head / n_head_kv). Token
// t's position and sequence are pass[2t], pass[2t + 1]; a sliding-window layer (window > 0)
// starts at first = pos + 1 - window, others at 0; position u sits in slot u % ring of the
// sequence's cache for this layer. The scores go through a
// local tile of SCORE_TILE positions at a time with a running (online) softmax, so any context
// fits. With `sinks`, head h's sink logit sinks[h] joins the softmax's denominator only
// (ggml_soft_max_ext with sinks, gpt-oss). Defines: WG_X, HEAD_DIM, SCORE_TILE, K_TYPE, V_TYPE,
// ACT_F16, DIMS_PER_ITEM = ceil(HEAD_DIM/WG_X).
// Local memory: WG_X floats of scratch, the query head (HEAD_DIM floats or halves), the scores.
typedef struct {
  uint q_off;
  uint out_off;
  uint group;      // n_head / n_head_kv
  uint n_kv;       // n_embd_kv: the cache's row stride
  uint layer_off;  // element index of this layer's position 0
  uint window;     // a sliding-window layer's window; 0: every position
  float scale;
  uint stride;     // floats between two tokens' activations
  uint ring;       // positions the layer's cache holds
  float softcap;   // scores become softcap * tanh(score / softcap) when > 0 (gemma2)
  uint seq_stride; // elements between two sequences' caches
  uint sinks;      // 1: the sinks buffer holds one logit per head
} AttentionParams;

// The caches' element i: K_TYPE / V_TYPE are ggml type ids (0 f32, 1 f16, else a quantized
// type whose value_at is k_value_at / v_value_at, core::opencl_kv_type_headers).
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
#if ACT_F16
#define Q_T half
#define Q_LOAD(i) vload_half((i), qv)
#define Q_STORE(i, v) vstore_half((v), (i), qv)
#else
#define Q_T float
#define Q_LOAD(i) (qv[i])
#define Q_STORE(i, v) (qv[i] = (v))
#endif

__kernel void attention(__global float* act, __global const uchar* k_cache,
                        __global const uchar* v_cache, __global const uint* pass,
                        __global const float* sinks, AttentionParams p, __local float* lmem) {
  const uint t = get_group_id(1);
  const uint n_pos = pass[2 * t] + 1;
  const uint first = p.window > 0 && n_pos > p.window ? n_pos - p.window : 0;
  const uint layer_off = pass[2 * t + 1] * p.seq_stride + p.layer_off;
  act += t * p.stride;
  __local float* red = lmem;
  __local Q_T* qv = (__local Q_T*)(lmem + WG_X);
  __local float* scores = (__local float*)((__local uchar*)qv + HEAD_DIM * sizeof(Q_T));
  const uint lid = get_local_id(0);
  const uint h = get_group_id(0);
  const uint kv_head_off = (h / p.group) * HEAD_DIM;
  for (uint i = lid; i < HEAD_DIM; i += WG_X) Q_STORE(i, act[p.q_off + h * HEAD_DIM + i]);

  float m = -INFINITY, l = 0.0f;
  float acc[DIMS_PER_ITEM];
  for (uint k = 0; k < DIMS_PER_ITEM; ++k) acc[k] = 0.0f;

  for (uint t0 = first; t0 < n_pos; t0 += SCORE_TILE) {
    const uint len = min((uint)SCORE_TILE, n_pos - t0);
    barrier(CLK_LOCAL_MEM_FENCE);
    float local_max = -INFINITY;
    for (uint tt = lid; tt < len; tt += WG_X) {
      const uint base = layer_off + ((t0 + tt) % p.ring) * p.n_kv + kv_head_off;
      float dot = 0.0f;
      for (uint i = 0; i < HEAD_DIM; ++i) dot += Q_LOAD(i) * K_LOAD(base + i);
      const float score = dot * p.scale;
      scores[tt] = p.softcap > 0.0f ? p.softcap * tanh(score / p.softcap) : score;
      local_max = fmax(local_max, scores[tt]);
    }
    red[lid] = local_max;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint s = WG_X / 2; s > 0; s >>= 1) {
      if (lid < s) red[lid] = fmax(red[lid], red[lid + s]);
      barrier(CLK_LOCAL_MEM_FENCE);
    }
    const float new_m = fmax(m, red[0]);
    const float c = exp(m - new_m);
    barrier(CLK_LOCAL_MEM_FENCE);
    float local_sum = 0.0f;
    for (uint tt = lid; tt < len; tt += WG_X) {
      scores[tt] = exp(scores[tt] - new_m);
      local_sum += scores[tt];
    }
    red[lid] = local_sum;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint s = WG_X / 2; s > 0; s >>= 1) {
      if (lid < s) red[lid] += red[lid + s];
      barrier(CLK_LOCAL_MEM_FENCE);
    }
    l = l * c + red[0];
    m = new_m;
    for (uint k = 0; k < DIMS_PER_ITEM; ++k) {
      const uint d = lid + k * WG_X;
      if (d >= HEAD_DIM) break;
      float a = acc[k] * c;
      for (uint tt = 0; tt < len; ++tt) {
        a += scores[tt] *
             V_LOAD(layer_off + ((t0 + tt) % p.ring) * p.n_kv + kv_head_off + d);
      }
      acc[k] = a;
    }
  }
  if (p.sinks != 0) {
    const float sink = sinks[h], new_m = fmax(m, sink), c = exp(m - new_m);
    l = l * c + exp(sink - new_m);
    for (uint k = 0; k < DIMS_PER_ITEM; ++k) acc[k] *= c;
  }
  for (uint k = 0; k < DIMS_PER_ITEM; ++k) {
    const uint d = lid + k * WG_X;
    if (d < HEAD_DIM) act[p.out_off + h * HEAD_DIM + d] = acc[k] / l;
  }
}
