#pragma once
// One table across machines, for a fleet: a row per profile, a column per host and device, the
// verdict (and tok/s) in each cell.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/json.h"
#include "reports/report.h"

namespace gauntlet::reports {

struct MergeColumn {
  std::string host;
  std::string device;  // the physical device key
  std::string device_name;
  std::string source;  // the report file
  bool simulated = false;
  int safe = 0;
  int unsafe = 0;
  std::string recommendation;
};

struct MergeCell {
  ProfileVerdict verdict = ProfileVerdict::untested;
  std::string reason;
  std::optional<double> tok_s;
};

struct MergeTable {
  std::vector<MergeColumn> columns;
  std::vector<std::string> profiles;  // sorted
  // cells[profile][column index]; a missing cell: the profile was not planned there.
  std::map<std::string, std::map<size_t, MergeCell>> cells;
};

struct NamedReport {
  std::string source;
  Report report;
};

MergeTable merge_reports(const std::vector<NamedReport>& reports);

core::Json merge_to_json(const MergeTable& table);
std::string render_merge_text(const MergeTable& table);
std::string render_merge_markdown(const MergeTable& table);

}  // namespace gauntlet::reports
