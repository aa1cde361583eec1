#include "core/outcome.h"

#include <array>

namespace gauntlet::core {

namespace {
constexpr std::array<std::pair<RowStatus, const char*>, 7> kNames{{
    {RowStatus::pass, "pass"},
    {RowStatus::fail, "fail"},
    {RowStatus::unsupported, "unsupported"},
    {RowStatus::skipped, "skipped"},
    {RowStatus::error, "error"},
    {RowStatus::timeout, "timeout"},
    {RowStatus::crash, "crash"},
}};
}  // namespace

const char* to_string(RowStatus status) {
  for (const auto& [value, name] : kNames) {
    if (value == status) return name;
  }
  return "error";
}

std::optional<RowStatus> row_status_from_string(const std::string& text) {
  for (const auto& [value, name] : kNames) {
    if (text == name) return value;
  }
  return std::nullopt;
}

Row make_row(std::string id, std::string device, RowStatus status, std::string reason) {
  Row row;
  row.id = std::move(id);
  row.device = std::move(device);
  row.status = status;
  row.reason = std::move(reason);
  return row;
}

void to_json(Json& j, const Row& row) {
  j = Json{{"id", row.id},           {"device", row.device}, {"status", to_string(row.status)},
           {"metrics", row.metrics}, {"reason", row.reason}, {"duration_s", row.duration_s}};
}

void from_json(const Json& j, Row& row) {
  row.id = j.at("id").get<std::string>();
  row.device = j.value("device", "");
  auto status = row_status_from_string(j.at("status").get<std::string>());
  if (!status) throw Json::other_error::create(501, "unknown row status", &j);
  row.status = *status;
  row.metrics = j.value("metrics", Json::object());
  row.reason = j.value("reason", "");
  row.duration_s = j.value("duration_s", 0.0);
}

bool all_passed(const std::vector<Row>& rows) {
  for (const auto& row : rows) {
    switch (row.status) {
      case RowStatus::fail:
      case RowStatus::error:
      case RowStatus::timeout:
      case RowStatus::crash:
        return false;
      default:
        break;
    }
  }
  return true;
}

}  // namespace gauntlet::core
