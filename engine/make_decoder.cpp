#include "engine/make_decoder.h"

#include "engine/cpu/fast_products.h"
#include "engine/device/device_decoder.h"
#include "engine/device/profile_check.h"
#include "engine/host_decoder.h"
#include "engine/placement/expert_placement.h"
#include "engine/reference/decoder.h"
#include "engine/split_decoder.h"

namespace gauntlet::engine {

namespace {

// The host API's devices run the reference's pass in this process: `host` with the exact products,
// `cpu` with its fast ones.
bool on_host(const backends::Device& device) {
  return device.info().products != core::Products::kernels;
}
bool fast(const backends::Device& device) {
  return device.info().products == core::Products::int8_simd;
}

device::DecodeConfig device_config(backends::Device& device, const model::ModelShape& shape,
                                   model::FileType weights, const DecoderSettings& o,
                                   const planner::LayerRange& layers) {
  device::DecodeConfig config =
      device::default_config(device.info(), device.info().local_mem_size, shape, weights);
  static_cast<planner::DecoderSettings&>(config) = o;
  config.layers = layers;
  return config;
}

core::Result<std::unique_ptr<device::DeviceDecoder>> device_decoder(
    backends::Device& device, const loader::DeviceModel& model, const device::DecodeConfig& c) {
  GAUNTLET_TRY(device::check_config(device.info(), device.info().local_mem_size, model.shape, c));
  return device::DeviceDecoder::create(device, model, c);
}

// A decoder and the models it runs over, released after it.
class Owning final : public Decoder {
 public:
  Owning(std::unique_ptr<model::LoadedModel> host_view,
         std::vector<std::unique_ptr<loader::DeviceModel>> models)
      : models_(std::move(models)), host_view_(std::move(host_view)) {}
  void set(std::unique_ptr<Decoder> decoder) { decoder_ = std::move(decoder); }
  core::Result<std::span<const float>> forward(std::span<const BatchToken> batch) override {
    return decoder_->forward(batch);
  }
  void reset() override { decoder_->reset(); }
  uint32_t position(uint32_t seq) const override { return decoder_->position(seq); }
  core::Status rewind(uint32_t seq, uint32_t pos) override { return decoder_->rewind(seq, pos); }
  bool time_dispatches(KernelTimes* times) override { return decoder_->time_dispatches(times); }
  core::Result<DecoderCheckpoint> checkpoint() override { return decoder_->checkpoint(); }
  core::Status restore(const DecoderCheckpoint& saved) override { return decoder_->restore(saved); }
  bool keep_final_residuals(bool keep) override { return decoder_->keep_final_residuals(keep); }
  std::span<const float> final_residuals() const override { return decoder_->final_residuals(); }

