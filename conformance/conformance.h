#pragma once
// The conformance suite: what each device was shown to compute correctly, per feature, with the
// rows that prove it. The profile planner reads `features` and the verified limits.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/device_info.h"
#include "core/feature_verdict.h"
#include "core/isolate.h"
#include "core/json.h"
#include "core/options.h"
#include "core/outcome.h"

namespace gauntlet::conformance {

using Verdict = core::FeatureVerdict;

// The verdict on one feature as the report keeps it, and why, for `gauntlet conform`.
struct FeatureVerdict : core::FeatureResult {
  std::string reason;
};

struct ConformanceOptions {
  core::Level level = core::Level::quick;
  std::string filter = "*";  // glob over row ids, e.g. "conform.f16.*"
  core::IsolationLimits limits;
};

// The ids of the cases a --filter selects, before any device is touched; empty when it matches
// none (the CLI refuses such a filter with exit 2).
std::vector<std::string> cases_matching(const std::string& filter);

struct ConformanceResult {
  std::string device;  // "opencl:0"
  std::vector<core::Row> rows;
  std::map<std::string, FeatureVerdict> features;
  uint64_t local_mem_verified_bytes = 0;
  uint64_t max_workgroup_verified = 0;
  uint32_t subgroup_size_observed = 0;  // 0 if not observed
};

// The feature keys, in the order the verdict table shows them.
const std::vector<std::string>& feature_keys();

// Runs every case family of the suite on `claimed.id`, each family in an isolated child.
ConformanceResult run_conformance(const core::DeviceInfo& claimed, const core::Options& options,
                                  const ConformanceOptions& conf);

void to_json(core::Json& j, const FeatureVerdict& v);
void from_json(const core::Json& j, FeatureVerdict& v);
void to_json(core::Json& j, const ConformanceResult& r);
void from_json(const core::Json& j, ConformanceResult& r);

}  // namespace gauntlet::conformance
