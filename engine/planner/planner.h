#pragma once
// The memory planner: one function per quantity, used by the code that allocates (the reference
// decode, the loader, the device kernels of part 2) and by the harness that plans profiles, so
// that a prediction and the allocation it predicts cannot drift apart.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "engine/model/shape.h"
#include "engine/model/tensor_type.h"

namespace gauntlet::engine::planner {

using model::FileType;
using model::ModelShape;
using model::TensorDesc;
using model::TensorType;

// The KV cache's element types, K's and V's: f32, f16 (today's profiles) or one of llama.cpp's
// quantized cache types (kv_cache_types: q8_0, q4_0, q4_1, q5_0, q5_1, iq4_nl), each row of
// n_embd_kv elements in the type's blocks. A quantized V needs flash attention in llama.cpp
// (llama_init_from_model); gauntlet's engine checks it where it is asked for (needs_flash).
struct KvPrecision {
  TensorType k = TensorType::f32;
  TensorType v = TensorType::f32;
  static const KvPrecision f32;
  static const KvPrecision f16;
  bool operator==(const KvPrecision&) const = default;
  bool quantized() const { return model::is_quantized(k) || model::is_quantized(v); }
  bool needs_flash() const { return model::is_quantized(v); }
};
inline constexpr KvPrecision KvPrecision::f32{TensorType::f32, TensorType::f32};
inline constexpr KvPrecision KvPrecision::f16{TensorType::f16, TensorType::f16};
// "f32", "q8_0", or "q8_0/f16" when K's and V's differ.
std::string to_string(KvPrecision precision);
// The types a KV cache may hold: f32, f16 and llama.cpp's -ctk/-ctv types
// (placement::kv_cache_types without bf16, which the engine does not store).
bool is_kv_cache_type(TensorType type);
// Bytes of one K or V row of n elements in `type`.
inline uint64_t kv_row_bytes(TensorType type, uint64_t n) { return model::row_bytes(type, n); }

// --- global memory -------------------------------------------------------------------------

// Bytes of all the tensors, each in its own type.
uint64_t weight_bytes(std::span<const TensorDesc> tensors);
// The same for a file of `format` (model_tensors gives each tensor's type).
uint64_t weight_bytes(const ModelShape& shape, FileType format);
// The largest single tensor (bounds one allocation and the loader's staging buffer).
uint64_t largest_tensor_bytes(std::span<const TensorDesc> tensors);
// A share of a model's layers, as one device of a placement runs it: the repeating layers
// [first, last) and, with `output`, the output layer (final norm and logits; llama.cpp's layer
// slot n_layer). With `embed` the share looks the tokens up itself; without, it takes each token's
// residual stream from the share before it (the input embedding stays on the host, as llama.cpp
// keeps its input layer on the CPU).
// `experts_elsewhere` lists the range's layers whose routed experts (ffn_{gate,up,down}_exps) are
// not the share's: the host holds and runs them (llama.cpp's --cpu-moe, --n-cpu-moe, -ot
// exps=CPU).
struct LayerRange {
  uint32_t first = 0;
  uint32_t last = UINT32_MAX;
  bool output = true;
  bool embed = true;
  std::vector<uint32_t> experts_elsewhere = {};
  static LayerRange whole() { return {}; }
  bool holds(uint32_t layer) const { return layer >= first && layer < last; }
  bool holds_experts(uint32_t layer) const;
  bool is_whole(uint32_t n_layer) const {
    return first == 0 && last >= n_layer && output && embed && experts_elsewhere.empty();
  }
};
// Whether `name` is one of a layer's routed-expert stacks (blk.N.ffn_{gate,up,down}_exps.weight)
// or their bias rows (gpt-oss's ffn_*_exps.bias, which move with them).
bool is_expert_stack(const std::string& name);
// Whether the share holds the tensor of that name: blk.N.* for its layers (their expert stacks
// unless elsewhere), the output norm and matrix with the output layer, token_embd to embed or as
// the tied output, rope_freqs with any layer.
bool holds_tensor(const LayerRange& range, const ModelShape& shape, const std::string& name);
// The tensors of `tensors` the share holds.
std::vector<TensorDesc> tensors_in(const LayerRange& range, const ModelShape& shape,
                                   std::span<const TensorDesc> tensors);

// Where each layer's K (and V) rows of n_embd_kv elements live in one sequence's cache of
// `context` positions: a sliding-window layer keeps a ring of min(context, window + micro_batch -
// 1) positions (position t in slot t % slots), any other layer all `context`. A pass writes the K
// and V of all its micro_batch tokens before any of them attends, so the ring holds the window of
// its first token plus the tokens after it (llama.cpp sizes its sliding cache n_swa + n_ubatch,
// llama_kv_cache_iswa in src/llama-kv-cache-iswa.cpp). Sequence s's cache follows sequence s - 1's
// (per_sequence elements each). A layer outside `range`, a recurrent layer of a hybrid
// (ModelShape::recurrent), or a layer that reads another's cache (gemma4's shared KV layers)
// keeps no slots. A layer's rows are its own n_embd_kv(l) elements (gemma4's differ by layer).
struct KvLayout {
  std::vector<uint32_t> slots;   // per layer
  std::vector<uint64_t> offset;  // per layer: the element index of its slot 0
  uint64_t total_slots = 0;
  // Elements of one sequence's cache: total_slots * n_embd_kv where every layer's rows are alike.
  uint64_t per_sequence = 0;
};
KvLayout kv_layout(const ModelShape& shape, uint32_t context, uint32_t micro_batch = 1,
                   const LayerRange& range = LayerRange::whole());
// A hybrid's recurrent state (llama.cpp's llama_memory_recurrent beside the KV cache of the
// attention layers, src/llama-memory-hybrid.cpp): per sequence and recurrent layer in `range`, the
// conv state ((ssm_conv - 1) inputs per channel, as conv_states: channel c's at c * (ssm_conv - 1))
// then the delta state (per value head a head_dim x head_dim f32 matrix, stored transposed as
// ggml's gated_delta_net keeps it: element [j * head_dim + i] is S[i][j]). Fixed per sequence,
// whatever the context. Sequence s's block follows sequence s - 1's (per_sequence floats each);
// offset[l] is layer l's conv state within a block (0 for a layer without state).
struct StateLayout {
  std::vector<uint64_t> offset;
  uint64_t per_sequence = 0;  // floats
};
StateLayout state_layout(const ModelShape& shape, const LayerRange& range = LayerRange::whole());
// per_sequence * 4 bytes (f32, llama.cpp's default type_r and type_s) * sequences.
uint64_t state_bytes(const ModelShape& shape, uint32_t sequences,
                     const LayerRange& range = LayerRange::whole());

// 2 (K and V) * (slots over the layers) * n_head_kv * head_dim * sequences * bytes per element.
uint64_t kv_cache_bytes(const ModelShape& shape, uint32_t context, uint32_t sequences,
                        KvPrecision precision, uint32_t micro_batch = 1,
                        const LayerRange& range = LayerRange::whole());
// The same with every layer holding the whole context (what a window-blind plan would say).
uint64_t kv_cache_bytes_without_window(const ModelShape& shape, uint32_t context,
                                       uint32_t sequences, KvPrecision precision);

// Offsets (in floats) of the f32 activation vectors of one token of a pass; token t of a pass
// has its own copy at t * total (the kernels' token stride).
// A mixture of experts adds the router's logits (then probabilities), the selection (the picked
// experts' ids as floats, their weights, and the shared expert's gate), and each picked expert's
// gate, up and down outputs, slot by slot.
struct ActivationLayout {
  uint64_t x, xb, xb2, q, k, v, att, hb, hb2, logits;
  uint64_t router, selected, experts_gate, experts_up, experts_out;
  // A pass's picks grouped by expert (engine_expert_group.cl), expert_group_len() floats a token.
  uint64_t expert_groups;
  // A gated attention layer (qwen35): the Q projection, each head [q | gate], and the gates
  // split out of it. A gated DeltaNet layer: the Q/K/V projection (ssm_qkv), the conv's output
  // (ssm_conv: Q, K, V), the output gate z, beta then alpha per value head (ssm_ba), and the
  // delta rule's output (ssm_o).
  uint64_t q_gate, gate, ssm_qkv, ssm_conv, ssm_z, ssm_ba, ssm_o;
  // gemma4's per-layer embedding: the token's scaled embedding again (ple_x), its layer's input
  // (ple_in) and the gate (ple_gate); its 26B-A4B layer: the dense branch's output (mlp) and the
  // router's input (router_in).
  uint64_t ple_x, ple_in, ple_gate, mlp, router_in;
  uint64_t total;  // floats
};
ActivationLayout activation_layout(const ModelShape& shape, uint32_t context);
// The picks' list (1 + n * k), and up to 2 * n * k tiles of 3 floats, spread over n tokens.
inline uint32_t expert_group_len(const ModelShape& shape) {
  return shape.moe() ? 7 * shape.n_expert_used + 1 : 0;
}
// Only what a mixture's feed-forward uses (xb, hb, hb2 and the expert regions), packed: a token's
// block where a device hands a layer's experts to the host.
ActivationLayout experts_layout(const ModelShape& shape);
// Activations and scratch for a pass of `tokens` tokens: activation_layout(...).total * 4 *
// tokens.
uint64_t activation_bytes(const ModelShape& shape, uint32_t context, uint32_t tokens);
// Tokens one pass holds: a prompt's micro-batch, or one token of each sequence decoded together.
inline uint32_t pass_tokens(uint32_t micro_batch, uint32_t sequences) {
  return micro_batch > sequences ? micro_batch : sequences;
}

// The loader stages one chunk at a time: min(chunk, largest tensor) bytes.
uint64_t staging_bytes(std::span<const TensorDesc> tensors, uint64_t chunk_bytes);

struct PlanOptions {
  // The file type whose tensors are planned, unless `tensors` names them (a real file's own).
  FileType format = FileType::f32;
  uint32_t context = 0;    // 0: the model's context
  uint32_t sequences = 1;  // sequences decoded together, each with its own KV cache
  KvPrecision kv = KvPrecision::f32;
  uint64_t chunk_bytes = 16ull << 20;
  std::span<const TensorDesc> tensors = {};
  uint32_t micro_batch = 1;  // prompt tokens per pass
};

struct MemoryPlan {
  uint64_t weights = 0;
  uint64_t kv_cache = 0;
  uint64_t state = 0;  // a hybrid's recurrent state (state_bytes)
  uint64_t activations = 0;
  uint64_t staging = 0;
  uint64_t steady_state = 0;  // weights + KV cache + state + activations: memory while decoding
  uint64_t load_peak = 0;     // weights + staging: host memory at the end of the load
  uint64_t peak = 0;          // the larger of the two (staging is freed before decoding)
};
MemoryPlan plan_memory(const ModelShape& shape, const PlanOptions& options);

// --- local memory per kernel variant ---------------------------------------------------------

// flash_attention: one workgroup per KV head and token serving the query heads of its group, K
// and V tiles of score_tile positions in local memory (engine_flash_attention.cl).
enum class KernelOp { matvec, attention, rmsnorm, matmul, flash_attention };
enum class ActivationType { f32, f16 };
uint32_t activation_element_bytes(ActivationType type);

inline constexpr uint32_t kWholeVector = 0;

// What part 2's kernels take as defines / specialization constants.
struct KernelVariant {
  KernelOp op = KernelOp::matvec;
  uint32_t workgroup = 64;
  // Activation elements held in local memory: kWholeVector for all of them, else a chunk.
  uint32_t activation_tile = kWholeVector;
  ActivationType activation_type = ActivationType::f32;
  // Attention: scores held in local memory per pass (0: the whole context).
  uint32_t score_tile = 0;
  // A workgroup-wide reduction through local memory (workgroup floats).
  bool local_reduction = true;
  // Matmul: the tokens whose activation tiles a workgroup holds at once (its token tile).
  uint32_t tokens = 1;

