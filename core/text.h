#pragma once
// Case-insensitive names: type names, target names and sysfs values are matched in ASCII.
#include <algorithm>
#include <cctype>
#include <string>
#include <string_view>

namespace gauntlet::core {

inline std::string to_lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

inline bool same_ignoring_case(std::string_view a, std::string_view b) {
  return to_lower(a) == to_lower(b);
}

}  // namespace gauntlet::core
