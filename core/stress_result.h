#pragma once
// What a device's memory stress found, as plain data: stress/ measures it (stress/stress.h adds
// how it was measured), the planner reads the budget and the report carries it.
#include <cstdint>
#include <string>
#include <vector>

#include "core/json.h"
#include "core/outcome.h"

namespace gauntlet::core {

// One occupancy step of the stress curve.
struct StressPoint {
  int step = 0;  // 1-based, in the order the steps ran
  uint64_t bytes = 0;
  double fraction = 0;  // of the device's claimed memory
  bool verified = false;
  double bandwidth_gbps = 0;  // device copy bandwidth at this occupancy
  RowStatus status = RowStatus::skipped;
  std::string reason;
};

struct StressResult {
  uint64_t safe_budget_bytes = 0;
  uint64_t margin_bytes = 0;
  uint64_t max_single_alloc_verified_bytes = 0;
  double copy_bandwidth_gbps = 0;
  double host_memcpy_gbps = 0;
  std::vector<StressPoint> curve;
  std::vector<Row> rows;
};

void to_json(Json& j, const StressPoint& v);
void from_json(const Json& j, StressPoint& v);
void to_json(Json& j, const StressResult& v);
void from_json(const Json& j, StressResult& v);

}  // namespace gauntlet::core
