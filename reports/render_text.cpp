#include <algorithm>
#include <map>

#include "reports/causes.h"
#include "reports/fit_rows.h"
#include "reports/pass_rows.h"
#include "reports/render.h"
#include "reports/soak_lines.h"
#include "reports/speculation_lines.h"
#include "reports/telemetry_lines.h"
#include "reports/text_util.h"

namespace gauntlet::reports {

namespace {

using detail::format_bytes;
using detail::format_number;
using detail::format_optional;
using detail::Table;

std::string header_line(const Report& r) {
  std::string out = r.tool.name + " " + r.tool.version;
  if (!r.tool.git_revision.empty()) out += " (" + r.tool.git_revision + ")";
  out += " on " + (r.host.hostname.empty() ? std::string("unknown host") : r.host.hostname);
  out += ", level " + r.level + ", started " + r.started;
  out += r.complete ? "" : "  ** INCOMPLETE: the run was interrupted **";
  return out + "\n";
}

std::string peak_cell(const ProfileFigures& f) {
  if (f.peak_bytes) return format_bytes(*f.peak_bytes);
  if (f.planned_peak_bytes) return format_bytes(*f.planned_peak_bytes) + " (planned)";
  return "-";
}

// The occupancy steps that verified a sample of their chunks to keep within the time budget.
std::string sampled_steps_note(const core::StressResult& s) {
  uint64_t chunks = 0, verified = 0;
  for (const auto& row : s.rows) {
    if (row.metrics.value("verify_every", uint64_t{1}) <= 1) continue;
    chunks += row.metrics.value("chunks", uint64_t{0});
    verified += row.metrics.value("chunks_verified", uint64_t{0});
  }
  if (chunks == 0) return "";
  return "; the time budget left the steps a sample: " + std::to_string(verified) + " of " +
         std::to_string(chunks) + " chunks written and read back, all held";
}

// The host's C++ engine: the reference every other device is compared with.
bool is_host_reference(const DeviceReport& d) {
  for (const auto& v : d.views) {
    if (v.info.id == core::DeviceId{core::Api::host, 0}) return true;
  }
  return false;
}

// Said once per report where the host reference was not itself judged.
std::string reference_line(const Report& r) {
  for (const auto& d : r.devices) {
    if (is_host_reference(d)) return "";
  }
  return "reference: host, the C++ engine each device's tokens and logits are compared with "
         "(judged itself only with --device host)\n";
}

// A driver that refuses local memory it advertises: the finding, and the figure planned against.
std::string over_advertised_note(const DeviceReport& d) {
  uint64_t advertised = 0;
  for (const auto& v : d.views) advertised = std::max(advertised, v.info.local_mem_size);
  // A simulated device advertises its target's figure.
  if (d.simulation.local_mem_bytes) advertised = *d.simulation.local_mem_bytes;
  if (d.verified.local_mem_verified_bytes == 0 ||
      d.verified.local_mem_verified_bytes >= advertised) {
    return "";
  }
  return " (" + std::to_string(advertised) +
         " advertised, the rest refused: planned against the verified figure)";
}

std::string device_text(const DeviceReport& d, bool all) {
  std::string out = "\nDevice " + d.key + "  " + d.name + "\n";
  if (d.simulation.simulated) {
    out += "  SIMULATED";
    if (!d.simulation.preset.empty()) out += " (" + d.simulation.preset + ")";
    if (d.simulation.local_mem_bytes)
      out += ", local memory " + std::to_string(*d.simulation.local_mem_bytes);
    if (d.simulation.global_mem_bytes)
      out += ", memory " + format_bytes(*d.simulation.global_mem_bytes);
    if (d.simulation.max_alloc_bytes)
      out += ", largest allocation " + format_bytes(*d.simulation.max_alloc_bytes);
    for (const auto& f : d.simulation.features_off) out += ", no " + f;
    out += "\n";
  }
  for (const auto& v : d.views) {
    out += "  " + v.api + " " + v.info.id.to_string() + ": " +
           (v.usable ? "usable" : "NOT usable: " + v.reason) + "\n";
  }
  if (d.verified.local_mem_verified_bytes == 0 && d.verified.max_workgroup_verified == 0) {
    out += is_host_reference(d) ? "  limits verified: none apply (the host runs the C++ reference)"
                                : "  limits verified: none apply (no local memory or workgroups)";
  } else {
    out += "  limits verified: local memory " +
           std::to_string(d.verified.local_mem_verified_bytes) + " B" + over_advertised_note(d) +
           ", workgroup " + std::to_string(d.verified.max_workgroup_verified);
  }
  if (d.verified.subgroup_size_observed) {
    out += ", subgroup " + std::to_string(d.verified.subgroup_size_observed);
  }
  out += "\n";
  if (!d.verified.features.empty()) {
    std::map<FeatureVerdict, std::string> by_verdict;
    for (const auto& [name, result] : d.verified.features) {
      auto& list = by_verdict[result.verdict];
      list += (list.empty() ? "" : ", ") + name;
    }
    for (const auto& [verdict, names] : by_verdict) {
      out += std::string("  features ") + to_string(verdict) + ": " + names + "\n";
    }
  }
  if (d.stress) {
    const auto& s = *d.stress;
    out += "  memory: safe budget " + format_bytes(s.safe_budget_bytes) + " (margin " +
           format_bytes(s.margin_bytes) + "), largest allocation " +
           format_bytes(s.max_single_alloc_verified_bytes) + ", copy " +
           format_number(s.copy_bandwidth_gbps) + " GB/s (host memcpy " +
           format_number(s.host_memcpy_gbps) + " GB/s)" + sampled_steps_note(s) + "\n";
  } else {
    out += "  memory: not measured\n";
  }
  if (d.compute_peak) {
    out +=
        std::string(is_host_reference(d) ? "  the reference's compute peak (its exact C++, not a "
                                           "device's speed): "
                                         : "  compute peak: ") +
        core::describe(*d.compute_peak) +
        (d.stress ? ", copy " + format_number(d.stress->copy_bandwidth_gbps) + " GB/s" : "") +
        " (measured in " + format_number(d.compute_peak->seconds, 1) + " s)\n";
  }
  for (const auto& line : detail::telemetry_lines(d)) out += "  " + line + "\n";
  for (const auto& line : detail::soak_lines(d.soak)) out += "  " + line + "\n";
  for (const auto& line : detail::speculation_lines(d.speculation)) out += "  " + line + "\n";

  // Held busy (a soak), each figure also after the hold.
  const bool steady = d.soak && !d.soak->samples.empty();
  std::vector<std::string> header{"SAFE PROFILE", "FAMILIAR", "API", "CONTEXT", "TOK/S"};
  if (steady) header.push_back("STEADY");
  header.push_back("PEAK");
  Table safe(header);
  for (const auto& p : d.profiles) {
    if (p.verdict != ProfileVerdict::safe) continue;
    std::vector<std::string> row{p.name, p.familiar_name, p.api, std::to_string(p.context),
                                 format_optional(p.figures.tok_s, 1)};
    if (steady) row.push_back(format_optional(p.figures.steady_tok_s, 1));
    row.push_back(peak_cell(p.figures));
    safe.add(row);
  }
  out += safe.empty() ? "  no safe configuration\n" : safe.aligned("  ");
  if (d.recommendation) {
    out += "  recommended: " + d.recommendation->profile + " (" + d.recommendation->why + ")\n";
  }
  if (!d.largest_safe_context.empty()) {
    out += "  largest safe context:";
    for (size_t i = 0; i < d.largest_safe_context.size(); ++i) {
      const auto& c = d.largest_safe_context[i];
      out += (i ? ", " : " ") + c.weight_format + " " +
             (c.context ? std::to_string(c.context) : std::string("none"));
    }
    out += "\n";
  }
  if (const auto rows = detail::pass_rows(d.profiles); !rows.empty()) {
    Table passes(rows.front());
    for (size_t i = 1; i < rows.size(); ++i) passes.add(rows[i]);
    out += "  passes (prompt and generation tokens per second)\n" + passes.aligned("    ");
  }
  for (const auto& line : detail::memory_pool_lines(d.memory_pool)) out += "  " + line + "\n";
  if (!d.fit.empty()) {
    const auto rows = detail::fit_rows(d.fit);
    Table fit(rows.front());
    for (size_t i = 1; i < rows.size(); ++i) fit.add(rows[i]);
    out += "  " + detail::fit_title(d.fit) + "\n" + fit.aligned("    ");
    for (const auto& line : detail::fit_companion_lines(d.fit)) out += "    " + line + "\n";
  }
  // One line per cause, never one per profile: how many it rules out, and their families.
  auto cause_lines = [](const std::vector<detail::CauseGroup>& groups) {
    std::string lines;
    for (const auto& g : groups) {
      lines +=
          "    " + std::to_string(g.profiles.size()) + " x " + g.text + " [" + g.families() + "]\n";
    }
    return lines;
  };
  const auto unsafe = detail::group_by_cause(d.profiles, ProfileVerdict::unsafe);
  size_t unsafe_count = 0;
  for (const auto& g : unsafe) unsafe_count += g.profiles.size();
  if (unsafe_count) {
    out += "  unsafe: " + std::to_string(unsafe_count) + " profiles, " +
           std::to_string(unsafe.size()) + " cause(s)\n" + cause_lines(unsafe);
  }
  const auto untested = detail::group_by_cause(d.profiles, ProfileVerdict::untested);
  int untested_count = 0;
  int derived = 0;
  for (const auto& p : d.profiles) {
    untested_count += p.verdict == ProfileVerdict::untested;
    derived += p.verdict == ProfileVerdict::derived;
  }
  if (untested_count || derived) {
    out += "  not run: " + std::to_string(untested_count) + " untested, " +
           std::to_string(derived) + " derived from the planner\n" + cause_lines(untested);
  }
  if (all) {
    Table every({"PROFILE", "VERDICT", "TOK/S", "REASON"});
    for (const auto& p : d.profiles) {
      every.add({p.name, to_string(p.verdict), format_optional(p.figures.tok_s, 1), p.reason});
    }
    out += "  every profile\n" + every.aligned("    ");
  }
  return out;
}

std::string problem_rows(const Report& r) {
  Table table({"ROW", "DEVICE", "STATUS", "REASON"});
  for (const auto* row : all_rows(r)) {
    switch (row->status) {
      case core::RowStatus::fail:
      case core::RowStatus::error:
      case core::RowStatus::timeout:
      case core::RowStatus::crash:
        table.add({row->id, row->device, core::to_string(row->status), row->reason});
        break;
      default:
        break;
    }
  }
  return table.empty() ? "" : "\nProblems\n" + table.aligned("  ");
}

}  // namespace

std::string render_text(const Report& r, const RenderOptions& options) {
  std::string out = header_line(r);
  if (r.model) {
    out += "model: " + r.model->name + " (" + r.model->shape + "), " + r.model->format + ", " +
           format_bytes(r.model->bytes) + "\n";
  }
  out += reference_line(r);
  for (const auto& d : r.devices) out += device_text(d, options.all);
  out += problem_rows(r);
  const auto& s = r.summary;
  out += "\nSummary: " + std::to_string(s.devices) + " device(s), " +
         std::to_string(s.profiles_safe) + " safe, " + std::to_string(s.profiles_unsafe) +
         " unsafe, " + std::to_string(s.profiles_untested) + " untested, " +
         std::to_string(s.profiles_derived) + " derived; rows:";
  for (const auto& [status, count] : s.rows_by_status) {
    if (count) out += " " + status + " " + std::to_string(count);
  }
  out += "; exit " + std::to_string(s.exit_code) + "\n";
  return out;
}

}  // namespace gauntlet::reports
