#include "reports/merge.h"

#include <set>

#include "reports/text_util.h"

namespace gauntlet::reports {

namespace {

std::string column_title(const MergeColumn& c) { return c.host + "/" + c.device; }

std::string cell_text(const MergeTable& t, const std::string& profile, size_t column) {
  auto row = t.cells.find(profile);
  if (row == t.cells.end()) return "-";
  auto it = row->second.find(column);
  if (it == row->second.end()) return "-";
  std::string text = to_string(it->second.verdict);
  if (it->second.tok_s) text.append(" ").append(detail::format_number(*it->second.tok_s, 1));
  return text;
}

detail::Table build_table(const MergeTable& t) {
  std::vector<std::string> header{"PROFILE"};
  for (const auto& c : t.columns) header.push_back(column_title(c));
  detail::Table table(header);
  for (const auto& p : t.profiles) {
    std::vector<std::string> row{p};
    for (size_t i = 0; i < t.columns.size(); ++i) row.push_back(cell_text(t, p, i));
    table.add(row);
  }
  return table;
}

detail::Table machines_table(const MergeTable& t) {
  detail::Table table({"HOST/DEVICE", "NAME", "SAFE", "UNSAFE", "RECOMMENDED", "REPORT"});
  for (const auto& c : t.columns) {
    table.add({column_title(c), c.device_name + (c.simulated ? " (simulated)" : ""),
               std::to_string(c.safe), std::to_string(c.unsafe),
               c.recommendation.empty() ? "-" : c.recommendation, c.source});
  }
  return table;
}

}  // namespace

MergeTable merge_reports(const std::vector<NamedReport>& reports) {
  MergeTable t;
  std::set<std::string> names;
  for (const auto& [source, report] : reports) {
    for (const auto& d : report.devices) {
      MergeColumn column{
          report.host.hostname,   d.key, d.name, source,
          d.simulation.simulated, 0,     0,      d.recommendation ? d.recommendation->profile : ""};
      const size_t index = t.columns.size();
      for (const auto& p : d.profiles) {
        names.insert(p.name);
        t.cells[p.name][index] = {p.verdict, p.reason, p.figures.tok_s};
        column.safe += p.verdict == ProfileVerdict::safe ? 1 : 0;
        column.unsafe += p.verdict == ProfileVerdict::unsafe ? 1 : 0;
      }
      t.columns.push_back(std::move(column));
    }
  }
  t.profiles.assign(names.begin(), names.end());
  return t;
}

core::Json merge_to_json(const MergeTable& t) {
  core::Json columns = core::Json::array();
  for (const auto& c : t.columns) {
    columns.push_back({{"host", c.host},
                       {"device", c.device},
                       {"device_name", c.device_name},
                       {"source", c.source},
                       {"simulated", c.simulated},
                       {"safe", c.safe},
                       {"unsafe", c.unsafe},
                       {"recommendation", c.recommendation}});
  }
  core::Json profiles = core::Json::array();
  for (const auto& p : t.profiles) {
    core::Json cells = core::Json::array();
    const auto& row = t.cells.at(p);
    for (size_t i = 0; i < t.columns.size(); ++i) {
      auto it = row.find(i);
      if (it == row.end()) {
        cells.push_back(nullptr);
      } else {
        cells.push_back(
            {{"verdict", to_string(it->second.verdict)},
             {"reason", it->second.reason},
             {"tok_s", it->second.tok_s ? core::Json(*it->second.tok_s) : core::Json(nullptr)}});
      }
    }
    profiles.push_back({{"profile", p}, {"cells", cells}});
  }
  return {{"kind", "gauntlet-merge"},
          {"schema_version", kSchemaVersion},
          {"columns", columns},
          {"profiles", profiles}};
}

std::string render_merge_text(const MergeTable& t) {
  return "Machines\n" + machines_table(t).aligned("  ") + "\nProfiles (verdict, tok/s)\n" +
         build_table(t).aligned("  ");
}

std::string render_merge_markdown(const MergeTable& t) {
  return "# gauntlet fleet\n\n" + machines_table(t).markdown() +
         "\n## Profiles (verdict, tok/s)\n\n" + build_table(t).markdown();
}

}  // namespace gauntlet::reports
