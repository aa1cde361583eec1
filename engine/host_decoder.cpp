#include "engine/host_decoder.h"

#include <algorithm>
#include <cstring>

#include "engine/cpu/fast_products.h"
#include "engine/reference/kv_rows.h"

namespace gauntlet::engine {

namespace {

struct PassParams {
  uint32_t tokens;  // the pass itself is the decoder's pass_
};

// Activations, K cache, V cache, a hybrid's recurrent state; the weights follow.
constexpr size_t kFixedBuffers = 4;

}  // namespace

HostDeviceDecoder::HostDeviceDecoder(backends::Device& device, const loader::DeviceModel& model,
                                     const reference::DecodeOptions& options, uint32_t context,
                                     bool fast)
    : device_(device),
      model_(model),
      kv_(options.kv),
      context_(context),
      sequences_(std::max(options.sequences, 1u)),
      micro_batch_(std::max(options.micro_batch, 1u)),
      flash_attention_(options.flash_attention),
      pool_(options.threads),
      fast_(fast),
      pos_(sequences_, 0) {
  can_keep_final_ = true;
}

core::Result<std::unique_ptr<HostDeviceDecoder>> HostDeviceDecoder::create(
    backends::Device& device, const loader::DeviceModel& model,
    const reference::DecodeOptions& options, bool fast) {
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
  const bool interleaved = std::any_of(model.tensors.begin(), model.tensors.end(),
                                       [](const loader::DeviceTensor& t) { return t.interleaved; });
  if (interleaved && !fast) {
    return core::make_error(
        core::ErrorKind::invalid_argument,
        "the weights on " + device.name() +
            " are laid out for its fast products; the exact ones cannot read them",
        device.name());
  }
  auto d = std::make_unique<HostDeviceDecoder>(device, model, options, context, fast);
  auto act = device.allocate(planner::activation_bytes(
      model.shape, context, planner::pass_tokens(d->micro_batch_, d->sequences_)));
  if (!act) return act.error();
  GAUNTLET_TRY(reference::check_kv_cache(model.shape, options.kv));
  auto half = [&](model::TensorType type) {
    return planner::kv_cache_bytes(model.shape, context, d->sequences_, {type, type},
                                   d->micro_batch_) /
           2;
  };
  auto k = device.allocate(half(options.kv.k));
  if (!k) return k.error();
  auto v = device.allocate(half(options.kv.v));
  if (!v) return v.error();
  // At least one float: a model without recurrent layers has no state.
  auto state = device.allocate(
      std::max<uint64_t>(planner::state_bytes(model.shape, d->sequences_), sizeof(float)));
  if (!state) return state.error();
  d->state_ = std::move(*state);
  d->activations_ = std::move(*act);
  d->k_cache_ = std::move(*k);
  d->v_cache_ = std::move(*v);

  backends::KernelSource source;
  source.name = "reference_forward_pass";
  HostDeviceDecoder* self = d.get();
  source.host = [self](const backends::HostInvocation& call) { return self->run(call); };
  source.buffer_count = static_cast<uint32_t>(kFixedBuffers + model.tensors.size());
  source.params_bytes = sizeof(PassParams);
  auto kernel = device.build(source);
  if (!kernel) return kernel.error();
  d->kernel_ = std::move(*kernel);
  return d;
}

core::Status HostDeviceDecoder::run(const backends::HostInvocation& call) {
  const auto params = call.params_as<PassParams>();
  if (params.tokens != pass_.size()) {
    return core::make_error(core::ErrorKind::internal, "a host pass dispatched out of turn");
  }
  // The fast products learn on the first pass where the interleaved matrices lie (their buffers
  // stay put for the decoder's life).
  if (fast_ && !products_) {
    std::vector<const std::byte*> interleaved;
    for (size_t i = 0; i < model_.tensors.size(); ++i) {
      if (model_.tensors[i].interleaved)
        interleaved.push_back(call.buffers.at(kFixedBuffers + i).data());
    }
    products_ = cpu::make_fast_products(interleaved);
    pool_.set_products(products_.get());
  }
  auto weights = model::bind_weights(
      model_.layout, model_.shape,
      [&](size_t i) -> const std::byte* { return call.buffers.at(kFixedBuffers + i).data(); });
  if (!weights) return weights.error();
  const reference::KvCacheView kv{call.buffers[1].data(),
                                  call.buffers[2].data(),
                                  kv_,
                                  context_,
                                  sequences_,
                                  micro_batch_,
                                  reinterpret_cast<float*>(call.buffers[3].data()),
                                  flash_attention_};
  return reference::forward_pass(model_.shape, *weights, kv,
                                 reinterpret_cast<float*>(call.buffers[0].data()), pass_, pool_);
}

core::Result<std::span<const float>> HostDeviceDecoder::forward(std::span<const BatchToken> batch) {
  const auto& s = model_.shape;
  GAUNTLET_TRY(check_batch(batch, s.n_vocab, pos_, context_));
  const auto layout = planner::activation_layout(s, context_);
  logits_.clear();
  final_.clear();
  for (const PassRange& r :
       split_into_passes(batch, micro_batch_, planner::pass_tokens(micro_batch_, sequences_))) {
    pass_.clear();
    for (size_t i = r.begin; i < r.end; ++i) {
      pass_.push_back({batch[i].token, pos_[batch[i].seq]++, batch[i].seq, batch[i].logits});
    }
    const PassParams params{static_cast<uint32_t>(pass_.size())};
    backends::DispatchArgs args;
    args.buffers = {activations_.get(), k_cache_.get(), v_cache_.get(), state_.get()};
    for (const auto& t : model_.tensors) args.buffers.push_back(t.buffer.get());
    args.params = std::as_bytes(std::span<const PassParams>(&params, 1));
    GAUNTLET_TRY(device_.dispatch(*kernel_, args));
    for (size_t t = 0; t < pass_.size(); ++t) {
      if (keep_final_) {
        final_.resize(final_.size() + s.n_embd);
        GAUNTLET_TRY(device_.download(
            *activations_, std::as_writable_bytes(std::span<float>(final_).last(s.n_embd)),
            (t * layout.total + layout.x) * sizeof(float)));
      }
      if (!pass_[t].logits) continue;
      logits_.resize(logits_.size() + s.n_vocab);
      GAUNTLET_TRY(device_.download(
          *activations_, std::as_writable_bytes(std::span<float>(logits_).last(s.n_vocab)),
          (t * layout.total + layout.logits) * sizeof(float)));
    }
  }
  return std::span<const float>(logits_);
}

core::Result<DecoderCheckpoint> HostDeviceDecoder::checkpoint() {
  return save_checkpoint(device_, *state_, pos_);
}

core::Status HostDeviceDecoder::restore(const DecoderCheckpoint& saved) {
  return restore_checkpoint(device_, *state_, pos_, saved);
}

}  // namespace gauntlet::engine
