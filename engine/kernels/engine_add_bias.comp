#version 450
// act[t * stride + off + i] += bias[i], i < n, for each token t (workgroup y) of a pass: the F32
// biases of qwen2's Q, K and V projections; with slots > 0 an expert's bias row per pick, as
// engine_add_bias.cl (ggml_add_id).
// Constant 0: workgroup.
layout(local_size_x_id = 0) in;
layout(std430, binding = 0) buffer A { float act[]; };
layout(std430, binding = 1) readonly buffer B { float bias[]; };
layout(push_constant) uniform Params {
  uint n;
  uint off;
  uint stride;
  uint sel_off;
  uint slots;
  uint slot_step;
} p;

void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i >= p.n) return;
  uint y = gl_WorkGroupID.y;
  if (p.slots == 0) {
    act[y * p.stride + p.off + i] += bias[i];
    return;
  }
  uint tok = (y / p.slots) * p.stride;
  uint j = y % p.slots;
  uint e = uint(act[tok + p.sel_off + j]);
  act[tok + p.off + j * p.slot_step + i] += bias[e * p.n + i];
}
