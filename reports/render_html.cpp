#include <algorithm>
#include <map>

#include "reports/causes.h"
#include "reports/fit_rows.h"
#include "reports/pass_rows.h"
#include "reports/render.h"
#include "reports/soak_lines.h"
#include "reports/speculation_lines.h"
#include "reports/svg_charts.h"
#include "reports/text_util.h"

namespace gauntlet::reports {

namespace {

using detail::format_bytes;
using detail::format_number;
using detail::format_optional;
using detail::xml_escape;

// What the report page adds to the shared page style.
constexpr const char* kStyle = R"CSS(
.incomplete{color:#b42318;font-weight:bold}
.safe,.verified,.pass{color:#116329;font-weight:600}
.unsafe,.failed,.fail,.error,.crash,.timeout{color:#b42318;font-weight:600}
.untested,.derived,.not_tested,.skipped,.unsupported,.emulated{color:#7d4e00}
.badge{display:inline-block;padding:1px 8px;border-radius:10px;background:#fff1cc;color:#7d4e00;font-size:0.85em}
.cards{display:flex;gap:12px;flex-wrap:wrap}.card{background:#fff;border:1px solid #d0d7de;border-radius:6px;padding:8px 14px}
.card b{font-size:1.4em;display:block}
details.cause{margin:4px 0}details.cause summary{cursor:pointer}
details.cause ul{columns:2;font-size:0.85em;margin:4px 0}.families{color:#57606a;margin:2px 0 2px 16px}
svg.chart{background:#fff;border:1px solid #d0d7de;border-radius:6px;margin:6px 0;display:block}
svg .title{font-weight:600;font-size:13px}svg .label{font-size:11px;fill:#1d2733}
svg .axis{stroke:#57606a;stroke-width:1}svg .grid{stroke:#eaeef2;stroke-width:1}
svg .curve{fill:none;stroke:#0969da;stroke-width:2}
svg .point.verified{fill:#1a7f37}svg .point.unverified{fill:#cf222e}
svg .budget{stroke:#8250df;stroke-width:2;stroke-dasharray:6 4}
svg .bar{fill:#0969da}svg .bar.over{fill:#cf222e}
svg .limit{stroke:#cf222e;stroke-width:2;stroke-dasharray:5 3}svg .limit-label{fill:#cf222e}
)CSS";

std::string cell(const std::string& text, const std::string& cls = {}) {
  return detail::html_cell(text, cls);
}

std::string header_row(std::initializer_list<const char*> names) {
  std::string out = "<tr>";
  for (const char* n : names) out += std::string("<th>") + n + "</th>";
  return out + "</tr>";
}

// A heading and a table of rows of text, the first row the header.
std::string titled_table(const std::string& title,
                         const std::vector<std::vector<std::string>>& rows) {
  std::string out = "<h3>" + xml_escape(title) + "</h3><table><tr>";
  for (const auto& name : rows.front()) out += "<th>" + xml_escape(name) + "</th>";
  out += "</tr>";
  for (size_t i = 1; i < rows.size(); ++i) {
    out += "<tr>";
    for (const auto& c : rows[i]) out += cell(c);
    out += "</tr>";
  }
  return out + "</table>";
}

// One figure per profile in a cause's list: what the cause compares.
std::string cause_figure(const Profile& p, const std::string& key) {
  if (key == "local_memory") return std::to_string(p.variant.local_mem_bytes) + " B";
  if (p.figures.planned_peak_bytes && (key == "memory_budget" || key == "budget_unverified")) {
    return format_bytes(*p.figures.planned_peak_bytes);
  }
  return "";
}

// The unsafe, untested and derived profiles, grouped by cause: a <details> per cause whose summary
// says how many profiles it rules out and which families, and which opens to their names.
std::string cause_sections(const std::vector<Profile>& profiles) {
  std::string out;
  for (const auto verdict :
       {ProfileVerdict::unsafe, ProfileVerdict::untested, ProfileVerdict::derived}) {
    const auto groups = detail::group_by_cause(profiles, verdict);
    if (groups.empty()) continue;
    out += std::string("<h3>") +
           (verdict == ProfileVerdict::unsafe     ? "Unsafe profiles by cause"
            : verdict == ProfileVerdict::untested ? "Profiles not run, by cause"
                                                  : "Derived from the planner") +
           "</h3>";
    for (const auto& g : groups) {
      out += "<details class=\"cause\" data-cause=\"" + xml_escape(g.cause.key) +
             "\"><summary><b>" + std::to_string(g.profiles.size()) + "</b> " + xml_escape(g.text) +
             "</summary><p class=\"families\">" + xml_escape(g.families()) + "</p><ul>";
      // Run failures are few and each has its own reason; the others share the summary's.
      const bool own_reason = g.cause.key == "mismatch" || g.cause.key == "error" ||
                              g.cause.key == "crash" || g.cause.key == "timeout";
      for (const auto* p : g.profiles) {
        std::string tail = own_reason ? p->reason : cause_figure(*p, g.cause.key);
        out += "<li>" + xml_escape(p->name + (tail.empty() ? "" : ": " + tail)) + "</li>";
      }
      out += "</ul></details>";
    }
  }
  return out;
}

std::string device_html(const DeviceReport& d) {
  std::string out = "<section class=\"device\"><h2>" + xml_escape(d.key + ": " + d.name) + "</h2>";
  if (d.simulation.simulated) {
    out += "<p><span class=\"badge\">simulated</span> " + xml_escape(d.simulation.preset) + "</p>";
  }
  out += "<table>" +
         header_row({"API", "Device", "Usable", "Local memory", "Memory", "Largest allocation"});
  for (const auto& v : d.views) {
    out += "<tr>" + cell(v.api) + cell(v.info.id.to_string()) +
           cell(v.usable ? "yes" : "no: " + v.reason, v.usable ? "pass" : "fail") +
           cell(std::to_string(v.info.local_mem_size)) +
           cell(format_bytes(v.info.global_mem_size)) +
           cell(format_bytes(v.info.max_mem_alloc_size)) + "</tr>";
  }
  out += "</table>";
  out += "<div class=\"cards\"><div class=\"card\">verified local memory<b>" +
         std::to_string(d.verified.local_mem_verified_bytes) + " B</b></div>";
  out += "<div class=\"card\">verified workgroup<b>" +
         std::to_string(d.verified.max_workgroup_verified) + "</b></div>";
  if (d.stress) {
    out += "<div class=\"card\">safe budget<b>" + format_bytes(d.stress->safe_budget_bytes) +
           "</b></div><div class=\"card\">copy / host memcpy<b>" +
           format_number(d.stress->copy_bandwidth_gbps) + " / " +
           format_number(d.stress->host_memcpy_gbps) + " GB/s</b></div>";
  }
  if (d.compute_peak) {
    const auto& peak = *d.compute_peak;
    out += "<div class=\"card\" title=\"" + xml_escape(peak.method) + "\">compute peak f32<b>" +
           (peak.f32_gflops ? format_number(*peak.f32_gflops, 1) + " GFLOP/s"
                            : xml_escape(peak.f32_reason)) +
           "</b>" + xml_escape(core::describe(peak)) + "</div>";
  }
  if (d.recommendation) {
    out += "<div class=\"card\">recommended<b>" + xml_escape(d.recommendation->profile) + "</b>" +
           xml_escape(d.recommendation->why) + "</div>";
  }
  out += "</div>";
  if (!d.verified.features.empty()) {
    out += "<h3>Verified capabilities</h3><table>" + header_row({"Feature", "Verdict", "Rows"});
    for (const auto& [name, result] : d.verified.features) {
      std::string rows;
      for (const auto& id : result.rows) rows += (rows.empty() ? "" : ", ") + id;
      out += "<tr>" + cell(name) + cell(to_string(result.verdict), to_string(result.verdict)) +
             cell(rows) + "</tr>";
    }
    out += "</table>";
  }
  if (d.stress) out += "<h3>Memory stress</h3>" + detail::stress_chart_svg(*d.stress);

  std::vector<detail::Bar> tok;
  std::vector<detail::Bar> pp;
  // Local memory: one bar per kernel variant (its largest need over the profiles that use it),
  // not one per profile.
  std::vector<detail::Bar> mem;
  std::map<std::string, std::pair<size_t, int>> variant_bar;  // name -> bar index, profiles
  for (const auto& p : d.profiles) {
    if (p.figures.tok_s) {
      tok.push_back({detail::tg_label(p.figures) + " " + p.name, *p.figures.tok_s, false});
    }
    if (p.figures.pp_tok_s) {
      pp.push_back({detail::pp_label(p.figures) + " " + p.name, *p.figures.pp_tok_s, false});
    }
    const auto need = static_cast<double>(p.variant.local_mem_bytes);
    auto [it, fresh] = variant_bar.try_emplace(p.variant.name, mem.size(), 0);
    if (fresh) mem.push_back({p.variant.name, need, false});
    ++it->second.second;
    auto& bar = mem[it->second.first];
    bar.value = std::max(bar.value, need);
    bar.over = d.verified.local_mem_verified_bytes > 0 &&
               bar.value > static_cast<double>(d.verified.local_mem_verified_bytes);
  }
  for (const auto& [name, at] : variant_bar) {
    mem[at.first].label += " (" + std::to_string(at.second) + " profiles)";
  }
  if (!tok.empty()) {
    out += "<h3>Decode speed</h3>" + detail::bar_chart_svg("generated tok/s per profile (tg)",
                                                           "tok", tok, "tok/s", std::nullopt, "");
  }
  if (!pp.empty()) {
    out +=
        "<h3>Prompt processing</h3>" +
        detail::bar_chart_svg("prompt tok/s per profile (pp)", "pp", pp, "tok/s", std::nullopt, "");
  }
  if (!mem.empty()) {
    std::optional<double> limit;
    if (d.verified.local_mem_verified_bytes > 0) {
      limit = static_cast<double>(d.verified.local_mem_verified_bytes);
    }
    out += "<h3>Local memory per kernel variant</h3>" +
           detail::bar_chart_svg("largest local memory need (bytes) against the verified limit",
                                 "mem", mem, "B", limit,
                                 "verified " + std::to_string(d.verified.local_mem_verified_bytes));
  }
  bool any_safe = false;
  for (const auto& p : d.profiles) any_safe = any_safe || p.verdict == ProfileVerdict::safe;
  if (any_safe) {
    out += "<h3>Safe profiles</h3><table>" +
           header_row({"Profile", "Familiar", "Reason", "tok/s", "Peak", "Planned peak",
                       "Logits NMSE", "Local memory"});
    for (const auto& p : d.profiles) {
      if (p.verdict != ProfileVerdict::safe) continue;
      const auto& f = p.figures;
      out += "<tr>" + cell(p.name) + cell(p.familiar_name) + cell(p.reason) +
             cell(format_optional(f.tok_s, 1)) +
             cell(f.peak_bytes ? format_bytes(*f.peak_bytes) : "-") +
             cell(f.planned_peak_bytes ? format_bytes(*f.planned_peak_bytes) : "-") +
             cell(format_optional(f.logits_nmse, 3)) +
             cell(std::to_string(p.variant.local_mem_bytes)) + "</tr>";
    }
    out += "</table>";
  }
  out += cause_sections(d.profiles);
  if (!d.largest_safe_context.empty()) {
    out += "<h3>Largest safe context</h3><table>" + header_row({"Format", "Context", "Profile"});
    for (const auto& c : d.largest_safe_context) {
      out += "<tr>" + cell(c.weight_format) +
             cell(c.context ? std::to_string(c.context) : "none", c.context ? "safe" : "unsafe") +
             cell(c.profile) + "</tr>";
    }
    out += "</table>";
  }
  if (const auto rows = detail::pass_rows(d.profiles); !rows.empty()) {
    out += titled_table("Passes (prompt and generation tokens per second)", rows);
  }
  for (const auto& line : detail::memory_pool_lines(d.memory_pool)) {
    out += "<p>" + xml_escape(line) + "</p>";
  }
  for (const auto& line : detail::soak_lines(d.soak)) out += "<p>" + xml_escape(line) + "</p>";
  for (const auto& line : detail::speculation_lines(d.speculation)) {
    out += "<p>" + xml_escape(line) + "</p>";
  }
  if (const auto chart = detail::signals_chart_svg(d); !chart.empty()) {
    out += "<h3>Signals over the run</h3>" + chart;
  }
  if (!d.fit.empty()) out += titled_table(detail::fit_title(d.fit), detail::fit_rows(d.fit));
  for (const auto& line : detail::fit_companion_lines(d.fit)) {
    out += "<p>" + xml_escape(line) + "</p>";
  }
  return out + "</section>";
}

}  // namespace

std::string render_html(const Report& r) {
  std::string out =
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"/>"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>"
      "<title>gauntlet report: " +
      xml_escape(r.host.hostname) + "</title><style>" + detail::kHtmlPageStyle + kStyle +
      "</style></head><body>";
  out += "<h1>gauntlet report: " + xml_escape(r.host.hostname) + "</h1>";
  out += "<p class=\"meta\">" +
         xml_escape(r.tool.name + " " + r.tool.version + " (" + r.tool.git_revision + "), level " +
                    r.level + ", " + r.started + " to " + r.finished + "; " + r.host.os + ", " +
                    r.host.cpu + ", " + format_bytes(r.host.memory_bytes)) +
         "</p>";
  if (!r.complete) out += "<p class=\"incomplete\">Incomplete: the run was interrupted.</p>";
  const auto& s = r.summary;
  out += "<div class=\"cards\"><div class=\"card\">devices<b>" + std::to_string(s.devices) +
         "</b></div><div class=\"card safe\">safe<b>" + std::to_string(s.profiles_safe) +
         "</b></div><div class=\"card unsafe\">unsafe<b>" + std::to_string(s.profiles_unsafe) +
         "</b></div><div class=\"card\">untested / derived<b>" +
         std::to_string(s.profiles_untested) + " / " + std::to_string(s.profiles_derived) +
         "</b></div><div class=\"card\">exit code<b>" + std::to_string(s.exit_code) +
         "</b></div></div>";
  if (r.model) {
    out += "<p>Model: " +
           xml_escape(r.model->name + " (" + r.model->shape + "), " + r.model->format + ", " +
                      format_bytes(r.model->bytes)) +
           "</p>";
  }
  for (const auto& d : r.devices) out += device_html(d);

  out +=
      "<h2>Rows that did not pass</h2><table>" + header_row({"Row", "Device", "Status", "Reason"});
  for (const auto* row : all_rows(r)) {
    if (row->status == core::RowStatus::pass) continue;
    const char* status = core::to_string(row->status);
    out += "<tr>" + cell(row->id) + cell(row->device) + cell(status, status) + cell(row->reason) +
           "</tr>";
  }
  out += "</table>";
  if (!r.options.empty()) {
    out += "<h2>Settings</h2><table>" + header_row({"Setting", "Value", "Source"});
    for (const auto& [name, value] : r.options) {
      out += "<tr>" + cell(name) + cell(value.value) + cell(value.source) + "</tr>";
    }
    out += "</table>";
  }
  return out + "</body></html>\n";
}

}  // namespace gauntlet::reports
