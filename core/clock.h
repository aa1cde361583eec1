#pragma once
// Seconds on the steady clock, for what the tool times (units, steps, checks).
#include <chrono>

namespace gauntlet::core {

using SteadyClock = std::chrono::steady_clock;

inline double seconds_since(SteadyClock::time_point start) {
  return std::chrono::duration<double>(SteadyClock::now() - start).count();
}

}  // namespace gauntlet::core
