#pragma once
// Reads a set of devices' signals at a fixed interval on a thread of its own between start() and
// stop(): one snapshot at start, one per interval, one at stop.
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include "signals/device_signals.h"
#include "signals/summary.h"

namespace gauntlet::signals {

struct SamplerOptions {
  std::chrono::milliseconds interval{100};
  size_t max_series = 256;
};

class Sampler {
 public:
  // The devices are borrowed: they must outlive the sampler.
  Sampler(std::vector<const DeviceSignals*> devices, SamplerOptions options = {});
  ~Sampler();
  Sampler(const Sampler&) = delete;
  Sampler& operator=(const Sampler&) = delete;

  void start();
  // Stops the thread, takes the last snapshot and returns one summary per device, in the
  // devices' order. Calling stop() without start() returns empty summaries.
  std::vector<DeviceSummary> stop();

 private:
  void sample_all();
  void run();

  std::vector<const DeviceSignals*> devices_;
  SamplerOptions options_;
  std::vector<SummaryBuilder> builders_;
  std::chrono::steady_clock::time_point started_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace gauntlet::signals
