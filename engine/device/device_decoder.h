#pragma once
// Passes of the model on an OpenCL or Vulkan device, for every architecture the engine runs (the
// layer consults model::Architecture as the host reference does): the weights are the loader's
// buffers (one per tensor), the activations one buffer with a planner::activation_layout block per
// token of a pass, the KV cache two buffers [sequence][layer][slot][n_embd_kv]. A pass of one token
// (a decode step) runs the matvec kernels; a pass of several (a prompt's micro-batch, or one token
// of each of several sequences) runs the matmul kernels, which read each weight once for a whole
// token tile. A pass is one dispatch per op per layer; on Vulkan they all go in one batch and only
// the logits are downloaded.
#include <memory>
#include <span>
#include <vector>

#include "backends/device.h"
#include "engine/batch.h"
#include "engine/decoder.h"
#include "engine/device/config.h"
#include "engine/device/ops.h"
#include "engine/loader/loader.h"
#include "engine/model/layer_plan.h"
#include "engine/model/layer_slots.h"
#include "engine/reference/thread_pool.h"
#include "engine/stage.h"

namespace gauntlet::engine::device {

class DeviceDecoder final : public Decoder, public Stage {
 public:
  // `model` must have been loaded onto `device` and outlive the decoder. `config.context` 0
  // means the model's context. Does not check local memory against a limit: check_config does.
  // `kernels`, when given, is the device's shared kernel cache (see Ops).
  static core::Result<std::unique_ptr<DeviceDecoder>> create(backends::Device& device,
                                                             const loader::DeviceModel& model,
                                                             const DecodeConfig& config,
                                                             KernelCache* kernels = nullptr);

  core::Result<std::span<const float>> forward(std::span<const BatchToken> batch) override;
  // A share of the layers (config.layers): the pass's residual streams are uploaded before its
  // first layer and downloaded after its last.
  core::Status run_stage(std::span<const engine::PassToken> pass, std::span<float> x,
                         std::vector<float>& logits) override;
  uint32_t pass_capacity() const override { return capacity_; }
  // Replaces the KV cache (bytes laid out as the reference's: [sequence][layer][slot][n_embd_kv]
  // in the configured precision) and continues every sequence at `position`; a hybrid's recurrent
  // state is zeroed (what check_context gives the reference too).
  core::Status fill_kv(std::span<const std::byte> k, std::span<const std::byte> v,
                       uint32_t position);
  uint32_t position(uint32_t seq = 0) const override { return pos_[seq]; }
  // A sequence's next token at position 0 clears its recurrent state (engine_ssm_conv.cl,
  // engine_delta_net.cl) as it overwrites its KV slots.
  void reset() override { std::fill(pos_.begin(), pos_.end(), 0); }
  core::Status rewind(uint32_t seq, uint32_t pos) override {
    return rewind_position(pos_, seq, pos, model_.shape.recurrent_layers() > 0);
  }
  core::Result<DecoderCheckpoint> checkpoint() override;
  core::Status restore(const DecoderCheckpoint& saved) override;
  // Times every dispatch from now on into `times` (see Ops::time_dispatches); nullptr stops.
  bool time_dispatches(KernelTimes* times) override {
    ops_.time_dispatches(times);
    return true;
  }
  uint32_t context() const { return context_; }
  // The weights of the layers whose experts the host runs (config.layers.experts_elsewhere): the
  // mapped file's, which must outlive the decoder. Those layers' mixtures run on the host's
  // `threads` (0: all): each token's normed input downloaded, the reference's experts_ffn, the
  // output uploaded.
  void set_host_experts(const model::ModelWeights& weights, unsigned threads);

  DeviceDecoder(backends::Device& device, const loader::DeviceModel& model,
                const DecodeConfig& config, uint32_t context, KernelCache* kernels);

 private:
  struct Weight {
    backends::Buffer* buffer = nullptr;
    model::TensorType type = model::TensorType::f32;
  };
  // One layer's weights (engine/model/layer_slots.h): a tensor the architecture (or this share)
  // does not have stays empty (buffer == nullptr).
  using Layer = model::LayerSlots<Weight>;

