#pragma once
// What a device's snapshots over a unit add up to: min/max/mean of each signal, the time each
// throttle reason was active, and a downsampled series of bounded length.
#include <cstddef>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "signals/snapshot.h"

namespace gauntlet::signals {

struct SignalStats {
  double min = 0;
  double max = 0;
  double sum = 0;
  double first = 0;
  double last = 0;
  size_t count = 0;
  double mean() const { return count ? sum / static_cast<double>(count) : 0; }
};

struct SeriesPoint {
  double seconds = 0;  // since the first snapshot
  std::map<std::string, double> values;
  std::set<std::string> throttle_reasons;
};

struct DeviceSummary {
  std::string device;
  double seconds = 0;  // from the first snapshot to the last
  size_t samples = 0;
  std::map<std::string, SignalStats> signals;      // by numeric_signals' names
  std::map<std::string, double> throttle_seconds;  // by reason
  std::vector<SeriesPoint> series;                 // at most the builder's bound
  std::set<std::string> absent;
  std::set<std::string> problems;

  // The link ran below its maximum through the whole unit: the best speed (or width) seen is
  // below the maximum (links train down when idle, so one slow sample is not enough).
  bool link_degraded() const;
};

class SummaryBuilder {
 public:
  explicit SummaryBuilder(std::string device, size_t max_series = 256);

  // One snapshot taken `seconds` after the first; the time since the previous snapshot counts
  // for each throttle reason this one reports.
  void add(const Snapshot& snapshot, double seconds);
  const DeviceSummary& summary() const { return summary_; }

 private:
  DeviceSummary summary_;
  size_t max_series_;
  size_t stride_ = 1;  // keep every stride_-th snapshot in the series
  size_t seen_ = 0;
  double previous_seconds_ = 0;
};

}  // namespace gauntlet::signals
