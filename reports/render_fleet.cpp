// The fleet report as terminal text and as markdown.
#include "reports/fleet.h"
#include "reports/text_util.h"

namespace gauntlet::reports {

namespace {

using detail::format_bytes;
using detail::format_number;

std::string bytes_spread(const std::optional<Spread>& s) {
  if (!s) return "-";
  return format_bytes(static_cast<uint64_t>(s->min)) + " / " +
         format_bytes(static_cast<uint64_t>(s->median)) + " / " +
         format_bytes(static_cast<uint64_t>(s->max));
}

std::string number_spread(const std::optional<Spread>& s) {
  if (!s) return "-";
  return format_number(s->min, 1) + " / " + format_number(s->median, 1) + " / " +
         format_number(s->max, 1);
}

std::string machine_title(const FleetMachine& m) { return m.host + "/" + m.device; }

std::string headline(const FleetReport& f) {
  return std::to_string(f.machines.size()) + " machine(s) in " + std::to_string(f.groups.size()) +
         " group(s) from " + std::to_string(f.reports) + " report(s); " +
         std::to_string(f.outlier_count()) + " outlier(s) (threshold " +
         format_number(100.0 * f.threshold, 1) + "% below the group median)";
}

detail::Table groups_table(const FleetReport& f) {
  detail::Table t({"GROUP", "MODEL", "DRIVER", "MEMORY", "MACHINES", "SAFE (MAJORITY)",
                   "BUDGET MIN / MEDIAN / MAX", "RECOMMENDED", "TOK/S MIN / MEDIAN / MAX",
                   "OUTLIERS"});
  for (size_t i = 0; i < f.groups.size(); ++i) {
    const auto& g = f.groups[i];
    t.add({std::to_string(i + 1), g.key.model, g.key.driver.empty() ? "-" : g.key.driver,
           format_bytes(g.key.memory_bytes), std::to_string(g.machines.size()),
           std::to_string(g.majority_safe.size()), bytes_spread(g.budget_bytes),
           g.recommended.empty() ? "-" : g.recommended, number_spread(g.recommended_tok_s),
           std::to_string(g.outliers.size())});
  }
  return t;
}

detail::Table outliers_table(const FleetReport& f) {
  detail::Table t({"GROUP", "MACHINE", "WHY", "REPORT"});
  for (size_t i = 0; i < f.groups.size(); ++i) {
    for (const auto& o : f.groups[i].outliers) {
      const auto& m = f.machines[o.machine];
      for (const auto& r : o.reasons) {
        t.add({std::to_string(i + 1), machine_title(m), r.message, m.source});
      }
    }
  }
  return t;
}

detail::Table skipped_table(const FleetReport& f) {
  detail::Table t({"REPORT", "WHY IT WAS SKIPPED"});
  for (const auto& s : f.skipped) t.add({s.source, s.reason});
  return t;
}

std::string majority_lists(const FleetReport& f, const std::string& bullet) {
  std::string out;
  for (size_t i = 0; i < f.groups.size(); ++i) {
    out += bullet + "group " + std::to_string(i + 1) + " (" + describe(f.groups[i].key) + "): ";
    const auto& safe = f.groups[i].majority_safe;
    if (safe.empty()) out += "none";
    for (size_t j = 0; j < safe.size(); ++j) out += (j ? ", " : "") + safe[j];
    out += "\n";
  }
  return out;
}

}  // namespace

std::string render_fleet_text(const FleetReport& f) {
  std::string out =
      "gauntlet fleet: " + headline(f) + "\n\nGroups\n" + groups_table(f).aligned("  ");
  const auto outliers = outliers_table(f);
  out += "\nOutliers\n" + (outliers.empty() ? std::string("  none\n") : outliers.aligned("  "));
  if (!f.skipped.empty()) out += "\nSkipped reports\n" + skipped_table(f).aligned("  ");
  out += "\nSafe on the majority of each group\n" + majority_lists(f, "  ");
  return out;
}

std::string render_fleet_markdown(const FleetReport& f) {
  std::string out =
      "# gauntlet fleet\n\n" + headline(f) + "\n\n## Groups\n\n" + groups_table(f).markdown();
  const auto outliers = outliers_table(f);
  out += "\n## Outliers\n\n" + (outliers.empty() ? std::string("None.\n") : outliers.markdown());
  if (!f.skipped.empty()) out += "\n## Skipped reports\n\n" + skipped_table(f).markdown();
  out += "\n## Safe on the majority of each group\n\n" + majority_lists(f, "- ");
  return out;
}

}  // namespace gauntlet::reports
