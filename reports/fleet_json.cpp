// The fleet report as JSON; reports/schema/fleet.schema.json describes it.
#include "reports/fleet.h"

namespace gauntlet::reports {

namespace {

core::Json spread_json(const std::optional<Spread>& s) {
  if (!s) return nullptr;
  return {{"min", s->min}, {"median", s->median}, {"max", s->max}, {"count", s->count}};
}

core::Json machine_json(const FleetMachine& m) {
  return {{"host", m.host},
          {"device", m.device},
          {"source", m.source},
          {"budget_bytes", m.budget_bytes ? core::Json(*m.budget_bytes) : core::Json(nullptr)},
          {"recommended", m.recommended}};
}

core::Json group_json(const FleetReport& fleet, const FleetGroup& g) {
  core::Json machines = core::Json::array();
  for (size_t i : g.machines) machines.push_back(machine_json(fleet.machines[i]));
  core::Json outliers = core::Json::array();
  for (const auto& o : g.outliers) {
    core::Json reasons = core::Json::array();
    for (const auto& r : o.reasons) {
      reasons.push_back({{"kind", r.kind},
                         {"subject", r.subject},
                         {"value", r.value},
                         {"group", r.group},
                         {"message", r.message}});
    }
    auto entry = machine_json(fleet.machines[o.machine]);
    entry["reasons"] = reasons;
    outliers.push_back(entry);
  }
  return {{"model", g.key.model},
          {"driver", g.key.driver},
          {"memory_bytes", g.key.memory_bytes},
          {"machine_count", g.machines.size()},
          {"majority_safe", g.majority_safe},
          {"recommended", g.recommended},
          {"budget_bytes", spread_json(g.budget_bytes)},
          {"recommended_tok_s", spread_json(g.recommended_tok_s)},
          {"soak_profile", g.soak_profile},
          {"steady_tok_s", spread_json(g.steady_tok_s)},
          {"max_temperature_c", spread_json(g.max_temperature_c)},
          {"machines", machines},
          {"outliers", outliers}};
}

}  // namespace

core::Json fleet_to_json(const FleetReport& fleet) {
  core::Json groups = core::Json::array();
  for (const auto& g : fleet.groups) groups.push_back(group_json(fleet, g));
  core::Json skipped = core::Json::array();
  for (const auto& s : fleet.skipped)
    skipped.push_back({{"source", s.source}, {"reason", s.reason}});
  return {{"kind", "gauntlet-fleet"},
          {"schema_version", kFleetSchemaVersion},
          {"threshold", fleet.threshold},
          {"reports", fleet.reports},
          {"machine_count", fleet.machines.size()},
          {"outlier_count", fleet.outlier_count()},
          {"groups", groups},
          {"skipped", skipped}};
}

}  // namespace gauntlet::reports
