#pragma once
// Sizing a stress step to its share of the level's time. Every byte of the step is allocated and
// held (the occupancy is what a step proves); the chunks verified are every k-th, the last one
// included, so that writing and reading them back at the measured rate fits the share. On a
// 141 GB card verified from the host at 10 GB/s, a full step would take minutes.
#include <cstdint>
#include <vector>

#include "core/options.h"

namespace gauntlet::stress {

// The occupancy steps' sizes as fractions of the cap, smallest first.
std::vector<double> step_fractions(core::Level level);
// A step's chunk: at most 256 MiB, at most half the step, within the largest allocation verified.
uint64_t step_chunk_bytes(uint64_t step_bytes, uint64_t largest_allocation);
// The chunks' patterns at a level: one (quick, standard: a rotation over the chunks) or four.
int step_patterns(core::Level level);

struct StepBudget {
  uint64_t verify_every = 1;  // verify chunk i when i % verify_every == 0, and the last chunk
  uint64_t chunks = 0;
  uint64_t chunks_verified = 0;
  double planned_s = 0;  // the verification's time at the rate
};

// `patterns` passes over each verified chunk at `verify_bytes_per_s` (0: not measured, verify
// all), within `share_s` seconds (0: no limit).
StepBudget plan_step_budget(uint64_t bytes, uint64_t chunk_bytes, int patterns,
                            double verify_bytes_per_s, double share_s);

}  // namespace gauntlet::stress
