#include "signals/summary.h"

#include <algorithm>

namespace gauntlet::signals {

bool DeviceSummary::link_degraded() const {
  const auto below = [this](const char* current, const char* maximum) {
    const auto c = signals.find(current);
    const auto m = signals.find(maximum);
    return c != signals.end() && m != signals.end() && c->second.max < m->second.max;
  };
  return below("link.speed_gts", "link.max_speed_gts") || below("link.width", "link.max_width");
}

SummaryBuilder::SummaryBuilder(std::string device, size_t max_series)
    : max_series_(std::max<size_t>(max_series, 2)) {
  summary_.device = std::move(device);
}

void SummaryBuilder::add(const Snapshot& snapshot, double seconds) {
  const double interval = seen_ == 0 ? 0 : std::max(0.0, seconds - previous_seconds_);
  previous_seconds_ = seconds;
  summary_.seconds = seconds;
  ++summary_.samples;
  const auto values = numeric_signals(snapshot);
  for (const auto& [name, value] : values) {
    SignalStats& stats = summary_.signals[name];
    if (stats.count == 0) {
      stats.min = stats.max = stats.first = value;
    }
    stats.min = std::min(stats.min, value);
    stats.max = std::max(stats.max, value);
    stats.sum += value;
    stats.last = value;
    ++stats.count;
  }
  for (const auto& reason : snapshot.throttle_reasons)
    summary_.throttle_seconds[reason] += interval;
  summary_.absent.insert(snapshot.absent.begin(), snapshot.absent.end());
  summary_.problems.insert(snapshot.problems.begin(), snapshot.problems.end());
  if (seen_++ % stride_ != 0) return;
  SeriesPoint point{seconds, {values.begin(), values.end()}, snapshot.throttle_reasons};
  summary_.series.push_back(std::move(point));
  if (summary_.series.size() < max_series_) return;
  // Full: keep every other point and take every other snapshot from now on.
  std::vector<SeriesPoint> kept;
  for (size_t i = 0; i < summary_.series.size(); i += 2) kept.push_back(summary_.series[i]);
  summary_.series = std::move(kept);
  stride_ *= 2;
}

}  // namespace gauntlet::signals
