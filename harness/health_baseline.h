#pragma once
// The report `gauntlet health` compares with: a run's report, or a fleet report
// (`gauntlet report merge --format json`), whose entries for this node name the report to read
// (the newest, when the node ran more than once). A fleet's reports sit on a shared folder, so
// a node reads its own burn-in from the file the fleet gates on.
#include <filesystem>
#include <string>

#include "core/status.h"
#include "reports/report.h"

namespace gauntlet::harness {

struct Baseline {
  reports::Report report;
  std::filesystem::path read_from;  // the report itself (a fleet report's entry for the node)
  std::string note;                 // how a fleet report led to it; empty for a plain report
};

core::Result<Baseline> read_baseline(const std::filesystem::path& path, const std::string& node);

}  // namespace gauntlet::harness
