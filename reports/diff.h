#pragma once
// Comparing two reports, for CI gates: what got worse (regressions) and what got better.
#include <optional>
#include <string>
#include <vector>

#include "core/json.h"
#include "reports/report.h"

namespace gauntlet::reports {

struct Change {
  // "device", "profile", "feature", "budget", "local_memory", "tok_s", and of a soak held in both
  // "steady_tok_s" and "temperature"
  std::string kind;
  std::string device;   // the physical device key
  std::string subject;  // the profile or feature name; empty for device-wide figures
  std::string before;
  std::string after;
  std::string message;  // one line a person can act on
};

struct DiffResult {
  std::vector<Change> regressions;
  std::vector<Change> improvements;
  double threshold = 0.1;
};

// Regressions: a device gone; a profile safe -> unsafe, untested, derived or gone; a feature
// verified or emulated -> failed or unsupported; the safe budget, the verified local memory or a
// safe profile's tok/s down by more than `threshold` (a fraction); the same profile held busy
// (a soak) in both with its steady tok/s down or its hottest temperature up by more than it. The
// opposite moves are improvements.
DiffResult diff_reports(const Report& before, const Report& after, double threshold = 0.1);

std::string render_diff_text(const DiffResult& diff);
core::Json diff_to_json(const DiffResult& diff);

}  // namespace gauntlet::reports
