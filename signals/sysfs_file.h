#pragma once
// Reading one sysfs attribute. A file that is not there is absent (nullopt), which is data; a file
// that is there but cannot be read, or holds what its attribute never holds, is a named error.
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace gauntlet::signals {

// The bytes of `path`, at most `max_bytes` (an attribute is one page; gpu_metrics a few hundred).
core::Result<std::optional<std::string>> read_attribute(const std::filesystem::path& path,
                                                        size_t max_bytes = 65536);

// `text` up to its first newline, each byte outside printable ASCII as '?': a label read from a
// file, safe to put in a report.
std::string printable_line(std::string_view text);

// One decimal integer with an optional trailing newline; `what` names it in the error.
core::Result<int64_t> parse_integer(std::string_view text, const std::string& what);

// read_attribute and parse_integer together: absent, the value, or "garbage in <path>: '<text>'".
core::Result<std::optional<int64_t>> read_integer(const std::filesystem::path& path);

// "name<separator>count" lines (blank ones skipped; the last separator of a line where `last`),
// by name: a line without a name, the separator or a non-negative count is
// "garbage in <what>: '<line>'".
core::Result<std::map<std::string, uint64_t>> parse_named_counts(std::string_view text,
                                                                 const std::string& what,
                                                                 std::string_view separator,
                                                                 bool last);

// The folders under `folder` whose names start with `prefix` and go on with digits, in numeric
// order (hwmon0, hwmon1, ..., hwmon10): empty when `folder` is absent.
std::vector<std::filesystem::path> numbered_entries(const std::filesystem::path& folder,
                                                    std::string_view prefix);

}  // namespace gauntlet::signals
