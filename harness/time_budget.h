#pragma once
// How long a level may take per device, and how that time is shared, so that a run is bounded
// on a device of any size: the stress steps verify what the measured rate allows in their share
// (stress/step_budget.h), and the profile checks run by priority until the device's time is
// spent, each format with a fair share of what is left. What the budget leaves out is said:
// the steps' sampled bytes, and the profiles not run with the cause `not_run` / `time_budget`.
#include <chrono>
#include <map>
#include <string>

#include "core/options.h"

namespace gauntlet::harness {

// Seconds per device: quick 120, standard 900, full 3600; `Options::time_budget_s` overrides.
double level_budget_s(const core::Options& options);

// The share of the device's budget the memory stress may take.
inline constexpr double kStressShare = 0.3;

// One device's budget and the time it has spent since the clock started.
class DeviceClock {
 public:
  explicit DeviceClock(double budget_s);
  double budget_s() const { return budget_s_; }
  double spent_s() const;
  double left_s() const;

 private:
  std::chrono::steady_clock::time_point start_;
  double budget_s_;
};

// Inside one child of profile checks: whether the next check of a kind fits in the child's share,
// judged by the longest check of that kind so far; the first check runs while any share is left
// (its length is not known yet).
class CheckBudget {
 public:
  explicit CheckBudget(double share_s);
  bool fits(const std::string& kind) const;
  void took(const std::string& kind, double seconds);
  double share_s() const { return share_s_; }

 private:
  std::chrono::steady_clock::time_point start_;
  double share_s_;
  std::map<std::string, double> longest_;
};

// The reason a profile carries when the budget left it out.
std::string left_out_by_budget(const core::Options& options);

}  // namespace gauntlet::harness
