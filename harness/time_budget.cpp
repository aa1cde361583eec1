#include "harness/time_budget.h"

#include <algorithm>
#include <cstdio>

#include "core/clock.h"

namespace gauntlet::harness {

double level_budget_s(const core::Options& options) {
  if (options.time_budget_s > 0) return options.time_budget_s;
  switch (options.level) {
    case core::Level::quick:
      return 120;
    case core::Level::standard:
      return 900;
    case core::Level::full:
      return 3600;
  }
  return 120;
}

DeviceClock::DeviceClock(double budget_s)
    : start_(std::chrono::steady_clock::now()), budget_s_(budget_s) {}

double DeviceClock::spent_s() const { return core::seconds_since(start_); }

double DeviceClock::left_s() const { return std::max(0.0, budget_s_ - spent_s()); }

CheckBudget::CheckBudget(double share_s)
    : start_(std::chrono::steady_clock::now()), share_s_(share_s) {}

bool CheckBudget::fits(const std::string& kind) const {
  const double spent = core::seconds_since(start_);
  if (longest_.empty()) return spent < share_s_;  // the first check, while any share is left
  auto it = longest_.find(kind);
  return spent + (it == longest_.end() ? 0.0 : it->second) < share_s_;
}

void CheckBudget::took(const std::string& kind, double seconds) {
  double& longest = longest_[kind];
  longest = std::max(longest, seconds);
}

std::string left_out_by_budget(const core::Options& options) {
  char seconds[32];
  std::snprintf(seconds, sizeof seconds, "%.0f", level_budget_s(options));
  return std::string("not run: the ") + core::to_string(options.level) + " level's time budget (" +
         seconds + " s per device) was spent on the checks before it (--time-budget gives more)";
}

}  // namespace gauntlet::harness
