// Merging report files into a fleet report, one file in memory at a time.
#include "reports/fleet.h"
#include "reports/io.h"

namespace gauntlet::reports {

FleetReport merge_report_files(const std::vector<std::string>& files, double threshold) {
  FleetBuilder builder(threshold);
  for (const auto& file : files) {
    auto report = read_report(file);
    if (report) {
      builder.add(file, *report);
    } else {
      builder.skip(file, report.error().describe());
    }
  }
  return builder.finish();
}

}  // namespace gauntlet::reports
