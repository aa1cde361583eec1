// act[t * stride + off + i] += bias[i], i < n, for each token t (group y) of a pass: the F32
// biases of qwen2's Q, K and V projections. With slots > 0 (ggml_add_id, gpt-oss's expert
// biases), group y is token y / slots and its pick j = y % slots: the expert e whose id (a float)
// is at sel_off + j adds its row bias[e * n ..] at off + j * slot_step.
typedef struct {
  uint n;
  uint off;
  uint stride;
  uint sel_off;
  uint slots;
  uint slot_step;
} BiasParams;

__kernel void add_bias(__global float* act, __global const float* bias, BiasParams p) {
  const uint i = get_global_id(0);
  if (i >= p.n) return;
  const uint y = get_global_id(1);
  if (p.slots == 0) {
    act[y * p.stride + p.off + i] += bias[i];
    return;
  }
  __global float* tok = act + (y / p.slots) * p.stride;
  const uint j = y % p.slots;
  const uint e = (uint)tok[p.sel_off + j];
  tok[p.off + j * p.slot_step + i] += bias[e * p.n + i];
}
