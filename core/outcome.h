#pragma once
// Outcome rows: what every unit of work yields, whatever stage it belongs to.
#include <optional>
#include <string>
#include <vector>

#include "core/json.h"

namespace gauntlet::core {

enum class RowStatus { pass, fail, unsupported, skipped, error, timeout, crash };

const char* to_string(RowStatus status);
std::optional<RowStatus> row_status_from_string(const std::string& text);

struct Row {
  std::string id;      // e.g. "conform.f16.add"
  std::string device;  // e.g. "opencl:0", empty for host-wide checks
  RowStatus status = RowStatus::pass;
  Json metrics = Json::object();  // numbers and small evidence, e.g. {"bytes": 32768}
  std::string reason;             // why it is not a pass, in words a user can act on
  double duration_s = 0.0;
};

Row make_row(std::string id, std::string device, RowStatus status, std::string reason = {});

void to_json(Json& j, const Row& row);
void from_json(const Json& j, Row& row);

// True when no row failed, errored, crashed or timed out.
bool all_passed(const std::vector<Row>& rows);

}  // namespace gauntlet::core
