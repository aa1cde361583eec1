#include "stress/step_budget.h"

#include <algorithm>
#include <cmath>

#include "stress/steps.h"

namespace gauntlet::stress {

std::vector<double> step_fractions(core::Level level) {
  switch (level) {
    case core::Level::quick:
      // One step at the cap: the search for the largest single allocation has already climbed
      // to it; the levels above grade the occupancy.
      return {1.0};
    case core::Level::standard:
      return {0.25 / 0.9, 0.5 / 0.9, 0.75 / 0.9, 1.0};
    case core::Level::full:
      return {0.25, 0.5, 0.75, 0.9, 1.0};
  }
  return {1.0};
}

uint64_t step_chunk_bytes(uint64_t step_bytes, uint64_t largest_allocation) {
  return std::max(kMiB, round_mib(std::min({largest_allocation, 256 * kMiB, step_bytes / 2})));
}

int step_patterns(core::Level level) { return level == core::Level::full ? 4 : 1; }

StepBudget plan_step_budget(uint64_t bytes, uint64_t chunk_bytes, int patterns,
                            double verify_bytes_per_s, double share_s) {
  StepBudget b;
  chunk_bytes = std::max<uint64_t>(chunk_bytes, 1);
  b.chunks = (bytes + chunk_bytes - 1) / chunk_bytes;
  const double per_chunk_s = verify_bytes_per_s > 0 ? static_cast<double>(chunk_bytes) *
                                                          std::max(patterns, 1) / verify_bytes_per_s
                                                    : 0.0;
  uint64_t affordable = b.chunks;
  if (share_s > 0 && per_chunk_s > 0) {
    // The first and the last chunk at least.
    affordable = std::clamp<uint64_t>(static_cast<uint64_t>(share_s / per_chunk_s),
                                      std::min<uint64_t>(2, b.chunks), b.chunks);
  }
  auto verified_with = [&](uint64_t every) {
    if (b.chunks == 0) return uint64_t{0};
    const uint64_t on_grid = (b.chunks - 1) / every + 1;
    return on_grid + ((b.chunks - 1) % every != 0 ? 1 : 0);
  };
  b.verify_every = std::max<uint64_t>(1, b.chunks / std::max<uint64_t>(affordable, 1));
  while (verified_with(b.verify_every) > affordable) ++b.verify_every;
  b.chunks_verified = verified_with(b.verify_every);
  b.planned_s = per_chunk_s * static_cast<double>(b.chunks_verified);
  return b;
}

}  // namespace gauntlet::stress
