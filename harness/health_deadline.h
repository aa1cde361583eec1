#pragma once
// The deadline of `gauntlet health`, enforced inside: each check asks it before it starts, runs
// in an isolated child limited to what is left (less a reserve for writing the verdict), and a
// check it refuses or cuts is reported "not run: deadline", never killed from outside.
#include <algorithm>
#include <chrono>

namespace gauntlet::harness {

class Deadline {
 public:
  using Clock = std::chrono::steady_clock;
  // `total`: the whole command's bound; `reserve`: kept back for the verdict's output.
  Deadline(std::chrono::milliseconds total, std::chrono::milliseconds reserve)
      : start_(Clock::now()), end_(start_ + total - std::min(reserve, total / 4)) {}

  // What is left for checks (zero when the deadline has passed).
  std::chrono::milliseconds left() const {
    const auto now = Clock::now();
    if (now >= end_) return std::chrono::milliseconds{0};
    return std::chrono::duration_cast<std::chrono::milliseconds>(end_ - now);
  }
  // Whether a check that needs at least `minimum` may start.
  bool allows(std::chrono::milliseconds minimum) const { return left() >= minimum; }
  double elapsed_s() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }

 private:
  Clock::time_point start_;
  Clock::time_point end_;
};

}  // namespace gauntlet::harness
