#pragma once
// The decode kernels as backends::KernelSource values, one per op and variant, built from the
// embedded .cl / .comp files with defines / specialization constants, and a per-device cache of
// the built kernels. The parameter blocks below match the typedefs in engine/kernels/*.cl and the
// push-constant blocks in *.comp field for field.
#include <cstdint>
#include <initializer_list>
#include <map>
#include <memory>
#include <string>

#include "backends/device.h"
#include "core/status.h"
#include "engine/model/tensor_type.h"
#include "engine/planner/planner.h"

namespace gauntlet::engine::device {

// The kernels of a pass of several tokens take token t's activations at t * stride (floats); the
// per-token kernels run one workgroup row (y) per token. rope_kv and attention read each token's
// position and sequence from the pass buffer: uint32 pairs {position, sequence}.
// With slots > 0, an expert-indexed product (engine_matvec.cl): workgroup row y is token
// y / slots and its pick y % slots, the expert id a float at sel_off + pick.
struct MatvecParams {
  uint32_t n_in, n_out, x_off, out_off, row;
  uint32_t stride = 0, sel_off = 0, slots = 0, x_slot = 0, out_slot = 0;
};
// The router (engine_expert_route.cl): per token, softmax over n_expert logits at router_off, the
// k largest picked into sel_off (ids as floats, then weights; `norm`: weights over their sum);
// gating SOFTMAX_WEIGHT picks the k largest logits and softmaxes those.
struct RouteParams {
  uint32_t n_expert, k, router_off, sel_off, norm, stride, n_tok;
  uint32_t gating = 0;  // model::ExpertGating
  uint32_t biased = 0;  // 1: picked by the probabilities plus the selection bias buffer
  float scale = 0.0f;   // the weights times this where it is neither 0 nor 1 (w_scale)
};
// The picked experts' outputs (k slots of n at out_off) weighted and added into xb_off, plus the
// shared expert's output already at xb_off times sigmoid of the gate at sel_off + 2k when
// `shared` is 1, as it is when 2; with `scaled`, each pick's output times its expert's scale
// (engine_expert_combine.cl).
struct CombineParams {
  uint32_t n, k, out_off, sel_off, xb_off, shared, stride;
  uint32_t scaled = 0;
};
// With the expert-indexed product (matmul_source's `experts`), n_tok is the pass's tokens and the
// picks come from engine_expert_group's list at groups_off, group_len floats per token.
struct MatmulParams {
  uint32_t n_in, n_out, x_off, out_off, stride, n_tok;
  uint32_t groups_off = 0, group_len = 0, k = 0, x_slot = 0, out_slot = 0;
};
// Groups a pass's picks by expert into token tiles of `tile` picks (engine_expert_group.cl).
struct GroupParams {
  uint32_t n_expert, k, sel_off, router_off, groups_off, group_len, stride, n_tok, tile;
};
struct RmsnormParams {
  uint32_t n, in_off, out_off;
  float eps;
  uint32_t stride = 0;
  uint32_t weight_stride = 0;  // row r's weights at r * weight_stride (Mamba2's grouped norm)
};
struct RopeParams {
  uint32_t q_off, k_off, v_off, n_q_pairs, n_kv_pairs, head_dim, rope_dims;
  uint32_t layer_off;  // element index of the layer's slot 0 in sequence 0's cache
  uint32_t neox;       // model::RopeStyle
  uint32_t stride;
  uint32_t ring;        // slots of the layer: position t in slot t % ring
  uint32_t seq_stride;  // elements between two sequences' caches
};
struct AttentionParams {
  uint32_t q_off, out_off, group, n_kv, layer_off;
  uint32_t window;  // a sliding-window layer's window; 0: every position
  float scale;
  uint32_t stride;
  uint32_t ring;  // positions the layer's cache holds: position t in slot t % ring
  float softcap;  // attention-logit soft-cap; 0: none
  uint32_t seq_stride;
  uint32_t sinks = 0;  // 1: the sinks buffer holds a logit per head (gpt-oss)
};
// engine_attention_queries.comp's: AttentionParams and the pass's token count.
struct AttentionQueriesParams {
  AttentionParams attention;
  uint32_t tokens;
};
// A quantized cache's (or one whose K and V differ) writer, engine_kv_store.cl: 32-element blocks.
struct KvStoreParams {
  uint32_t k_off, v_off;
  uint32_t n_blocks;  // n_embd_kv / 32
  uint32_t layer_off, stride, ring, seq_stride;
  uint32_t q_off;
  uint32_t n_q_blocks;  // a quantized K: Q's blocks rounded to Q8_0 (reference/kv_rows.h)
};
// The Walsh-Hadamard rotation of chunks at `off` of each token (engine_hadamard.cl).
struct HadamardParams {
  uint32_t off, stride;
  float scale;  // 1 / sqrtf(chunk)
};
struct ElementwiseParams {
  uint32_t n, a_off, b_off;
  float value = 0.0f;  // scale, softcap and swiglu_oai's limit
  uint32_t stride = 0;
  float alpha = 0.0f;  // swiglu_oai's alpha
};
// With slots > 0, one expert's bias row per pick (ggml_add_id): token t's pick j adds row e of
// the bias, e the id (a float) at sel_off + j, at off + j * slot_step.
struct BiasParams {
  uint32_t n, off;
  uint32_t stride = 0;
  uint32_t sel_off = 0, slots = 0, slot_step = 0;
};

// A gated DeltaNet layer's conv1d with its rolling state (engine_ssm_conv.cl): work-item (c, s)
// walks the pass's tokens of sequence s for channel c; the state of sequence s at s * seq_floats +
// state_off.
struct SsmConvParams {
  uint32_t channels, width, in_off, out_off, state_off, seq_floats, stride, n_tok;
  uint32_t first = 0;   // the tokens first .. n_tok - 1 of the pass
  uint32_t gated = 0;   // 1: lfm2's gated short convolution (B * x in, C times the conv out)
  uint32_t biased = 0;  // 1: the conv's bias added before the SiLU (Mamba2)
};
// Mamba2's selective scan (engine_ssm_scan.cl): work-item (c, s) walks the pass's tokens of
// sequence s for channel c of d_inner (head c / head_dim, group head / heads_per_group); its state
// row of d_state at s * seq_floats + state_off + c * d_state. x, B and C are the conv's output at
// conv_off, dt (before softplus and bias) at dt_off, z at z_off; y = (scan + D x) silu(z) at
// out_off.
struct SsmScanParams {
  uint32_t d_state, head_dim, heads_per_group, groups, inner;
  uint32_t conv_off, dt_off, z_off, out_off, state_off, seq_floats, stride, n_tok;
  uint32_t first = 0;
};
// Its delta rule (engine_delta_net.cl): workgroup (h, s) walks the pass's tokens of sequence s for
// value head h; the head's n x n state at s * seq_floats + state_off + h * n * n.
struct DeltaNetParams {
  uint32_t n, heads, groups, conv_off, ba_off, out_off, state_off, seq_floats, stride, n_tok;
  float eps;
  uint32_t first = 0;
};
// The tokens of a pass one delta_net dispatch walks at most (Ops::delta_net dispatches a longer
// pass in turns): in one dispatch over the 512 tokens of a pass, llvmpipe's results went wrong from
// token 442 on (nine barriers per token), while PoCL's stayed right.
inline constexpr uint32_t kDeltaNetTokens = 64;
// qwen35's gated attention (engine_query_gate.cl): split [q | gate] per head, or out *=
// sigmoid(gate).
struct QueryGateParams {
  uint32_t n, head_dim, in_off, out_off, gate_off, stride;
};
// head_softplus: laguna's gate, out[i] *= softplus(gate[i / head_dim]), one value per head.
enum class QueryGate { split = 0, apply = 1, head_softplus = 2 };

// The OP of engine_elementwise.cl / .comp.
enum class Elementwise {
  add = 0,
  swiglu = 1,
  geglu = 2,
  scale = 3,
  softcap = 4,
  swiglu_oai = 5,
  relu_sqr = 6,  // a = max(a, 0)^2 (nemotron_h's feed-forward)
};

// Workgroup of the kernels without a tunable variant (embed, rope, elementwise, copy).
inline constexpr uint32_t kSimpleWorkgroup = 64;

// Which texel reads of a matvec take whole 16-byte vectors (engine_matvec_common.glsl's
// VECTOR_READS), where the host knows them to be whole vectors of the view: the activations when
// every offset the kernel reads from is a multiple of 4 floats in a buffer of whole vectors; the
// staged weight blocks when the weights are whole vectors.
struct VectorReads {
  bool activations = false;
  bool weight_blocks = false;
  uint32_t bits() const { return (activations ? 1u : 0u) | (weight_blocks ? 2u : 0u); }
};
VectorReads vector_reads(const backends::Buffer& weights, const backends::Buffer& act,
                         std::initializer_list<uint32_t> act_offsets);

// `api` picks the embedded text (OpenCL) or SPIR-V (Vulkan); host has no device kernels.
// `weights_as_texels`: Vulkan reads the weights, and f32 activations, through uniform texel
// buffers (config.h's reads_as_texels says where), `vector_reads` of them as whole vectors.
core::Result<backends::KernelSource> matvec_source(core::Api api, model::TensorType weights,
                                                   const planner::KernelVariant& variant,
                                                   uint32_t n_in, uint32_t rows,
                                                   bool accumulate = false,
                                                   bool weights_as_texels = false,
                                                   VectorReads vector_reads = {});
// The matrix-matrix kernel of a pass (engine_matmul.cl / .glsl): `variant.tokens` tokens per
// workgroup, `variant.activation_tile` elements of each in local memory (kWholeVector: n_in);
// `experts`: the expert-indexed product over grouped picks (mul_mat_id); `weights_as_texels`:
// Vulkan reads the weights and the activations through uniform texel buffers (config.h's
// reads_as_texels).
core::Result<backends::KernelSource> matmul_source(core::Api api, model::TensorType weights,
                                                   const planner::KernelVariant& variant,
                                                   uint32_t n_in, uint32_t rows,
                                                   bool accumulate = false, bool experts = false,
                                                   bool weights_as_texels = false);
core::Result<backends::KernelSource> embed_source(core::Api api, model::TensorType weights);
core::Result<backends::KernelSource> rmsnorm_source(core::Api api, uint32_t workgroup);
// rope_kv writes K and V into the cache itself only for f32 or f16 caches of one type; otherwise
// it turns k in place, and kv_store writes the rows (after the Walsh-Hadamard rotation of a
// quantized cache, engine/reference/kv_rows.h).
inline bool rope_writes_kv(planner::KvPrecision kv) { return !kv.quantized() && kv.k == kv.v; }
core::Result<backends::KernelSource> rope_kv_source(core::Api api, planner::KvPrecision kv);
core::Result<backends::KernelSource> kv_store_source(core::Api api, planner::KvPrecision kv);
// `chunk` work-items per workgroup, chunk floats of local memory.
core::Result<backends::KernelSource> hadamard_source(core::Api api, uint32_t chunk);
// `vector_v`: V summed four dimensions per work-item (Vulkan; config.h's attention_vector_v).
// `kv_as_texels`: Vulkan reads the caches as texels (config.h's reads_as_texels).
core::Result<backends::KernelSource> attention_source(
    core::Api api, const planner::KernelVariant& variant, uint32_t head_dim, uint32_t context,
    planner::KvPrecision kv, bool vector_v = false, bool kv_as_texels = false);
// One query per invocation (engine_attention_queries.comp, Vulkan; config.h's
// attention_by_queries): workgroups of `workgroup` tokens of one sequence per query head.
core::Result<backends::KernelSource> attention_queries_source(core::Api api, uint32_t workgroup,
                                                              uint32_t head_dim,
                                                              planner::KvPrecision kv);
// Flash attention (engine_flash_attention.cl): one workgroup per KV head and token for its
// `group` query heads, K/V tiles of planner::flash_tile positions.
core::Result<backends::KernelSource> flash_attention_source(core::Api api,
                                                            const planner::KernelVariant& variant,
                                                            uint32_t head_dim, uint32_t group,
                                                            uint32_t context,
                                                            planner::KvPrecision kv);
core::Result<backends::KernelSource> elementwise_source(core::Api api, Elementwise op);
core::Result<backends::KernelSource> add_bias_source(core::Api api);
core::Result<backends::KernelSource> expert_route_source(core::Api api);
core::Result<backends::KernelSource> expert_group_source(core::Api api);
core::Result<backends::KernelSource> expert_combine_source(core::Api api);
core::Result<backends::KernelSource> ssm_conv_source(core::Api api);
core::Result<backends::KernelSource> ssm_scan_source(core::Api api);
// `state` is the key head size (local memory for q and k), `workgroup` a power of two.
core::Result<backends::KernelSource> delta_net_source(core::Api api, uint32_t state,
                                                      uint32_t workgroup);
core::Result<backends::KernelSource> query_gate_source(core::Api api, QueryGate mode);

// Builds each distinct source once per device (keyed by entry point and constants).
class KernelCache {
 public:
  explicit KernelCache(backends::Device& device) : device_(device) {}
  core::Result<backends::Kernel*> get(const backends::KernelSource& source);
  backends::Device& device() { return device_; }

 private:
  backends::Device& device_;
  std::map<std::string, std::unique_ptr<backends::Kernel>> kernels_;
};

}  // namespace gauntlet::engine::device
