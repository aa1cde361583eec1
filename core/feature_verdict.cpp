#include "core/feature_verdict.h"

#include <array>
#include <utility>

namespace gauntlet::core {

namespace {

constexpr std::array<std::pair<FeatureVerdict, const char*>, 5> kNames{{
    {FeatureVerdict::verified, "verified"},
    {FeatureVerdict::emulated, "emulated"},
    {FeatureVerdict::unsupported, "unsupported"},
    {FeatureVerdict::failed, "failed"},
    {FeatureVerdict::not_tested, "not_tested"},
}};

}  // namespace

const char* to_string(FeatureVerdict verdict) {
  for (const auto& [value, name] : kNames) {
    if (value == verdict) return name;
  }
  return "not_tested";
}

std::optional<FeatureVerdict> feature_verdict_from_string(const std::string& text) {
  if (text == "not tested") return FeatureVerdict::not_tested;
  for (const auto& [value, name] : kNames) {
    if (text == name) return value;
  }
  return std::nullopt;
}

void to_json(Json& j, const FeatureResult& v) {
  j = Json{{"verdict", to_string(v.verdict)}, {"rows", v.rows}};
}

void from_json(const Json& j, FeatureResult& v) {
  const auto verdict = feature_verdict_from_string(j.at("verdict").get<std::string>());
  if (!verdict) throw Json::other_error::create(501, "unknown feature verdict", &j);
  v.verdict = *verdict;
  v.rows = j.at("rows").get<std::vector<std::string>>();
}

}  // namespace gauntlet::core