 private:
  std::vector<std::unique_ptr<loader::DeviceModel>> models_;
  std::unique_ptr<model::LoadedModel> host_view_;
  std::unique_ptr<Decoder> decoder_;
};

}  // namespace

core::Result<std::unique_ptr<Decoder>> make_decoder(backends::Device& device,
                                                    const loader::DeviceModel& model,
                                                    const DecoderSettings& o) {
  if (on_host(device)) {
    reference::DecodeOptions ro{o};
    auto d = HostDeviceDecoder::create(device, model, ro, fast(device));
    if (!d) return d.error();
    return std::unique_ptr<Decoder>(std::move(*d));
  }
  auto d = device_decoder(
      device, model,
      device_config(device, model.shape, model.file_type, o, planner::LayerRange::whole()));
  if (!d) return d.error();
  return std::unique_ptr<Decoder>(std::move(*d));
}

core::Result<PlacedDevices> place(const model::ModelShape& shape, const PlacementRequest& request,
                                  std::span<backends::Device* const> devices,
                                  backends::Device* host) {
  if (devices.empty()) {
    return core::make_error(core::ErrorKind::invalid_argument, "no device to place the model on");
  }
  PlacedDevices out;
  if (devices.size() == 1 && !request.splits_layers()) {
    out.placement = placement::whole(shape.n_layer, devices[0]->name());
  } else {
    placement::GpuLayers ask{request.n_gpu_layers, {}, request.tensor_split, placement::kHost};
    // The cpu device takes the host's slots (`host` in the placement), never a GPU's.
    for (auto* d : devices) {
      if (!fast(*d)) ask.gpus.push_back(d->name());
    }
    auto p = placement::from_gpu_layers(shape.n_layer, ask);
    if (!p) return p.error();
    out.placement = std::move(*p);
  }
  if (request.n_cpu_moe > 0) {
    GAUNTLET_TRY(placement::experts_on_host(out.placement, shape, request.n_cpu_moe));
  }
  for (const auto& rule : request.override_tensors) {
    GAUNTLET_TRY(placement::override_tensors(out.placement, shape, rule));
  }
  // The placement's devices by name: the --device list, and the host where it holds anything.
  for (const auto& name : out.placement.devices) {
    backends::Device* found = name == placement::kHost ? host : nullptr;
    for (auto* d : devices) {
      if (d->name() == name) found = d;
    }
    if (found == nullptr) {
      return core::make_error(
          core::ErrorKind::invalid_argument,
          out.placement.label + " puts layers or experts on " + name + ", which was not opened");
    }
    out.devices.push_back(found);
  }
  return out;
}

core::Result<std::unique_ptr<Decoder>> make_decoder(const placement::Placement& placement,
                                                    std::span<backends::Device* const> devices,
                                                    const model::GgufFile& file,
                                                    const DecoderSettings& o) {
  if (devices.size() != placement.devices.size()) {
    return core::make_error(core::ErrorKind::invalid_argument,
                            "the placement names " + std::to_string(placement.devices.size()) +
                                " devices, " + std::to_string(devices.size()) + " given");
  }
  auto host_view = std::make_unique<model::LoadedModel>();
  {
    auto bound = model::load_model(file.info(), file.bytes());
    if (!bound) return bound.error();
    *host_view = std::move(*bound);
  }
  const auto& shape = host_view->shape;
  if (placement.n_layer() != shape.n_layer) {
    return core::make_error(core::ErrorKind::invalid_argument,
                            "the placement has " + std::to_string(placement.n_layer()) +
                                " layers, the model " + std::to_string(shape.n_layer));
  }
  DecoderSettings opts = o;
  if (opts.context == 0) opts.context = shape.context;
  std::vector<std::unique_ptr<loader::DeviceModel>> models;
  auto load = [&](backends::Device& device,
                  const planner::LayerRange& layers) -> core::Result<loader::DeviceModel*> {
    auto m = loader::load_to_device(file, device, {opts.chunk_bytes, layers, host_view.get()});
    if (!m) return m.error();
    models.push_back(std::make_unique<loader::DeviceModel>(std::move(*m)));
    return models.back().get();
  };

  if (placement.whole()) {
    backends::Device& device = *devices[placement.slot_device.front()];
    auto m = load(device, planner::LayerRange::whole());
    if (!m) return m.error();
    auto d = make_decoder(device, **m, opts);
    if (!d) return d.error();
    auto out = std::make_unique<Owning>(std::move(host_view), std::move(models));
    out->set(std::move(*d));
    return std::unique_ptr<Decoder>(std::move(out));
  }

  auto shares = placement.shares();
  if (!shares) return shares.error();
  std::vector<std::unique_ptr<Stage>> stages;
  for (const auto& share : *shares) {
    backends::Device& device = *devices[share.device];
    if (on_host(device)) {
      reference::DecodeOptions ro{opts, share.layers};
      if (fast(device)) ro.products = cpu::make_fast_products();
      auto d = reference::Decoder::create(*host_view, ro);
      if (!d) return d.error();
      stages.push_back(std::move(*d));
      continue;
    }
    auto m = load(device, share.layers);
    if (!m) return m.error();
    auto d = device_decoder(device, **m,
                            device_config(device, shape, (*m)->file_type, opts, share.layers));
    if (!d) return d.error();
    // The layers whose experts stay in host memory run them over the mapped file's bytes.
    if (!share.layers.experts_elsewhere.empty()) {
      (*d)->set_host_experts(host_view->weights, opts.threads);
    }
    stages.push_back(std::move(*d));
  }
  auto split = std::make_unique<SplitDecoder>(*host_view, std::move(stages), opts.context,
                                              opts.sequences, opts.micro_batch);
  auto out = std::make_unique<Owning>(std::move(host_view), std::move(models));
  out->set(std::move(split));
  return std::unique_ptr<Decoder>(std::move(out));
}

}  // namespace gauntlet::engine
