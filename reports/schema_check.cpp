#include "reports/schema_check.h"

#include <algorithm>
#include <exception>
#include <memory>
// valijson's json_pointer replaces one-character strings in place, where GCC 12 at -O3 reports a
// false -Wrestrict overlap and a false -Wstringop-overflow bound inside std::string::replace (GCC
// bug 105329). clang knows neither group (the fuzz build would warn about the pragma).
#pragma GCC diagnostic push
#if !defined(__clang__)
#pragma GCC diagnostic ignored "-Wrestrict"
#pragma GCC diagnostic ignored "-Wstringop-overflow"
#endif
#include <valijson/adapters/nlohmann_json_adapter.hpp>
#include <valijson/schema.hpp>
#include <valijson/schema_parser.hpp>
#include <valijson/validation_results.hpp>
#include <valijson/validator.hpp>
#pragma GCC diagnostic pop

#include "kernels/fleet_schema_json.h"
#include "kernels/health_schema_json.h"
#include "kernels/report_schema_json.h"

namespace gauntlet::reports {

namespace {

using core::Json;

// valijson names a place as {"<root>", "[devices]", "[0]", ...}; a JSON pointer escapes ~ and /.
std::string json_pointer(const std::vector<std::string>& context) {
  std::string out;
  for (const auto& part : context) {
    if (part == "<root>") continue;
    std::string key = part.size() >= 2 && part.front() == '[' && part.back() == ']'
                          ? part.substr(1, part.size() - 2)
                          : part;
    if (key.size() >= 2 && key.front() == '"' && key.back() == '"') {
      key = key.substr(1, key.size() - 2);
    }
    out += '/';
    for (char c : key) out += c == '~' ? "~0" : c == '/' ? "~1" : std::string(1, c);
  }
  return out;
}

std::string shortened(const Json& value) {
  std::string text = value.dump();
  return text.size() > 60 ? text.substr(0, 57) + "..." : text;
}

// The document's value at a JSON pointer, for the message ("is \"probably_fine\"").
std::string value_text(const Json& document, const std::string& pointer) {
  try {
    return shortened(document.at(Json::json_pointer(pointer)));
  } catch (const std::exception&) {
    return "absent";
  }
}

struct Parsed {
  valijson::Schema schema;
  std::string error;  // why the schema itself does not parse
};

void parse_schema(const Json& schema, Parsed& out) {
  try {
    valijson::SchemaParser parser(valijson::SchemaParser::kDraft7);
    valijson::adapters::NlohmannJsonAdapter adapter(schema);
    parser.populateSchema(adapter, out.schema);
  } catch (const std::exception& e) {
    out.error = std::string("the schema does not parse: ") + e.what();
  }
}

std::vector<SchemaViolation> validate(const Json& document, const Parsed& parsed, size_t limit) {
  if (!parsed.error.empty()) return {{"", parsed.error}};
  valijson::Validator validator;
  valijson::ValidationResults results;
  valijson::adapters::NlohmannJsonAdapter target(document);
  try {
    if (validator.validate(parsed.schema, target, &results)) return {};
  } catch (const std::exception& e) {
    return {{"", std::string("validation stopped: ") + e.what()}};
  }
  std::vector<SchemaViolation> all;
  valijson::ValidationResults::Error error;
  while (results.popError(error)) all.push_back({json_pointer(error.context), error.description});
  // Keep the deepest places: an error whose place holds another error's place only says that
  // something below failed (a property, an item, one alternative of anyOf).
  std::vector<SchemaViolation> leaves;
  for (const auto& e : all) {
    const bool has_deeper = std::any_of(all.begin(), all.end(), [&](const SchemaViolation& o) {
      return o.path.size() > e.path.size() && o.path.compare(0, e.path.size(), e.path) == 0 &&
             o.path[e.path.size()] == '/';
    });
    const bool seen = std::any_of(leaves.begin(), leaves.end(), [&](const SchemaViolation& o) {
      return o.path == e.path && o.message.rfind(e.message, 0) == 0;
    });
    if (has_deeper || seen) continue;
    leaves.push_back({e.path, e.message + " (the value is " + value_text(document, e.path) + ")"});
    if (leaves.size() >= limit) break;
  }
  // A failure with no place named (the schema `false` allows nothing) is still a failure.
  if (leaves.empty()) leaves.push_back({"", "the schema allows no value here"});
  return leaves;
}

// A shipped schema, parsed once.
std::unique_ptr<Parsed> parsed_schema(std::string_view text) {
  auto p = std::make_unique<Parsed>();
  parse_schema(core::Json::parse(text), *p);
  return p;
}

}  // namespace

std::string_view report_schema_text() { return kernels::report_schema_json; }
std::string_view fleet_schema_text() { return kernels::fleet_schema_json; }
std::string_view health_schema_text() { return kernels::health_schema_json; }

std::vector<SchemaViolation> check_against_schema(const core::Json& document,
                                                  const core::Json& schema, size_t limit) {
  Parsed parsed;
  parse_schema(schema, parsed);
  return validate(document, parsed, limit);
}

std::vector<SchemaViolation> check_report_schema(const core::Json& document, size_t limit) {
  static const std::unique_ptr<Parsed> parsed = parsed_schema(report_schema_text());
  return validate(document, *parsed, limit);
}

std::vector<SchemaViolation> check_fleet_schema(const core::Json& document, size_t limit) {
  static const std::unique_ptr<Parsed> parsed = parsed_schema(fleet_schema_text());
  return validate(document, *parsed, limit);
}

std::vector<SchemaViolation> check_health_schema(const core::Json& document, size_t limit) {
  static const std::unique_ptr<Parsed> parsed = parsed_schema(health_schema_text());
  return validate(document, *parsed, limit);
}

}  // namespace gauntlet::reports
