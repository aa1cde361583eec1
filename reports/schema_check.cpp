#include "reports/schema_check.h"

#include <regex>

#include "kernels/fleet_schema_json.h"
#include "kernels/report_schema_json.h"

namespace gauntlet::reports {

namespace {

using core::Json;

class Checker {
 public:
  Checker(const Json& root, size_t limit) : root_(root), limit_(limit) {}

  void check(const Json& doc, const Json& schema, const std::string& path) {
    if (full()) return;
    if (schema.is_boolean()) {
      if (!schema.get<bool>()) add(path, "is not allowed here");
      return;
    }
    if (!schema.is_object()) return;
    if (auto ref = schema.find("$ref"); ref != schema.end()) {
      const Json* target = resolve(ref->get<std::string>());
      if (target == nullptr) {
        add(path, "schema reference " + ref->get<std::string>() + " does not resolve");
        return;
      }
      check(doc, *target, path);
    }
    if (auto type = schema.find("type"); type != schema.end() && !type_matches(doc, *type)) {
      add(path, "is " + type_name(doc) + " " + shortened(doc) + ", expected " + type_list(*type));
      return;
    }
    if (auto values = schema.find("enum"); values != schema.end()) {
      bool found = false;
      for (const auto& v : *values) found = found || v == doc;
      if (!found) add(path, "is " + doc.dump() + ", expected one of " + join(*values));
    }
    if (auto value = schema.find("const"); value != schema.end() && *value != doc) {
      add(path, "is " + doc.dump() + ", expected " + value->dump());
    }
    if (doc.is_number()) check_number(doc, schema, path);
    if (doc.is_string()) check_string(doc, schema, path);
    if (doc.is_object()) check_object(doc, schema, path);
    if (doc.is_array()) check_array(doc, schema, path);
    if (auto any = schema.find("anyOf"); any != schema.end()) check_any_of(doc, *any, path);
    if (auto cond = schema.find("if"); cond != schema.end()) {
      Checker probe(root_, 1);
      probe.check(doc, *cond, path);
      if (probe.errors_.empty()) {
        if (auto then = schema.find("then"); then != schema.end()) check(doc, *then, path);
      }
    }
  }

  std::vector<SchemaViolation> errors_;

 private:
  bool full() const { return errors_.size() >= limit_; }
  void add(const std::string& path, std::string message) {
    if (!full()) errors_.push_back({path, std::move(message)});
  }

  const Json* resolve(const std::string& ref) const {
    if (ref.rfind("#/", 0) != 0) return nullptr;
    try {
      return &root_.at(Json::json_pointer(ref.substr(1)));
    } catch (const Json::exception&) {
      return nullptr;
    }
  }

  static std::string type_name(const Json& doc) {
    if (doc.is_number_integer()) return "an integer";
    if (doc.is_number()) return "a number";
    if (doc.is_string()) return "a string";
    if (doc.is_boolean()) return "a boolean";
    if (doc.is_null()) return "null";
    if (doc.is_array()) return "an array";
    return "an object";
  }

  static bool one_type(const Json& doc, const std::string& type) {
    if (type == "object") return doc.is_object();
    if (type == "array") return doc.is_array();
    if (type == "string") return doc.is_string();
    if (type == "boolean") return doc.is_boolean();
    if (type == "null") return doc.is_null();
    if (type == "number") return doc.is_number();
    if (type == "integer") {
      if (doc.is_number_integer()) return true;
      return doc.is_number_float() &&
             doc.get<double>() == static_cast<double>(static_cast<long long>(doc.get<double>()));
    }
    return false;
  }

  static bool type_matches(const Json& doc, const Json& type) {
    if (type.is_string()) return one_type(doc, type.get<std::string>());
    for (const auto& t : type) {
      if (one_type(doc, t.get<std::string>())) return true;
    }
    return false;
  }

  static std::string shortened(const Json& doc) {
    std::string text = doc.dump();
    return text.size() > 60 ? text.substr(0, 57) + "..." : text;
  }

  static std::string join(const Json& values) {
    std::string text;
    for (const auto& v : values) text += (text.empty() ? "" : ", ") + v.dump();
    return text;
  }
  static std::string type_list(const Json& type) {
    return type.is_string() ? type.get<std::string>() : join(type);
  }

