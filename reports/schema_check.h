#pragma once
// Checks a JSON document against the report's JSON Schema, embedded at build time from
// reports/schema/report.schema.json. The checker covers the keywords that schema uses ($ref into
// $defs, type, enum, const, required, properties, additionalProperties, propertyNames, items,
// minItems, minimum, minLength, pattern, anyOf, if/then); tests also run a complete validator
// (python3-jsonschema) over the same file.
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

// Every violation of `schema` by `document` (at most `limit`).
std::vector<SchemaViolation> check_against_schema(const core::Json& document,
                                                  const core::Json& schema, size_t limit = 20);
// The same against the report schema.
std::vector<SchemaViolation> check_report_schema(const core::Json& document, size_t limit = 20);
// The same against the fleet report schema (`gauntlet report merge --format json`).
std::vector<SchemaViolation> check_fleet_schema(const core::Json& document, size_t limit = 20);

}  // namespace gauntlet::reports
