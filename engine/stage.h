#pragma once
// One device's share of a placed model (planner::LayerRange): the split decoder hands each pass
// from share to share as each token's residual stream, so a share needs no more than this.
#include <cstdint>
#include <span>
#include <vector>

#include "core/status.h"
#include "engine/batch.h"

namespace gauntlet::engine {

class Stage {
 public:
  virtual ~Stage() = default;
  // Runs the share's layers over one pass: `x` holds each token's residual stream, n_embd floats
  // per token of `pass`, in and out. A share with the output layer appends the logits of the
  // pass's marked tokens to `logits`, n_vocab each.
  virtual core::Status run_stage(std::span<const PassToken> pass, std::span<float> x,
                                 std::vector<float>& logits) = 0;
  // Tokens one pass may hold.
  virtual uint32_t pass_capacity() const = 0;
};

}  // namespace gauntlet::engine
