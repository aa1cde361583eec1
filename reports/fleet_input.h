#pragma once
// What the fleet report needs of one report, and a reader that takes just that from a report
// file with simdjson's On-Demand parser (no document tree, no full schema check): a thousand
// reports of one and a half megabytes each are read in seconds. The reader still refuses what is
// not a report of this major version: JSON that is not well formed (simdjson checks the structure
// and UTF-8 of the whole file, and the grammar of every value it reads), another schema version,
// a missing top-level field, or a field it reads that has the wrong type or value.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/status.h"
#include "reports/report.h"

namespace gauntlet::reports {

struct FleetViewInput {
  std::string api;
  bool usable = true;
  std::string driver_version;
  uint64_t global_mem_size = 0;
};

struct FleetProfileInput {
  std::string name;
  ProfileVerdict verdict = ProfileVerdict::untested;
  std::optional<double> tok_s;
  std::string reason;
};

struct FleetDeviceInput {
  std::string key;
  std::string name;
  bool simulated = false;
  std::string preset;
  std::optional<uint64_t> simulated_global_mem;
  std::vector<FleetViewInput> views;
  std::optional<uint64_t> budget_bytes;
  std::string recommended;
  std::vector<FleetProfileInput> profiles;
  // The device's soak (run --level soak): the profile held, its steady speed, the hottest
  // temperature; absent without one.
  std::string soak_profile;
  std::optional<double> steady_tok_s;
  std::optional<double> max_temperature_c;
};

struct FleetInput {
  std::string host;
  std::vector<FleetDeviceInput> devices;
};

// From a report in memory.
FleetInput fleet_input(const Report& report);
// From a report file's text; `what` names the file in errors.
core::Result<FleetInput> parse_fleet_input(const std::string& text, const std::string& what);
core::Result<FleetInput> read_fleet_input(const std::filesystem::path& file);

}  // namespace gauntlet::reports
