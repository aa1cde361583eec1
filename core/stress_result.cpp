#include "core/stress_result.h"

namespace gauntlet::core {

void to_json(Json& j, const StressPoint& v) {
  j = Json{{"step", v.step},
           {"bytes", v.bytes},
           {"fraction", v.fraction},
           {"verified", v.verified},
           {"bandwidth_gbps", v.bandwidth_gbps},
           {"status", to_string(v.status)},
           {"reason", v.reason}};
}

void from_json(const Json& j, StressPoint& v) {
  v.step = j.at("step").get<int>();
  v.bytes = j.at("bytes").get<uint64_t>();
  v.fraction = j.at("fraction").get<double>();
  v.verified = j.at("verified").get<bool>();
  v.bandwidth_gbps = j.at("bandwidth_gbps").get<double>();
  const auto status = row_status_from_string(j.at("status").get<std::string>());
  if (!status) throw Json::other_error::create(501, "unknown stress step status", &j);
  v.status = *status;
  v.reason = j.at("reason").get<std::string>();
}

void to_json(Json& j, const StressResult& v) {
  j = Json{{"safe_budget_bytes", v.safe_budget_bytes},
           {"margin_bytes", v.margin_bytes},
           {"max_single_alloc_verified_bytes", v.max_single_alloc_verified_bytes},
           {"copy_bandwidth_gbps", v.copy_bandwidth_gbps},
           {"host_memcpy_gbps", v.host_memcpy_gbps},
           {"curve", v.curve},
           {"rows", v.rows}};
}

void from_json(const Json& j, StressResult& v) {
  v.safe_budget_bytes = j.at("safe_budget_bytes").get<uint64_t>();
  v.margin_bytes = j.at("margin_bytes").get<uint64_t>();
  v.max_single_alloc_verified_bytes = j.at("max_single_alloc_verified_bytes").get<uint64_t>();
  v.copy_bandwidth_gbps = j.at("copy_bandwidth_gbps").get<double>();
  v.host_memcpy_gbps = j.at("host_memcpy_gbps").get<double>();
  v.curve = j.at("curve").get<std::vector<StressPoint>>();
  v.rows = j.at("rows").get<std::vector<Row>>();
}

}  // namespace gauntlet::core
