#include "harness/report_summary.h"

#include <cstdio>
#include <vector>

namespace gauntlet::harness {

void summarize_device(reports::DeviceReport& device) {
  std::map<std::string, reports::LargestContext> largest;
  std::vector<std::string> formats;  // in the order the profiles were planned
  // A format is listed when the run settled it: some profile ran, or every one was refused
  // before running (a format the level did not reach has no largest safe context to show).
  std::map<std::string, bool> ran, all_refused;
  const reports::Profile* fastest = nullptr;
  for (const auto& p : device.profiles) {
    if (!largest.count(p.weight_format)) {
      formats.push_back(p.weight_format);
      all_refused[p.weight_format] = true;
    }
    if (!p.rows.empty()) ran[p.weight_format] = true;
    if (p.verdict != reports::ProfileVerdict::unsafe) all_refused[p.weight_format] = false;
    auto& entry = largest[p.weight_format];
    entry.weight_format = p.weight_format;
    if (p.verdict != reports::ProfileVerdict::safe) continue;
    if (p.context > entry.context) {
      entry.context = p.context;
      entry.profile = p.name;
    }
    if (p.figures.tok_s &&
        (fastest == nullptr || *p.figures.tok_s > fastest->figures.tok_s.value_or(0))) {
      fastest = &p;
    }
  }
  device.largest_safe_context.clear();
  for (const auto& format : formats) {
    if (ran[format] || all_refused[format]) device.largest_safe_context.push_back(largest[format]);
  }
  if (fastest != nullptr) {
    char why[160];
    std::snprintf(why, sizeof why,
                  "the fastest safe configuration: %.1f tok/s, matched the host "
                  "reference",
                  *fastest->figures.tok_s);
    device.recommendation = reports::Recommendation{fastest->name, why};
  }
}

}  // namespace gauntlet::harness
