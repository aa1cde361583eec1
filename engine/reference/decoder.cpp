#include "engine/reference/decoder.h"

namespace gauntlet::engine::reference {

core::Result<std::unique_ptr<Decoder>> Decoder::create(const model::LoadedModel& model,
                                                       const DecodeOptions& options) {
  const uint32_t context = options.context == 0 ? model.shape.context : options.context;
  if (context > model.shape.context) {
    return core::make_error(core::ErrorKind::invalid_argument,
                            "context " + std::to_string(context) + " is over the model's " +
                                std::to_string(model.shape.context));
  }
  return std::make_unique<Decoder>(model, options, context);
}

Decoder::Decoder(const model::LoadedModel& model, const DecodeOptions& options, uint32_t context)
    : model_(model),
      kv_(options.kv),
      context_(context),
      pool_(options.threads),
      activations_(planner::activation_layout(model.shape, context).total),
      k_cache_(planner::kv_cache_bytes(model.shape, context, 1, options.kv) / 2),
      v_cache_(k_cache_.size()) {}

core::Result<std::span<const float>> Decoder::step(int32_t token) {
  KvCacheView kv{k_cache_.data(), v_cache_.data(), kv_, context_};
  GAUNTLET_TRY(
      forward_token(model_.shape, model_.weights, kv, activations_.data(), token, pos_, pool_));
  ++pos_;
  const auto layout = planner::activation_layout(model_.shape, context_);
  return std::span<const float>(activations_.data() + layout.logits, model_.shape.n_vocab);
}

int32_t argmax(std::span<const float> logits) {
  int32_t best = 0;
  for (size_t i = 1; i < logits.size(); ++i) {
    if (logits[i] > logits[static_cast<size_t>(best)]) best = static_cast<int32_t>(i);
  }
  return best;
}

core::Result<std::vector<int32_t>> greedy_decode(const StepFn& step,
                                                 std::span<const int32_t> prompt, uint32_t n,
                                                 const StepCallback& on_step) {
  if (prompt.empty()) {
    return core::make_error(core::ErrorKind::invalid_argument, "the prompt needs a token");
  }
  std::vector<int32_t> generated;
  uint32_t index = 0;
  int32_t next = 0;
  for (int32_t token : prompt) {
    auto logits = step(token);
    if (!logits) return logits.error();
    if (on_step) on_step(index, token, *logits);
    ++index;
    next = argmax(*logits);
  }
  for (uint32_t i = 0; i < n; ++i) {
    generated.push_back(next);
    if (i + 1 == n) break;
    auto logits = step(next);
    if (!logits) return logits.error();
    if (on_step) on_step(index, next, *logits);
    ++index;
    next = argmax(*logits);
  }
  return generated;
}

}  // namespace gauntlet::engine::reference
