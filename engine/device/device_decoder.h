#pragma once
// The decode step on an OpenCL or Vulkan device, for every architecture the engine runs (the layer
// consults model::Architecture as the host reference does): the weights are the loader's buffers
// (one per tensor), the activations one buffer laid out by planner::activation_layout, the KV cache
// two buffers [layer][position][n_embd_kv]. A step is one dispatch per op per layer; on Vulkan they
// all go in one batch and only the logits are downloaded.
#include <memory>
#include <span>
#include <vector>

#include "backends/device.h"
#include "engine/device/config.h"
#include "engine/device/ops.h"
#include "engine/loader/loader.h"

namespace gauntlet::engine::device {

class DeviceDecoder {
 public:
  // `model` must have been loaded onto `device` and outlive the decoder. `config.context` 0
  // means the model's context. Does not check local memory against a limit: check_config does.
  // `kernels`, when given, is the device's shared kernel cache (see Ops).
  static core::Result<std::unique_ptr<DeviceDecoder>> create(backends::Device& device,
                                                             const loader::DeviceModel& model,
                                                             const DecodeConfig& config,
                                                             KernelCache* kernels = nullptr);

  // Feeds `token` at the next position; returns the logits (valid until the next step).
  core::Result<std::span<const float>> step(int32_t token);
  // Replaces the KV cache (bytes laid out as the reference's: [layer][position][n_embd_kv] in the
  // configured precision) and continues at `position`.
  core::Status fill_kv(std::span<const std::byte> k, std::span<const std::byte> v,
                       uint32_t position);
  uint32_t position() const { return pos_; }
  // Times every dispatch from now on into `times` (see Ops::time_dispatches); nullptr stops.
  void time_dispatches(KernelTimes* times) { ops_.time_dispatches(times); }
  uint32_t context() const { return context_; }

  DeviceDecoder(backends::Device& device, const loader::DeviceModel& model,
                const DecodeConfig& config, uint32_t context, KernelCache* kernels);

 private:
  struct Weight {
    backends::Buffer* buffer = nullptr;
    model::TensorType type = model::TensorType::f32;
  };
  // A tensor the architecture does not have stays empty (buffer == nullptr).
  struct Layer {
    Weight attn_norm, wq, wk, wv, wo, ffn_norm, w_gate, w_up, w_down;
    Weight wqkv, bq, bk, bv, q_norm, k_norm;
  };
  core::Status bind();
  core::Status allocate();
  core::Status run_layer(uint32_t l);
  core::Status project_qkv(const Layer& L);
  core::Status feed_forward(const Layer& L);

  backends::Device& device_;
  const loader::DeviceModel& model_;
  DecodeConfig config_;
  uint32_t context_;
  Ops ops_;
  planner::ActivationLayout layout_;
  planner::KernelVariant matvec_, attention_;
  Weight token_embd_, output_norm_, output_;
  std::vector<Layer> layers_;
  std::unique_ptr<backends::Buffer> act_, k_cache_, v_cache_, rope_table_;
  std::vector<float> table_, logits_;
  std::vector<float> rope_factors_;  // rope_freqs.weight, read back once (empty without one)
  uint32_t pos_ = 0;
};

}  // namespace gauntlet::engine::device
