#include "conformance/error_bound.h"

#include <cstdio>

namespace gauntlet::conformance {

namespace {

std::string general(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", value);
  return text;
}

}  // namespace

ErrorBound ErrorBound::exact(std::string note) { return {Kind::exact, 0, std::move(note)}; }

ErrorBound ErrorBound::ulps(uint64_t n, std::string note) {
  return {Kind::ulp, static_cast<double>(n), std::move(note)};
}

ErrorBound ErrorBound::max_nmse(double limit) { return {Kind::nmse, limit, {}}; }

bool ErrorBound::allows(bool same_bits, uint64_t ulp) const {
  return same_bits || (kind == Kind::ulp && static_cast<double>(ulp) <= limit);
}

bool ErrorBound::allows_nmse(double nmse) const { return nmse <= limit; }

std::string ErrorBound::describe() const {
  std::string text;
  switch (kind) {
    case Kind::none:
      return note;
    case Kind::exact:
      text = "bit-exact";
      break;
    case Kind::ulp:
      text = general(limit) + " ulp";
      break;
    case Kind::nmse:
      text = std::string("nmse <= ").append(general(limit));
      break;
  }
  if (!note.empty()) text.append("; ").append(note);
  return text;
}

std::string ErrorBound::exceeded(double found) const {
  switch (kind) {
    case Kind::ulp:
      return std::string("ulp ")
          .append(std::to_string(static_cast<uint64_t>(found)))
          .append(" > ")
          .append(general(limit));
    case Kind::nmse:
      return std::string("nmse ").append(general(found)).append(" > ").append(general(limit));
    case Kind::none:
    case Kind::exact:
      break;
  }
  return describe();
}

}  // namespace gauntlet::conformance
