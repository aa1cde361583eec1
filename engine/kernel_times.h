#pragma once
// Device time per kernel entry point (matvec, attention, ...), over the dispatches a decoder
// timed (Decoder::time_dispatches): decode --profile's breakdown.
#include <cstdint>
#include <string>
#include <vector>

namespace gauntlet::engine {

struct KernelTime {
  std::string kernel;
  uint64_t dispatches = 0;
  double seconds = 0;
};
using KernelTimes = std::vector<KernelTime>;

}  // namespace gauntlet::engine
