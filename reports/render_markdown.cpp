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
using detail::markdown_escape;
using detail::Table;

std::string device_markdown(const DeviceReport& d, bool all) {
  std::string out = "\n## " + markdown_escape(d.key) + ": " + markdown_escape(d.name) + "\n\n";
  if (d.simulation.simulated) {
    out += "**Simulated** (" + markdown_escape(d.simulation.preset) + "): limits are clamped.\n\n";
  }
  Table views({"API", "Device", "Usable", "Local memory", "Memory", "Largest allocation"});
  for (const auto& v : d.views) {
    views.add({v.api, v.info.id.to_string(), v.usable ? "yes" : "no: " + v.reason,
               std::to_string(v.info.local_mem_size), format_bytes(v.info.global_mem_size),
               format_bytes(v.info.max_mem_alloc_size)});
  }
  out += views.markdown() + "\n";
  out += "Verified local memory **" + std::to_string(d.verified.local_mem_verified_bytes) +
         " B**, workgroup " + std::to_string(d.verified.max_workgroup_verified) + ".\n\n";
  if (!d.verified.features.empty()) {
    Table features({"Feature", "Verdict", "Rows"});
    for (const auto& [name, result] : d.verified.features) {
      std::string rows;
      for (const auto& id : result.rows) rows += (rows.empty() ? "" : ", ") + id;
      features.add({name, to_string(result.verdict), rows});
    }
    out += features.markdown() + "\n";
  }
  if (d.stress) {
    const auto& s = *d.stress;
    out += "Memory: safe budget **" + format_bytes(s.safe_budget_bytes) + "** (margin " +
           format_bytes(s.margin_bytes) + "), largest verified allocation " +
           format_bytes(s.max_single_alloc_verified_bytes) + ", copy " +
           format_number(s.copy_bandwidth_gbps) + " GB/s, host memcpy " +
           format_number(s.host_memcpy_gbps) + " GB/s.\n\n";
    Table curve({"Step", "Bytes", "Fraction", "Verified", "GB/s", "Status"});
    for (const auto& p : s.curve) {
      curve.add(
          {std::to_string(p.step), format_bytes(p.bytes), format_number(p.fraction),
           p.verified ? "yes" : "no", format_number(p.bandwidth_gbps),
           std::string(core::to_string(p.status)) + (p.reason.empty() ? "" : ": " + p.reason)});
    }
    out += curve.markdown() + "\n";
  }
  if (d.compute_peak) {
    out += "Compute peak: " + markdown_escape(core::describe(*d.compute_peak)) +
           (d.stress ? ", copy " + format_number(d.stress->copy_bandwidth_gbps) + " GB/s" : "") +
           " (" + markdown_escape(d.compute_peak->method) + ").\n\n";
  }
  Table safe({"Safe profile", "Familiar", "tok/s", "Peak", "Local memory"});
  for (const auto& p : d.profiles) {
    if (p.verdict != ProfileVerdict::safe) continue;
    safe.add({p.name, p.familiar_name, format_optional(p.figures.tok_s, 1),
              p.figures.peak_bytes ? format_bytes(*p.figures.peak_bytes) : "-",
              std::to_string(p.variant.local_mem_bytes)});
  }
  out += safe.empty() ? "No safe configuration.\n\n" : safe.markdown() + "\n";
  if (!d.largest_safe_context.empty()) {
    Table contexts({"Format", "Largest safe context"});
    for (const auto& c : d.largest_safe_context) {
      contexts.add({c.weight_format, c.context ? std::to_string(c.context) : "none"});
    }
    out += contexts.markdown() + "\n";
  }
  if (d.recommendation) {
    out += "Recommended: `" + d.recommendation->profile +
           "`: " + markdown_escape(d.recommendation->why) + "\n";
  }
  if (const auto rows = detail::pass_rows(d.profiles); !rows.empty()) {
    Table passes(rows.front());
    for (size_t i = 1; i < rows.size(); ++i) passes.add(rows[i]);
    out += "\nPasses (prompt and generation tokens per second):\n\n" + passes.markdown() + "\n";
  }
  for (const auto& line : detail::memory_pool_lines(d.memory_pool)) {
    out.append("\n").append(markdown_escape(line)).append("\n");
  }
  for (const auto& line : detail::telemetry_lines(d)) {
    out.append("\n").append(markdown_escape(line)).append("\n");
  }
  for (const auto& line : detail::soak_lines(d.soak)) {
    out.append("\n").append(markdown_escape(line)).append("\n");
  }
  for (const auto& line : detail::speculation_lines(d.speculation)) {
    out.append("\n").append(markdown_escape(line)).append("\n");
  }
  if (!d.fit.empty()) {
    const auto rows = detail::fit_rows(d.fit);
    Table fit(rows.front());
    for (size_t i = 1; i < rows.size(); ++i) fit.add(rows[i]);
    out.append("\n").append(markdown_escape(detail::fit_title(d.fit))).append(":\n\n");
    out.append(fit.markdown()).append("\n");
    for (const auto& line : detail::fit_companion_lines(d.fit)) {
      out.append("\n").append(markdown_escape(line)).append("\n");
    }
  }
  for (const auto verdict : {ProfileVerdict::unsafe, ProfileVerdict::untested}) {
    const auto groups = detail::group_by_cause(d.profiles, verdict);
    if (groups.empty()) continue;
    Table causes({"Profiles", "Cause", "Families"});
    for (const auto& g : groups) {
      causes.add({std::to_string(g.profiles.size()), g.text, g.families()});
    }
    out += std::string("\n") +
           (verdict == ProfileVerdict::unsafe ? "Unsafe profiles by cause"
                                              : "Profiles not run, by cause") +
           ":\n\n" + causes.markdown();
  }
  if (all && !d.profiles.empty()) {
    Table profiles({"Profile", "Familiar", "Verdict", "Reason", "tok/s", "Peak", "Local memory"});
    for (const auto& p : d.profiles) {
      profiles.add({p.name, p.familiar_name, to_string(p.verdict), p.reason,
                    format_optional(p.figures.tok_s, 1),
                    p.figures.peak_bytes ? format_bytes(*p.figures.peak_bytes) : "-",
                    std::to_string(p.variant.local_mem_bytes)});
    }
    out += "\nEvery profile:\n\n" + profiles.markdown();
  }
  return out;
}

}  // namespace

std::string render_markdown(const Report& r, const RenderOptions& options) {
  std::string out = "# gauntlet report: " + markdown_escape(r.host.hostname) + "\n\n";
  out += markdown_escape(r.tool.name + " " + r.tool.version + " (" + r.tool.git_revision + ")") +
         ", level " + r.level + ", " + r.started + " to " + r.finished +
         (r.complete ? "" : ", **incomplete (interrupted)**") + ".\n\n";
  const auto& s = r.summary;
  out += "**" + std::to_string(s.profiles_safe) + " safe**, " + std::to_string(s.profiles_unsafe) +
         " unsafe, " + std::to_string(s.profiles_untested) + " untested, " +
         std::to_string(s.profiles_derived) + " derived profiles on " + std::to_string(s.devices) +
         " device(s); exit code " + std::to_string(s.exit_code) + ".\n";
  for (const auto& d : r.devices) out += device_markdown(d, options.all);
  Table problems({"Row", "Device", "Status", "Reason"});
  for (const auto* row : all_rows(r)) {
    if (row->status != core::RowStatus::pass) {
      problems.add({row->id, row->device, core::to_string(row->status), row->reason});
    }
  }
  if (!problems.empty()) out += "\n## Rows that did not pass\n\n" + problems.markdown();
  return out;
}

}  // namespace gauntlet::reports
