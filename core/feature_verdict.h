#pragma once
// What conformance showed of one feature, as plain data: conformance/ decides it, the planner
// (harness/) reads it and the report (reports/) carries it.
#include <optional>
#include <string>
#include <vector>

#include "core/json.h"

namespace gauntlet::core {

// verified: claimed (or required by the API) and shown to work; emulated: not native, but the
// path an engine would use instead (16-bit storage, f32 arithmetic) works; unsupported: not
// claimed; failed: claimed but wrong (a driver defect); not_tested: filtered out or no case.
enum class FeatureVerdict { verified, emulated, unsupported, failed, not_tested };

// "verified", "emulated", "unsupported", "failed", "not_tested"
const char* to_string(FeatureVerdict verdict);
// Also reads "not tested", as journals of earlier versions wrote it.
std::optional<FeatureVerdict> feature_verdict_from_string(const std::string& text);

struct FeatureResult {
  FeatureVerdict verdict = FeatureVerdict::not_tested;
  std::vector<std::string> rows;  // ids of the conformance rows the verdict rests on
};

void to_json(Json& j, const FeatureResult& v);
void from_json(const Json& j, FeatureResult& v);

}  // namespace gauntlet::core
