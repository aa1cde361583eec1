#pragma once
// The error a conformance case allows between a device's result and the host reference. Each case
// declares it in the registry (CaseSpec::bound); the case checks results against it and a failure
// prints it, so that what is allowed is written once.
#include <cstdint>
#include <string>

namespace gauntlet::conformance {

struct ErrorBound {
  // none: the case measures a limit and compares no result; exact: the same bits or integers;
  // ulp: at most `limit` units in the last place; nmse: a normalised mean squared error of at
  // most `limit`.
  enum class Kind { none, exact, ulp, nmse };
  Kind kind = Kind::none;
  double limit = 0;
  std::string note;  // what else counts as right, e.g. "on Vulkan fused or unfused (mul, add)"

  static ErrorBound exact(std::string note = {});
  static ErrorBound ulps(uint64_t n, std::string note = {});
  static ErrorBound max_nmse(double limit);

  // A result of the same bits always; otherwise, under a ulp bound, `ulp` units in the last place
  // apart at most.
  bool allows(bool same_bits, uint64_t ulp) const;
  bool allows_nmse(double nmse) const;  // false for NaN
  // "bit-exact", "0 ulp; on Vulkan fused or unfused (mul, add)", "nmse <= 1e-06", "" for none
  std::string describe() const;
  // What a failure prints: "ulp 3 > 0", "nmse 2.5e-05 > 1e-06", "bit-exact"
  std::string exceeded(double found) const;
};

}  // namespace gauntlet::conformance
