#pragma once
// Checks a JSON document against a JSON Schema (draft 7, the draft the report schema declares)
// with valijson, and against the report's schema, embedded at build time from
// reports/schema/report.schema.json. Every failing place is reported at once, at its deepest
// JSON pointer, with the value found there. tests/reports/schema_suite_test.cpp runs the official
// JSON-Schema-Test-Suite's draft-7 cases through this path.
#include <string>
#include <string_view>
#include <vector>

#include "core/json.h"

namespace gauntlet::reports {

struct SchemaViolation {
  std::string path;     // JSON pointer into the document, "/devices/0/profiles/1/verdict"
  std::string message;  // "is not one of safe, unsafe, untested, derived"
  std::string describe() const { return (path.empty() ? "/" : path) + ": " + message; }
};

// The schema texts shipped with this build.
std::string_view report_schema_text();
std::string_view fleet_schema_text();
std::string_view health_schema_text();

// Every violation of `schema` by `document` (at most `limit`).
std::vector<SchemaViolation> check_against_schema(const core::Json& document,
                                                  const core::Json& schema, size_t limit = 20);
// The same against the report schema.
std::vector<SchemaViolation> check_report_schema(const core::Json& document, size_t limit = 20);
// The same against the fleet report schema (`gauntlet report merge --format json`).
std::vector<SchemaViolation> check_fleet_schema(const core::Json& document, size_t limit = 20);
// The same against the health verdict's schema (`gauntlet health --format json`).
std::vector<SchemaViolation> check_health_schema(const core::Json& document, size_t limit = 20);

}  // namespace gauntlet::reports
