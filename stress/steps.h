#pragma once
// The units that run in isolated children: the largest-allocation search and one occupancy step.
// Each opens the device itself, so that the parent never holds driver state across a fork.
#include <atomic>
#include <cstdint>
#include <string>

#include "core/device_info.h"
#include "core/json.h"
#include "core/options.h"

namespace gauntlet::stress {

inline constexpr uint64_t kMiB = 1ull << 20;
// `bytes` rounded down to whole MiB.
inline uint64_t round_mib(uint64_t bytes) { return bytes / kMiB * kMiB; }

// What a child has reached, in memory shared with the parent, so that it survives the child's
// death: the size in progress is the one that killed it.
struct SearchProgress {
  std::atomic<uint64_t> in_progress{0};
  std::atomic<uint64_t> largest_verified{0};
};

// An anonymous shared mapping of one T, made before the fork; unmapped on destruction.
template <typename T>
class Shared {
 public:
  Shared();
  ~Shared();
  Shared(const Shared&) = delete;
  Shared& operator=(const Shared&) = delete;
  T* get() const { return value_; }
  explicit operator bool() const { return value_ != nullptr; }

 private:
  T* value_ = nullptr;
};

struct SearchState {
  uint64_t upper = 0;            // the largest size to try
  uint64_t largest_ok = 0;       // verified so far
  uint64_t smallest_failed = 0;  // 0 = none yet
};

// Tries `upper` first; if that fails, grows geometrically from 1 MiB, then bisects between the
// largest verified and the smallest failed size down to 1 MiB. Each size is allocated, filled with
// a seeded random pattern on the device, read back and checked. Returns {largest_ok,
// smallest_failed, failure (the error of the smallest failed size), tried: [{bytes, ok, reason}]}.
core::Json search_largest_allocation(const core::DeviceInfo& claimed, const core::Options& options,
                                     SearchState state, SearchProgress* progress);

struct StepPlan {
  int step = 0;
  uint64_t bytes = 0;
  uint64_t chunk_bytes = 0;
  core::Level level = core::Level::quick;
  uint32_t seed = 0;
  uint64_t verify_every = 1;  // verify every k-th chunk and the last (stress/step_budget.h)
};

// Occupies `bytes` in chunks, verifies every chunk, measures bandwidth with the device full.
// Returns {status, reason, verified_bytes, allocated_bytes, chunks, errors, first_failures,
// bandwidth}. The test fault "stress.kill_step=<N>" SIGKILLs the child of step N once its
// chunks are allocated.
core::Json run_step(const core::DeviceInfo& claimed, const core::Options& options,
                    const StepPlan& plan);

// The pattern suite on one buffer of `bytes`: rows as JSON.
core::Json run_patterns_unit(const core::DeviceInfo& claimed, const core::Options& options,
                             uint64_t bytes, int passes, uint32_t seed);

}  // namespace gauntlet::stress
