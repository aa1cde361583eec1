#version 450
// The mixture's output for each token of a pass; as engine_expert_combine.cl.
layout(local_size_x_id = 0) in;
layout(std430, binding = 0) buffer A { float act[]; };
layout(std430, binding = 1) readonly buffer S { float scale[]; };
layout(push_constant) uniform Params {
  uint n;
  uint k;
  uint out_off;
  uint sel_off;
  uint xb_off;
  uint shared_expert;
  uint stride;
  uint scaled;
} p;

// Pick s's output, times its expert's scale when scaled.
float pick_out(uint tok, uint s, uint i) {
  float v = act[tok + p.out_off + s * p.n + i];
  return p.scaled != 0 ? v * scale[uint(act[tok + p.sel_off + s])] : v;
}

void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i >= p.n) return;
  uint tok = gl_WorkGroupID.y * p.stride;
  uint weights = tok + p.sel_off + p.k;
  float sum = pick_out(tok, 0, i) * act[weights];
  for (uint s = 1; s < p.k; ++s) sum += pick_out(tok, s, i) * act[weights + s];
  if (p.shared_expert == 1) {
    float g = act[tok + p.sel_off + 2 * p.k];
    sum += act[tok + p.xb_off + i] * (g / (1.0 + exp(-g)) / g);
  } else if (p.shared_expert == 2) {
    sum += act[tok + p.xb_off + i];  // ungated (nemotron_h_moe)
  }
  act[tok + p.xb_off + i] = sum;
}
