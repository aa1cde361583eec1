#include "harness/report_summary.h"

#include <cstdio>
#include <vector>

namespace gauntlet::harness {

void summarize_device(reports::DeviceReport& device) {
  std::map<std::string, reports::LargestContext> largest;
  std::vector<std::string> formats;  // in the order the profiles were planned
  const reports::Profile* fastest = nullptr;
  for (const auto& p : device.profiles) {
    if (!largest.count(p.weight_format)) formats.push_back(p.weight_format);
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
  for (const auto& format : formats) device.largest_safe_context.push_back(largest[format]);
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
