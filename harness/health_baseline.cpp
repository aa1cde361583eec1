#include "harness/health_baseline.h"

#include <set>
#include <vector>

#include "core/json.h"
#include "reports/io.h"

namespace gauntlet::harness {

namespace {

// The reports a fleet report lists for `node`, as paths readable from here: absolute, or relative
// to the working folder, else to the fleet report's folder.
std::vector<std::filesystem::path> node_sources(const core::Json& fleet,
                                                const std::filesystem::path& fleet_path,
                                                const std::string& node,
                                                std::set<std::string>& nodes) {
  std::set<std::string> seen;
  std::vector<std::filesystem::path> sources;
  for (const auto& group : fleet.value("groups", core::Json::array())) {
    for (const auto& m : group.value("machines", core::Json::array())) {
      const std::string host = m.value("host", "");
      nodes.insert(host);
      const std::string source = m.value("source", "");
      if (host != node || source.empty() || !seen.insert(source).second) continue;
      std::filesystem::path p(source);
      std::error_code ec;
      if (p.is_relative() && !std::filesystem::exists(p, ec)) p = fleet_path.parent_path() / p;
      sources.push_back(p);
    }
  }
  return sources;
}

}  // namespace

core::Result<Baseline> read_baseline(const std::filesystem::path& path, const std::string& node) {
  auto json = core::read_json_file(path);
  if (!json) return json.error();
  if (!json->is_object() || json->value("kind", "") != "gauntlet-fleet") {
    auto report = reports::read_report(path);
    if (!report) return report.error();
    return Baseline{std::move(*report), path, ""};
  }
  std::set<std::string> nodes;
  std::vector<std::filesystem::path> sources;
  try {
    sources = node_sources(*json, path, node, nodes);
  } catch (const core::Json::exception& e) {
    return core::make_error(core::ErrorKind::invalid_argument,
                            "the fleet report is damaged: " + std::string(e.what()));
  }
  if (sources.empty()) {
    std::string listed;
    for (const auto& n : nodes) listed += (listed.empty() ? "" : ", ") + n;
    return core::make_error(core::ErrorKind::invalid_argument,
                            "the fleet report has no report of this node '" + node +
                                "' (its nodes: " + (listed.empty() ? "none" : listed) + ")");
  }
  std::optional<Baseline> newest;
  for (const auto& source : sources) {
    auto report = reports::read_report(source);
    if (!report) {
      return core::make_error(
          core::ErrorKind::invalid_argument,
          "its report of this node, " + source.string() + ": " + report.error().message);
    }
    if (!newest || report->started > newest->report.started) {
      newest = Baseline{std::move(*report), source, ""};
    }
  }
  newest->note =
      "this node's report in the fleet report " + path.string() + ": " +
      newest->read_from.string() +
      (sources.size() > 1 ? " (the newest of " + std::to_string(sources.size()) + ")" : "");
  return std::move(*newest);
}

}  // namespace gauntlet::harness
