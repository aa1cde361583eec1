// The causal depthwise conv1d of a gated DeltaNet layer (qwen35), then SiLU: ggml_ssm_conv and
// ggml_silu (ggml/src/ggml-cpu/ops.cpp ggml_compute_forward_ssm_conv_f32; src/models/qwen35.cpp
// build_layer_attn_linear). Work-item (c, s) owns channel c of sequence s: it walks the pass's
// tokens in order and, for each of its sequence's, sums the channel's last width - 1 inputs (its
// state, oldest first) and this token's input times the kernel row, then drops the oldest input and
// keeps this one. A token at position 0 starts from a zero state (a new sequence).
// The state of sequence s sits at state[s * seq_floats + state_off + c * (width - 1) ..]; the
// kernel is ggml's {width, channels} f32 tensor (channel c's taps at c * width).
// Gated (lfm2's short convolution, src/models/lfm2.cpp build_shortconv_block): the token's input is
// B, C and x (channels each) at in_off; the conv runs over B * x with no activation, and C times its
// output is written. Biased (Mamba2, build_mamba2_layer): the conv's bias is added before the SiLU.
typedef struct {
  uint channels;
  uint width;
  uint in_off;      // the projection's channels (q, k, v) of each token
  uint out_off;     // the conv's output of each token
  uint state_off;   // the layer's conv state in a sequence's block
  uint seq_floats;  // floats between two sequences' blocks
  uint stride;      // floats between two tokens' activations
  uint n_tok;
  uint first;  // the tokens first .. n_tok - 1 of the pass
  uint gated;   // 1: lfm2's gated short convolution
  uint biased;  // 1: bias[c] added to the sum before the SiLU
} SsmConvParams;

__kernel void ssm_conv(__global float* act, __global float* state, __global const float* kernel_w,
                       __global const float* bias, __global const uint* pass, SsmConvParams p) {
  const uint c = get_global_id(0);
  if (c >= p.channels) return;
  const uint seq = get_global_id(1);
  const uint kept = p.width - 1;
  __global float* s = state + seq * p.seq_floats + p.state_off + c * kept;
  __global const float* w = kernel_w + c * p.width;
  for (uint t = p.first; t < p.n_tok; ++t) {
    if (pass[2 * t + 1] != seq) continue;
    if (pass[2 * t] == 0) {
      for (uint i = 0; i < kept; ++i) s[i] = 0.0f;
    }
    __global float* tok = act + t * p.stride;
    const float x = p.gated != 0
                        ? tok[p.in_off + c] * tok[p.in_off + 2 * p.channels + c]
                        : tok[p.in_off + c];
    float sum = 0.0f;
    for (uint i = 0; i < kept; ++i) sum += s[i] * w[i];
    sum += x * w[kept];
    if (p.biased != 0) sum += bias[c];
    tok[p.out_off + c] =
        p.gated != 0 ? tok[p.in_off + p.channels + c] * sum : sum / (1.0f + exp(-sum));
    for (uint i = 0; i + 1 < kept; ++i) s[i] = s[i + 1];
    if (kept > 0) s[kept - 1] = x;
  }
}
