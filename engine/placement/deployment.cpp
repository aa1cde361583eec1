#include "engine/placement/deployment.h"

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <string>

namespace gauntlet::engine::placement {

namespace {

uint64_t pad256(uint64_t n) { return (n + 255) / 256 * 256; }

// The layer slot a tensor belongs to; token_embd (the input layer) has none.
std::optional<uint32_t> slot_of(const std::string& name, uint32_t n_layer) {
  if (name.rfind("blk.", 0) == 0) {
    return static_cast<uint32_t>(std::strtoul(name.c_str() + 4, nullptr, 10));
  }
  if (model::is_output_tensor(name)) return n_layer;
  if (name == "token_embd.weight") return std::nullopt;
  return 0;  // rope_freqs: with the first layer
}

uint32_t host_index(const Placement& p) {
  const auto it = std::find(p.devices.begin(), p.devices.end(), kHost);
  return static_cast<uint32_t>(it - p.devices.begin());
}

// Element counts of one reserve-graph peak (src/llama-context.cpp sched_reserve: a graph of
// T = min(n_ubatch, n_ctx) tokens, every one producing logits, attending over the whole cache,
// without flash attention), in f32: the attention (KQ of n_kv x T per head and the masks), the
// feed-forward, and the logits. Estimated from ggml-alloc's peaks measured on llama, qwen3 and
// gemma3 files: within 2% where attention or logits bind, up to 15% over where the feed-forward
// does.
struct GraphPeaks {
  uint64_t layers = 0;  // max(attention, feed-forward)
  uint64_t logits = 0;
  uint64_t inputs = 0;  // what the host backend holds for a GPU: the masks and embedded tokens
};

// With flash attention (llama-graph.cpp build_attn_mha's ggml_flash_attn_ext) no score matrix is
// kept and the masks are f16: half an element per cell; the host then holds two n_embd per
// token beside them (measured on llama files: 3.01 and 6.01 MiB at 1024 and 4096 cells, 512
// tokens, n_embd 512).
GraphPeaks graph_peaks(const planner::ModelShape& s, uint64_t full_cells, uint64_t swa_cells,
                       uint64_t tokens, bool flash_attention) {
  const uint64_t n_embd = s.n_embd, n_q = s.n_embd_q(), n_kv = s.n_embd_kv();
  const uint64_t masks =
      flash_attention ? (full_cells + swa_cells + 1) / 2 : full_cells + swa_cells;
  const uint64_t scores = flash_attention ? 0 : full_cells * s.n_head;
  const uint64_t attention = tokens * (scores + masks + 4 * n_embd + 2 * n_q + 2 * n_kv);
  // A mixture's feed-forward holds each token's picked experts' gate and up (and the router's
  // logits); a shared expert adds its own.
  const uint64_t ff_width = s.moe() ? uint64_t{s.n_expert_used} * s.expert_ff() +
                                          (s.shared_expert() ? s.shared_expert_ff() : 0) +
                                          2ull * s.n_expert
                                    : s.n_ff;
  const uint64_t ffn = tokens * (3 * ff_width + n_embd * 11 / 2);
  // A gated DeltaNet layer (qwen35) holds, beside the masks, three copies of its conv's channels
  // and of n_embd per token: measured with llama.cpp 3.22.1 on the CPU at 512 tokens over ssm
  // widths of 1024 to 2048 channels and n_embd 256 and 512 (the value heads' width alone added
  // nothing), each within 2% under this.
  // A Mamba2 layer is taken as the same three copies of its wider input projection (z, x, B, C
  // and dt) and n_embd. On nemotron_h files of n_embd 256 and 512 (6 layers, one attending, 1024
  // cells, 512 tokens) llama.cpp 3.22.1's CPU compute buffer was 8.38 and 14.99 MiB, where this
  // plans 13.5 and 17.9 MiB (the attention term binds): above, never below, but not yet within 5%.
  const uint64_t recurrent_width = s.traits().mamba2            ? s.mamba2_in_proj()
                                   : s.traits().gated_delta_net ? s.ssm_channels()
                                                                : 0;
  const uint64_t recurrent =
      recurrent_width != 0 ? tokens * (masks + 3 * (recurrent_width + n_embd)) : 0;
  return {4 * std::max({attention, ffn, recurrent}),
          4 * tokens * (uint64_t{s.n_vocab} + 3 * n_embd),
          4 * tokens * (masks + (flash_attention ? 2 : 3) * n_embd)};
}

// A quantized cache's Walsh-Hadamard rotations (src/llama-kv-cache.cpp attn_rot_k/attn_rot_v,
// where the head dimension is a multiple of 64): graph inputs of f32 n x n, K's n the largest
// power of two from 64 up that divides the head dimension (build_input_k_rot), V's 64.
uint64_t rotation_inputs(const planner::ModelShape& s, const DeploymentOptions& o) {
  const uint32_t head = s.head_dim();
  if (head % 64 != 0) return 0;
  uint64_t n_k = 64;
  while (head % (n_k * 2) == 0) n_k *= 2;
  const bool k = core::block_elements(o.cache_type_k) > 1,
             v = core::block_elements(o.cache_type_v) > 1;
  return (k ? 4 * n_k * n_k : 0) + (v ? 4 * 64 * 64 : 0);
}

constexpr core::TensorType kKvCacheTypes[] = {
    core::TensorType::f32,  core::TensorType::f16,  core::TensorType::bf16,
    core::TensorType::q8_0, core::TensorType::q4_0, core::TensorType::q4_1,
    core::TensorType::q5_0, core::TensorType::q5_1, core::TensorType::iq4_nl};

}  // namespace

std::span<const core::TensorType> kv_cache_types() { return kKvCacheTypes; }

std::string known_kv_cache_types() {
  std::string names;
  for (auto t : kKvCacheTypes)
    names += (names.empty() ? "" : ", ") + std::string(core::to_string(t));
  return names;
}

std::optional<core::TensorType> parse_kv_cache_type(std::string_view name) {
  for (auto t : kKvCacheTypes) {
    if (name == core::to_string(t)) return t;
  }
  return std::nullopt;
}

uint32_t kv_cells(const planner::ModelShape& shape, uint32_t layer, const DeploymentOptions& o) {
  const uint32_t sequences = std::max(o.sequences, 1u);
  if (!shape.attends(layer) || !shape.has_kv(layer)) return 0;
  const uint64_t full = pad256(pad256(o.context) / sequences);
  if (!shape.sliding(layer)) return static_cast<uint32_t>(full);
  return static_cast<uint32_t>(
      pad256(std::min<uint64_t>(full, uint64_t{shape.sliding_window} + o.micro_batch)));
}

std::vector<DeploymentBytes> deployment_bytes(const planner::ModelShape& s,
                                              std::span<const planner::TensorDesc> tensors,
                                              const Placement& p, const DeploymentOptions& o) {
  std::vector<DeploymentBytes> out(p.devices.size());
  for (size_t d = 0; d < out.size(); ++d) out[d].device = p.devices[d];
  const uint32_t n_layer = s.n_layer;
  const uint32_t host = host_index(p);
  const bool host_listed = host < p.devices.size();
  const auto fits_device = [&](uint64_t bytes) {
    return o.device_tensor_limit == 0 || bytes <= o.device_tensor_limit;
  };
  // The output layer's weight goes where its slot says unless its 512-token logits do not fit a
  // device tensor (llama.cpp tests each weight's op with 512 tokens when it picks a buffer).
  const bool output_on_slot = fits_device(4ull * s.n_vocab * 512);
  const uint32_t output_device = output_on_slot ? p.slot_device.at(n_layer) : host;

  // Weights (src/llama-model.cpp load_tensors): each layer's tensors on its slot's device, the
  // input embedding on the CPU; a tied output is a duplicate of token_embd in the output layer's
  // buffer (TENSOR_DUPLICATED), so a GPU holding the output layer holds a second copy.
  uint64_t output_weight = 0;
  // Each layer's two largest matrices in host memory (an FFN's gate and up, or two expert stacks,
  // read by one split at once).
  std::vector<std::pair<uint64_t, uint64_t>> layer_largest(n_layer, {0, 0});
  for (const auto& t : tensors) {
    const auto slot = slot_of(t.name, n_layer);
    // An MTP block after the trunk: llama.cpp skips its tensors (TENSOR_SKIP) without an MTP
    // context.
    if (slot && *slot >= n_layer && t.name.rfind("blk.", 0) == 0) continue;
    uint32_t device = slot ? p.slot_device.at(*slot) : host;
    if (slot == n_layer) device = output_device;
    // -ot exps=CPU and its kin: a layer's expert stacks where the placement puts them.
    if (planner::is_expert_stack(t.name)) device = p.experts_of(*slot);
    if (device < out.size()) out[device].weights += t.bytes();
    if (device == host && slot && *slot < n_layer && t.name.rfind("blk.", 0) == 0) {
      auto& [first, second] = layer_largest[*slot];
      second = std::max(second, std::min(first, t.bytes()));
      first = std::max(first, t.bytes());
    }
    if (t.name == "output.weight" || (t.name == "token_embd.weight" && s.tied_output)) {
      output_weight = t.bytes();
    }
  }
  if (s.tied_output && output_device != host) out[output_device].weights += output_weight;

  // KV cache (src/llama-kv-cache.cpp): cells x (K row + V row) per layer and sequence stream, on
  // the layer's device; a row is ggml_row_size of its type (q8_0: 34 bytes per 32 values).
  // Rows of each layer's own width (gemma4's differ); a layer reading another's cache has none.
  uint64_t full_cells = 0, swa_cells = 0;
  for (uint32_t l = 0; l < n_layer; ++l) {
    const uint64_t cell_bytes = core::row_bytes(o.cache_type_k, s.n_embd_kv(l)) +
                                core::row_bytes(o.cache_type_v, s.n_embd_kv(l));
    const uint64_t cells = kv_cells(s, l, o);
    if (cells != 0) (s.sliding(l) ? swa_cells : full_cells) = cells;
    out[p.slot_device[l]].kv_cache += cells * std::max(o.sequences, 1u) * cell_bytes;
  }
  if (full_cells == 0) full_cells = swa_cells;

  // A hybrid's recurrent state (src/llama-memory-recurrent.cpp, as llama_model::create_memory
  // makes it for qwen35): per recurrent layer, on its device (offload_kqv), f32 rows of n_embd_r
  // (conv) and n_embd_s (delta) for max(1, n_seq_max) cells.
  for (uint32_t l = 0; l < n_layer; ++l) {
    if (!s.recurrent(l)) continue;
    out[p.slot_device[l]].state +=
        (s.ssm_conv_floats() + s.ssm_delta_floats()) * sizeof(float) * std::max(o.sequences, 1u);
  }

  // Output buffer (llama_context::output_reserve): n_vocab floats per sequence, in host memory.
  if (host_listed) out[host].output = 4ull * s.n_vocab * std::max(o.sequences, 1u);

  // Compute buffers. A GPU holding layers takes the graph's peak. An op whose weight is in host
  // memory runs on the GPU when the micro-batch is 32 or more (op offload,
  // GGML_OP_OFFLOAD_MIN_BATCH), the weight copied into the GPU's compute buffer while it runs:
  // a host layer's two largest matrices during the layers (measured: a 2-4 MiB rise on llama
  // and gemma files at micro-batches 32 and 512; a layer's expert stacks in host memory are
  // offloaded the same way, ggml-vulkan's offload_op taking MUL_MAT_ID by its token count), the
  // output weight during the logits (when the
  // logits fit a device tensor; else the host computes them). The host's buffer holds the graph
  // inputs for a GPU, and the logits it computes; with no GPU it takes the whole peak.
  const uint64_t tokens = std::min<uint64_t>(o.micro_batch, pad256(o.context));
  GraphPeaks peak = graph_peaks(s, full_cells, swa_cells, tokens, o.flash_attention);
  peak.inputs += rotation_inputs(s, o);
  const bool offload = o.micro_batch >= 32;
  uint64_t host_layer = 0;
  for (uint32_t l = 0; l < n_layer; ++l) {
    host_layer = std::max(host_layer, layer_largest[l].first + layer_largest[l].second);
  }
  int gpu_with_output = -1;
  bool any_gpu = false;
  for (size_t d = 0; d < out.size(); ++d) {
    if (d == host || std::count(p.slot_device.begin(), p.slot_device.end(), d) == 0) continue;
    any_gpu = true;
    if (p.slot_device[n_layer] == d) gpu_with_output = static_cast<int>(d);
    out[d].compute = kAllocatorSlack + peak.layers + (offload ? host_layer : 0);
  }
  const bool logits_on_gpu = gpu_with_output >= 0 && fits_device(4 * tokens * s.n_vocab) &&
                             (output_device != host || offload);
  if (logits_on_gpu) {
    auto& gpu = out[static_cast<size_t>(gpu_with_output)];
    const uint64_t borrowed = output_device == host ? output_weight : 0;
    gpu.compute = std::max(gpu.compute, kAllocatorSlack + peak.logits + borrowed);
  }
  if (host_listed) {
    const uint64_t whole = kAllocatorSlack + std::max(peak.layers, peak.logits);
    out[host].compute = !any_gpu        ? whole
                        : logits_on_gpu ? peak.inputs
                                        : std::max(peak.inputs, peak.logits);
  }
  return out;
}

std::vector<DeploymentBytes> mtp_deployment_bytes(const planner::ModelShape& s,
                                                  std::span<const planner::TensorDesc> tensors,
                                                  const DeploymentOptions& o) {
  if (s.n_layer_nextn == 0) return {};
  // The MTP context's graph (src/models/qwen35.cpp graph_mtp): the block as a full-attention
  // layer over its own cache, then the shared output head.
  planner::ModelShape block = s;
  block.n_layer = s.n_layer_nextn;
  block.n_layer_nextn = 0;
  block.full_attention_interval = 1;
  auto whole = from_gpu_layers(block.n_layer, {-1, {"device"}, {}, kHost});
  auto out = deployment_bytes(block, {}, *whole, o);
  for (const auto& t : tensors) {
    const auto slot = slot_of(t.name, s.n_layer);
    if (slot && *slot >= s.n_layer && t.name.rfind("blk.", 0) == 0) out[0].weights += t.bytes();
  }
  return out;
}

}  // namespace gauntlet::engine::placement
