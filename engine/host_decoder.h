#pragma once
// Decoding on the host backend's Device (the `host` reference, or the `cpu` device, whose passes
// take the fast products of engine/cpu): the weights are the device buffers the loader filled,
// the KV cache and the activations are device buffers too (so the device's accounting sees the
// whole steady state), and each step is one dispatch of a host kernel that runs the reference
// forward pass over those buffers.
#include <algorithm>
#include <memory>
#include <span>
#include <vector>

#include "backends/device.h"
#include "engine/decoder.h"
#include "engine/loader/loader.h"
#include "engine/reference/decoder.h"

namespace gauntlet::engine {

class HostDeviceDecoder final : public Decoder {
 public:
  // `device` must be the host backend; `model` must have been loaded onto it and outlive this.
  // `fast`: the cpu device's products, made on the first pass over the loaded (and possibly
  // interleaved) matrices.
  static core::Result<std::unique_ptr<HostDeviceDecoder>> create(
      backends::Device& device, const loader::DeviceModel& model,
      const reference::DecodeOptions& options, bool fast = false);

  // As reference::Decoder::forward, each pass one dispatch.
  core::Result<std::span<const float>> forward(std::span<const BatchToken> batch) override;
  uint32_t position(uint32_t seq = 0) const override { return pos_[seq]; }
  void reset() override { std::fill(pos_.begin(), pos_.end(), 0); }
  core::Status rewind(uint32_t seq, uint32_t pos) override {
    return rewind_position(pos_, seq, pos, model_.shape.recurrent_layers() > 0);
  }
  core::Result<DecoderCheckpoint> checkpoint() override;
  core::Status restore(const DecoderCheckpoint& saved) override;
  uint32_t context() const { return context_; }

  HostDeviceDecoder(backends::Device& device, const loader::DeviceModel& model,
                    const reference::DecodeOptions& options, uint32_t context, bool fast);

 private:
  core::Status run(const backends::HostInvocation& call);

  backends::Device& device_;
  const loader::DeviceModel& model_;
  reference::KvPrecision kv_;
  uint32_t context_, sequences_, micro_batch_;
  bool flash_attention_ = false;  // -fa
  reference::ThreadPool pool_;
  bool fast_ = false;
  std::unique_ptr<reference::Products> products_;  // the cpu device's, made on the first pass
  std::unique_ptr<backends::Buffer> activations_, k_cache_, v_cache_, state_;
  std::unique_ptr<backends::Kernel> kernel_;
  std::vector<engine::PassToken> pass_;  // what the next dispatch runs
  std::vector<float> logits_;
  std::vector<uint32_t> pos_;
};

}  // namespace gauntlet::engine
