#include "engine/decoder_for_device.h"

#include "engine/device/profile_check.h"

namespace gauntlet::engine {

core::Result<std::unique_ptr<DecoderForDevice>> DecoderForDevice::create(
    backends::Device& device, const loader::DeviceModel& model, const DecoderOptions& options) {
  auto out = std::make_unique<DecoderForDevice>();
  out->n_vocab_ = model.shape.n_vocab;
  if (device.info().id.api == core::Api::host) {
    reference::DecodeOptions host{options.threads, options.kv, options.context, 1,
                                  options.micro_batch};
    auto decoder = HostDeviceDecoder::create(device, model, host);
    if (!decoder) return decoder.error();
    out->host_ = std::move(*decoder);
    return out;
  }
  const uint64_t limit = device.info().local_mem_size;
  device::DecodeConfig config =
      device::default_config(device.info(), limit, model.shape, model.file_type);
  config.kv = options.kv;
  config.context = options.context;
  config.micro_batch = options.micro_batch;
  GAUNTLET_TRY(device::check_config(device.info(), limit, model.shape, config));
  auto decoder = device::DeviceDecoder::create(device, model, config);
  if (!decoder) return decoder.error();
  out->device_ = std::move(*decoder);
  return out;
}

core::Result<std::span<const float>> DecoderForDevice::step(int32_t token) {
  return host_ ? host_->step(token) : device_->step(token);
}

core::Result<std::span<const float>> DecoderForDevice::forward(std::span<const BatchToken> batch) {
  return host_ ? host_->forward(batch) : device_->forward(batch);
}

void DecoderForDevice::reset() {
  if (host_) {
    host_->reset();
  } else {
    device_->reset();
  }
}

SpeedDecoder DecoderForDevice::speed_decoder() {
  return {[this](std::span<const BatchToken> batch) { return forward(batch); }, [this] { reset(); },
          n_vocab_};
}

}  // namespace gauntlet::engine