  // One token of the pass being run.
  struct PassToken {
    int32_t token;
    uint32_t pos, seq;
    bool logits;
  };
  core::Status bind();
  core::Status allocate();
  core::Status run_pass();
  core::Status upload_pass();
  // A quantized cache's writes (kernels.h rope_writes_kv) and Walsh-Hadamard rotations.
  // Layer l's (per-layer shapes in gemma4; a shared-KV layer only rounds its Q).
  core::Status store_kv(uint32_t l, uint32_t layer_off, uint32_t slots, uint32_t seq_stride);
  core::Status rotate(uint64_t off, uint32_t n, uint32_t chunk);
  core::Status scale_queries(uint32_t n_q);
  core::Status run_layers();
  core::Status run_layer(uint32_t l);
  // Moves each token's residual stream (n_embd floats of x) into or out of the activations.
  core::Status upload_residuals(std::span<const float> x);
  core::Status download_residuals(std::span<float> x);
  core::Status project_qkv(const model::AttentionPlan& plan, uint32_t layer);
  // A gated DeltaNet layer (qwen35's recurrent layers) from the normed input at xb: its
  // projections, the conv and the delta rule on the sequences' state, the gated norm, and
  // x += ssm_out . o.
  core::Status recurrent(uint32_t layer);
  // lfm2's short convolution from the normed input at xb: in_proj into B, C and x, the gated conv
  // on the sequences' state, and x += out_proj . (C * conv).
  core::Status short_conv(uint32_t layer);
  // nemotron_h's Mamba2 block from the normed input at xb: ssm_in into z, x, B, C and dt, the conv
  // and the scan on the sequences' states, the grouped norm, and x += ssm_out . y.
  core::Status mamba2(uint32_t layer);
  core::Status attention(uint32_t layer);
  core::Status feed_forward(const model::LayerPlan& plan);
  core::Status dense_feed_forward(const model::LayerPlan& plan);
  // x += xb (times granite's residual_scale).
  core::Status add_residual();
  // nemotron_h's: x += ffn_down . act(ffn_up . xb).
  core::Status ungated_feed_forward(const model::LayerPlan& plan);
  // gemma4's 26B-A4B feed-forward from the normed input at xb to the sum of its branches at xb
  // (reference/gemma4_layer.h): the dense GELU branch into mlp, the router's input, the experts.
  core::Status dense_beside_experts(uint32_t layer);
  // gemma4's per-layer inputs of every layer for the pass's tokens, at ple_in (n_embd_per_layer
  // apart), from the token alone (project_per_layer_inputs), once a pass before the first layer;
  // then each layer's x += post_norm(proj . (gelu(inp_gate . x) * its input)).
  core::Status per_layer_inputs();
  core::Status per_layer_embedding(uint32_t layer);
  core::Status host_experts(uint32_t layer);
  // A mixture of experts' feed-forward: input at xb, output left at xb.
  core::Status experts(const Layer& L);
  // act[out_off + j * out_slot ..] = expert_j(stack) . act[x_off + j * x_slot ..], for each pick j
  // of every token of the pass.
  core::Status project_experts(const Weight& stack, uint32_t n_in, uint32_t n_out, uint64_t x_off,
                               uint32_t x_slot, uint64_t out_off, uint32_t out_slot);
  // Appends the marked tokens' logits to `out`.
  core::Status logits(std::vector<float>& out);
  // act[out_off ..] (+)= W . act[x_off ..] for every token of the pass: a matvec for one token, a
  // matmul for several.
  core::Status project(const Weight& w, uint32_t n_in, uint32_t n_out, uint64_t x_off,
                       uint64_t out_off, bool accumulate = false);
  // x += W . act[x_off ..] (+ bias where given), through the post-norm where the architecture
  // has one.
  core::Status add_branch(const Weight& w, uint32_t n_in, uint64_t x_off, const Weight& post_norm,
                          const Weight* bias = nullptr);
  // Each pick's expert bias row added to its slot at `off` (slot_step apart), when the
  // architecture has expert biases.
  core::Status add_expert_bias(const Weight& bias, uint32_t n, uint64_t off, uint32_t slot_step);
  uint32_t tokens() const { return static_cast<uint32_t>(pass_.size()); }
  uint32_t stride() const { return static_cast<uint32_t>(layout_.total); }

  backends::Device& device_;
  const loader::DeviceModel& model_;
  DecodeConfig config_;
  uint32_t context_;
  Ops ops_;
  planner::ActivationLayout layout_;
  planner::KvLayout kv_layout_;
  planner::KernelVariant matvec_, matmul_, attention_;
  uint32_t capacity_;  // tokens a pass holds
  Weight token_embd_, output_norm_, output_;
  Weight per_layer_token_embd_, per_layer_model_proj_, per_layer_proj_norm_;  // gemma4's E2B/E4B
  std::vector<model::LayerPlan> plan_;  // what each layer computes (model/layer_plan.h)
  std::vector<Layer> layers_;
  std::unique_ptr<backends::Buffer> act_, k_cache_, v_cache_, pass_buffer_;
  // A hybrid's recurrent state beside the KV cache: planner::state_layout's conv and delta states
  // per sequence and recurrent layer of the share (a word when it has none).
  planner::StateLayout state_layout_;
  std::unique_ptr<backends::Buffer> state_;
  // A row of angles per token of the pass: global layers, sliding layers.
  std::unique_ptr<backends::Buffer> rope_tables_[2];
  std::vector<float> tables_, logits_;
  std::vector<float> rope_factors_;  // rope_freqs.weight, read back once (empty without one)
  std::vector<float> out_scales_;    // each layer's layer_output_scale (gemma4), read back once
  std::unique_ptr<backends::Buffer> ones_;  // the weight of gemma4's unweighted V norm
  std::vector<PassToken> pass_;
  std::vector<uint32_t> pos_;  // each sequence's next position
  struct HostExperts {
    const model::ModelWeights* weights = nullptr;
    std::unique_ptr<reference::ThreadPool> pool;
    planner::ActivationLayout layout{};  // planner::experts_layout
    std::vector<float> act;
  } host_experts_;
};

}  // namespace gauntlet::engine::device