  void check_number(const Json& doc, const Json& schema, const std::string& path) {
    if (auto min = schema.find("minimum");
        min != schema.end() && doc.get<double>() < min->get<double>()) {
      add(path, "is " + doc.dump() + ", below the minimum " + min->dump());
    }
  }

  void check_string(const Json& doc, const Json& schema, const std::string& path) {
    const auto text = doc.get<std::string>();
    if (auto min = schema.find("minLength");
        min != schema.end() && text.size() < min->get<size_t>()) {
      add(path, text.empty() ? "is empty" : "is shorter than " + min->dump() + " characters");
    }
    if (auto pattern = schema.find("pattern"); pattern != schema.end()) {
      if (!std::regex_search(text, std::regex(pattern->get<std::string>()))) {
        add(path, "is \"" + text + "\", which does not match " + pattern->get<std::string>());
      }
    }
  }

  void check_object(const Json& doc, const Json& schema, const std::string& path) {
    if (auto required = schema.find("required"); required != schema.end()) {
      std::vector<std::string> missing;
      for (const auto& key : *required) {
        if (!doc.contains(key.get<std::string>()))
          missing.push_back("\"" + key.get<std::string>() + "\"");
      }
      if (missing.size() == 1) add(path, "misses the required field " + missing[0]);
      if (missing.size() > 1) {
        std::string list;
        for (const auto& m : missing) list += (list.empty() ? "" : ", ") + m;
        add(path, "misses the required fields " + list);
      }
    }
    const auto props = schema.find("properties");
    const auto extra = schema.find("additionalProperties");
    const auto names = schema.find("propertyNames");
    for (const auto& [key, value] : doc.items()) {
      const std::string child = path + "/" + escape(key);
      if (names != schema.end()) check(Json(key), *names, child + " (name)");
      if (props != schema.end() && props->contains(key)) {
        check(value, props->at(key), child);
      } else if (extra != schema.end()) {
        check(value, *extra, child);
      }
    }
  }

  void check_array(const Json& doc, const Json& schema, const std::string& path) {
    if (auto min = schema.find("minItems");
        min != schema.end() && doc.size() < min->get<size_t>()) {
      add(path, "has " + std::to_string(doc.size()) + " items, fewer than " + min->dump());
    }
    if (auto items = schema.find("items"); items != schema.end()) {
      for (size_t i = 0; i < doc.size(); ++i) check(doc[i], *items, path + "/" + std::to_string(i));
    }
  }

  void check_any_of(const Json& doc, const Json& options, const std::string& path) {
    std::vector<SchemaViolation> closest;
    auto depth = [](const std::vector<SchemaViolation>& errors) {
      return errors.front().path.size();
    };
    for (const auto& option : options) {
      Checker probe(root_, limit_);
      probe.check(doc, option, path);
      if (probe.errors_.empty()) return;
      // The alternative whose errors lie deepest got furthest (its type matched): its errors say
      // what is wrong in the usual case.
      if (closest.empty() || depth(probe.errors_) > depth(closest)) closest = probe.errors_;
    }
    for (auto& e : closest) add(e.path, std::move(e.message));
  }

  static std::string escape(const std::string& key) {
    std::string out;
    for (char c : key) {
      if (c == '~')
        out += "~0";
      else if (c == '/')
        out += "~1";
      else
        out += c;
    }
    return out;
  }

  const Json& root_;
  size_t limit_;
};

}  // namespace

std::string_view report_schema_text() { return kernels::report_schema_json; }
std::string_view fleet_schema_text() { return kernels::fleet_schema_json; }

std::vector<SchemaViolation> check_against_schema(const core::Json& document,
                                                  const core::Json& schema, size_t limit) {
  Checker checker(schema, limit);
  checker.check(document, schema, "");
  return checker.errors_;
}

std::vector<SchemaViolation> check_report_schema(const core::Json& document, size_t limit) {
  static const core::Json schema = core::Json::parse(report_schema_text());
  return check_against_schema(document, schema, limit);
}

std::vector<SchemaViolation> check_fleet_schema(const core::Json& document, size_t limit) {
  static const core::Json schema = core::Json::parse(fleet_schema_text());
  return check_against_schema(document, schema, limit);
}

}  // namespace gauntlet::reports
