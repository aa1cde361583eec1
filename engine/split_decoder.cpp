#include "engine/split_decoder.h"

#include <algorithm>

#include "engine/planner/planner.h"
#include "engine/reference/layer_ops.h"

namespace gauntlet::engine {

SplitDecoder::SplitDecoder(const model::LoadedModel& host_view,
                           std::vector<std::unique_ptr<Stage>> stages, uint32_t context,
                           uint32_t sequences, uint32_t micro_batch)
    : host_view_(host_view),
      stages_(std::move(stages)),
      context_(context),
      micro_batch_(micro_batch),
      capacity_(planner::pass_tokens(micro_batch, sequences)),
      pos_(sequences, 0) {
  for (const auto& s : stages_) capacity_ = std::min(capacity_, s->pass_capacity());
}

core::Result<std::span<const float>> SplitDecoder::forward(std::span<const BatchToken> batch) {
  const auto& shape = host_view_.shape;
  GAUNTLET_TRY(check_batch(batch, shape.n_vocab, pos_, context_));
  logits_.clear();
  for (const PassRange& r : split_into_passes(batch, micro_batch_, capacity_)) {
    pass_.clear();
    for (size_t i = r.begin; i < r.end; ++i) {
      pass_.push_back({batch[i].token, pos_[batch[i].seq]++, batch[i].seq, batch[i].logits});
    }
    residuals_.resize(pass_.size() * shape.n_embd);
    for (size_t t = 0; t < pass_.size(); ++t) {
      reference::embed_token(shape, host_view_.weights.token_embd, pass_[t].token,
                             residuals_.data() + t * shape.n_embd);
    }
    for (const auto& stage : stages_) {
      GAUNTLET_TRY(stage->run_stage(pass_, residuals_, logits_));
    }
  }
  return std::span<const float>(logits_);
}

}  // namespace gauntlet::engine
