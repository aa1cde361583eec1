#include "engine/host_decoder.h"

#include <cstring>

namespace gauntlet::engine {

namespace {

struct StepParams {
  int32_t token;
  uint32_t pos;
};

constexpr size_t kFixedBuffers = 3;  // activations, K cache, V cache; the weights follow

}  // namespace

HostDeviceDecoder::HostDeviceDecoder(backends::Device& device, const loader::DeviceModel& model,
                                     const reference::DecodeOptions& options, uint32_t context)
    : device_(device),
      model_(model),
      kv_(options.kv),
      context_(context),
      pool_(options.threads),
      logits_(model.shape.n_vocab) {}

core::Result<std::unique_ptr<HostDeviceDecoder>> HostDeviceDecoder::create(
    backends::Device& device, const loader::DeviceModel& model,
    const reference::DecodeOptions& options) {
  if (device.info().id.api != core::Api::host) {
    return core::make_error(core::ErrorKind::unsupported,
                            "decode on " + device.name() + " comes with the engine part 2",
                            device.name());
  }
  const uint32_t context = options.context == 0 ? model.shape.context : options.context;
  if (context > model.shape.context) {
    return core::make_error(core::ErrorKind::invalid_argument,
                            "context " + std::to_string(context) + " is over the model's " +
                                std::to_string(model.shape.context));
  }
  auto d = std::make_unique<HostDeviceDecoder>(device, model, options, context);
  auto act = device.allocate(planner::activation_bytes(model.shape, context, 1));
  if (!act) return act.error();
  const uint64_t kv_half = planner::kv_cache_bytes(model.shape, context, 1, options.kv) / 2;
  auto k = device.allocate(kv_half);
  if (!k) return k.error();
  auto v = device.allocate(kv_half);
  if (!v) return v.error();
  d->activations_ = std::move(*act);
  d->k_cache_ = std::move(*k);
  d->v_cache_ = std::move(*v);

  backends::KernelSource source;
  source.name = "reference_decode_step";
  HostDeviceDecoder* self = d.get();
  source.host = [self](const backends::HostInvocation& call) { return self->run(call); };
  source.buffer_count = static_cast<uint32_t>(kFixedBuffers + model.tensors.size());
  source.params_bytes = sizeof(StepParams);
  auto kernel = device.build(source);
  if (!kernel) return kernel.error();
  d->kernel_ = std::move(*kernel);
  return d;
}

core::Status HostDeviceDecoder::run(const backends::HostInvocation& call) {
  const auto params = call.params_as<StepParams>();
  auto weights = model::bind_weights(
      model_.layout, model_.shape,
      [&](size_t i) -> const std::byte* { return call.buffers.at(kFixedBuffers + i).data(); });
  if (!weights) return weights.error();
  reference::KvCacheView kv{call.buffers[1].data(), call.buffers[2].data(), kv_, context_};
  return reference::forward_token(model_.shape, *weights, kv,
                                  reinterpret_cast<float*>(call.buffers[0].data()), params.token,
                                  params.pos, pool_);
}

core::Result<std::span<const float>> HostDeviceDecoder::step(int32_t token) {
  StepParams params{token, pos_};
  backends::DispatchArgs args;
  args.buffers = {activations_.get(), k_cache_.get(), v_cache_.get()};
  for (const auto& t : model_.tensors) args.buffers.push_back(t.buffer.get());
  args.params = std::as_bytes(std::span<const StepParams>(&params, 1));
  GAUNTLET_TRY(device_.dispatch(*kernel_, args));
  const auto layout = planner::activation_layout(model_.shape, context_);
  GAUNTLET_TRY(device_.download(*activations_, std::as_writable_bytes(std::span<float>(logits_)),
                                layout.logits * 4));
  ++pos_;
  return std::span<const float>(logits_);
}

}  // namespace gauntlet::engine