  // e.g. "matvec.wg64.whole.f32", "attention.wg64.s256.f32", "matmul.wg64.n16.t256.f32"
  std::string name() const;
};

struct KernelDims {
  uint64_t n_in = 0;      // matvec input width / rmsnorm width
  uint32_t head_dim = 0;  // attention
  uint32_t context = 0;   // attention: positions attended
  uint32_t group = 1;     // flash attention: query heads per KV head
  // matvec, matmul: the weight types' decoder tables held in local memory beside the tiles
  // (core::vulkan_decoder_table_bytes; 0 on OpenCL, which reads them from constant memory).
  uint64_t table_bytes = 0;
};

// Flash attention's K/V tile: score_tile positions (kFlashTile when 0), at most the context.
inline constexpr uint32_t kFlashTile = 32;
uint32_t flash_tile(const KernelVariant& variant, uint32_t context);

// The activation tile: n_in (whole) or min(tile, n_in) elements times the element size.
uint64_t activation_tile_bytes(const KernelVariant& variant, uint64_t n_in);
// The matvec's sums of each 16 activations of its tile (f32, 16 per 256 elements or part).
uint64_t tile_sums_bytes(const KernelVariant& variant, uint64_t n_in);
// Attention scores: min(score_tile, context) (or context) floats.
uint64_t score_tile_bytes(const KernelVariant& variant, uint32_t context);
uint64_t reduction_scratch_bytes(const KernelVariant& variant);
// All local memory one dispatch of the variant needs (a matmul: `tokens` activation tiles; flash
// attention: the group's queries, K and V tiles, the group's scores and 3 floats per head, f32).
uint64_t local_mem_bytes(const KernelVariant& variant, const KernelDims& dims);

// The widest matvec input of a model (max(n_embd, n_ff, n_head * head_dim)) and the most local
// memory the decode step needs with these variants, over all its kernels.
uint64_t widest_matvec_input(const ModelShape& shape);
uint64_t decode_local_mem_bytes(const KernelVariant& matvec, const KernelVariant& attention,
                                const ModelShape& shape, uint32_t context);
// A gated DeltaNet's delta-rule kernel (engine_delta_net.cl): its workgroup for a key head of
// `state` (the next power of two, at most 256: one column of the state per work-item) and its
// local memory (q and k of the head, two reduction rows); 0 for a model without one.
uint32_t delta_net_workgroup(uint32_t state);
uint64_t delta_net_local_mem_bytes(const ModelShape& shape);
// A pass of several tokens adds the matmul over the widest input.
uint64_t pass_local_mem_bytes(const KernelVariant& matvec, const KernelVariant& matmul,
                              const KernelVariant& attention, const ModelShape& shape,
                              uint32_t context, uint32_t tokens);

}  // namespace gauntlet::engine::planner
