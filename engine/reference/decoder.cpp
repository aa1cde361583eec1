#include "engine/reference/decoder.h"

#include <cstring>

#include "engine/reference/kv_rows.h"

namespace gauntlet::engine::reference {

core::Result<std::unique_ptr<Decoder>> Decoder::create(const model::LoadedModel& model,
                                                       const DecodeOptions& options) {
  const uint32_t context = options.context == 0 ? model.shape.context : options.context;
  if (context > model.shape.context) {
    return core::make_error(core::ErrorKind::invalid_argument,
                            "context " + std::to_string(context) + " is over the model's " +
                                std::to_string(model.shape.context));
  }
  if (options.sequences == 0 || options.micro_batch == 0) {
    return core::make_error(core::ErrorKind::invalid_argument,
                            "sequences and micro-batch must be at least 1");
  }
  GAUNTLET_TRY(check_kv_cache(model.shape, options.kv));
  return std::make_unique<Decoder>(model, options, context);
}

Decoder::Decoder(const model::LoadedModel& model, const DecodeOptions& options, uint32_t context)
    : model_(model),
      range_(options.range),
      kv_(options.kv),
      flash_attention_(options.flash_attention),
      context_(context),
      sequences_(options.sequences),
      micro_batch_(options.micro_batch),
      pool_(options.threads),
      activations_(planner::activation_layout(model.shape, context).total *
                   planner::pass_tokens(options.micro_batch, options.sequences)),
      k_cache_(planner::kv_cache_bytes(model.shape, context, options.sequences,
                                       {options.kv.k, options.kv.k}, options.micro_batch,
                                       options.range) /
               2),
      v_cache_(planner::kv_cache_bytes(model.shape, context, options.sequences,
                                       {options.kv.v, options.kv.v}, options.micro_batch,
                                       options.range) /
               2),
      state_(planner::state_layout(model.shape, options.range).per_sequence * options.sequences),
      pos_(options.sequences, 0) {
  can_keep_final_ = true;
  if (options.products) {
    products_ = options.products;
    pool_.set_products(products_.get());
  }
}

core::Result<std::span<const float>> Decoder::forward(std::span<const BatchToken> batch) {
  const auto& s = model_.shape;
  if (!range_.is_whole(s.n_layer)) {
    return core::make_error(core::ErrorKind::internal, "a share of the layers runs as a stage");
  }
  GAUNTLET_TRY(check_batch(batch, s.n_vocab, pos_, context_));
  logits_.clear();
  final_.clear();
  std::vector<PassToken> pass;
  for (const PassRange& r : split_into_passes(batch, micro_batch_, pass_capacity())) {
    pass.clear();
    for (size_t i = r.begin; i < r.end; ++i) {
      pass.push_back({batch[i].token, pos_[batch[i].seq]++, batch[i].seq, batch[i].logits});
    }
    GAUNTLET_TRY(run_pass(pass, logits_));
  }
  return std::span<const float>(logits_);
}

uint32_t Decoder::pass_capacity() const { return planner::pass_tokens(micro_batch_, sequences_); }

core::Status Decoder::run_pass(std::span<const PassToken> pass, std::vector<float>& logits) {
  const auto& s = model_.shape;
  const KvCacheView kv{k_cache_.data(), v_cache_.data(), kv_,           context_,
                       sequences_,      micro_batch_,    state_.data(), flash_attention_};
  GAUNTLET_TRY(forward_pass(s, model_.weights, kv, activations_.data(), pass, pool_, range_));
  if (!range_.output) return core::Status::ok();
  const auto layout = planner::activation_layout(s, context_);
  for (size_t t = 0; t < pass.size(); ++t) {
    const float* block = activations_.data() + t * layout.total;
    if (keep_final_) final_.insert(final_.end(), block + layout.x, block + layout.x + s.n_embd);
    if (pass[t].logits) {
      logits.insert(logits.end(), block + layout.logits, block + layout.logits + s.n_vocab);
    }
  }
  return core::Status::ok();
}

core::Result<DecoderCheckpoint> Decoder::checkpoint() {
  const auto bytes = std::as_bytes(std::span<const float>(state_));
  return DecoderCheckpoint{pos_, {bytes.begin(), bytes.end()}};
}

core::Status Decoder::restore(const DecoderCheckpoint& saved) {
  GAUNTLET_TRY(check_checkpoint(saved, pos_.size(), state_.size() * sizeof(float)));
  pos_ = saved.positions;
  std::memcpy(state_.data(), saved.state.data(), saved.state.size());
  return core::Status::ok();
}

core::Status Decoder::run_stage(std::span<const PassToken> pass, std::span<float> x,
                                std::vector<float>& logits) {
  const auto& s = model_.shape;
  const auto layout = planner::activation_layout(s, context_);
  if (pass.size() > pass_capacity() || x.size() != pass.size() * s.n_embd) {
    return core::make_error(core::ErrorKind::internal, "a stage pass of the wrong size");
  }
  for (size_t t = 0; t < pass.size(); ++t) {
    std::copy_n(x.data() + t * s.n_embd, s.n_embd,
                activations_.data() + t * layout.total + layout.x);
  }
  GAUNTLET_TRY(run_pass(pass, logits));
  for (size_t t = 0; t < pass.size(); ++t) {
    std::copy_n(activations_.data() + t * layout.total + layout.x, s.n_embd,
                x.data() + t * s.n_embd);
  }
  return core::Status::ok();
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
