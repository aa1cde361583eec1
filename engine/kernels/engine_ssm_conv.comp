#version 450
// The causal depthwise conv1d of a gated DeltaNet layer, then SiLU, as engine_ssm_conv.cl
// (ggml_ssm_conv, ggml_silu): invocation (c, s) owns channel c of sequence s and walks the pass's
// tokens in order; a token at position 0 starts from a zero state. Gated (lfm2's short
// convolution): the conv runs over B * x of the token's B, C, x, with no activation, and writes C
// times its output. Biased (Mamba2): the conv's bias is added before the SiLU.
// Constant 0: workgroup.
layout(local_size_x_id = 0) in;
layout(std430, binding = 0) buffer A { float act[]; };
layout(std430, binding = 1) buffer S { float state[]; };
layout(std430, binding = 2) readonly buffer W { float kernel_w[]; };
layout(std430, binding = 3) readonly buffer B { float bias[]; };
layout(std430, binding = 4) readonly buffer P { uint pass[]; };
layout(push_constant) uniform Params {
  uint channels;
  uint width;
  uint in_off;
  uint out_off;
  uint state_off;
  uint seq_floats;
  uint stride;
  uint n_tok;
  uint first;  // the tokens first .. n_tok - 1 of the pass
  uint gated;   // 1: lfm2's gated short convolution
  uint biased;  // 1: bias[c] added to the sum before the SiLU
} p;

void main() {
  uint c = gl_GlobalInvocationID.x;
  if (c >= p.channels) return;
  uint seq = gl_WorkGroupID.y;
  uint kept = p.width - 1;
  uint s = seq * p.seq_floats + p.state_off + c * kept;
  uint w = c * p.width;
  for (uint t = p.first; t < p.n_tok; ++t) {
    if (pass[2 * t + 1] != seq) continue;
    if (pass[2 * t] == 0) {
      for (uint i = 0; i < kept; ++i) state[s + i] = 0.0;
    }
    uint tok = t * p.stride;
    float x = p.gated != 0 ? act[tok + p.in_off + c] * act[tok + p.in_off + 2 * p.channels + c]
                           : act[tok + p.in_off + c];
    float sum = 0.0;
    for (uint i = 0; i < kept; ++i) sum += state[s + i] * kernel_w[w + i];
    sum += x * kernel_w[w + kept];
    if (p.biased != 0) sum += bias[c];
    act[tok + p.out_off + c] =
        p.gated != 0 ? act[tok + p.in_off + p.channels + c] * sum : sum / (1.0 + exp(-sum));
    for (uint i = 0; i + 1 < kept; ++i) state[s + i] = state[s + i + 1];
    if (kept > 0) state[s + kept - 1] = x;
  }
}
