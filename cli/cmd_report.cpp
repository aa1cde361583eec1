// gauntlet report show|diff|merge: reads report files, renders, compares and merges them.
#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "core/json.h"
#include "reports/diff.h"
#include "reports/fleet.h"
#include "reports/io.h"
#include "reports/merge.h"
#include "reports/render.h"

namespace gauntlet::cli {

namespace {

struct ReportArgs {
  std::string file;
  std::string old_file;
  std::string new_file;
  std::vector<std::string> files;
  std::string format;
  std::string out;
  double threshold = 0.1;
  bool json = false;
  bool table = false;
  bool fail_on_outlier = false;
  bool all = false;
};

// The format named by --format, or else the one the output file's extension suggests.
std::optional<reports::Format> choose_format(const std::string& format, const std::string& out,
                                             reports::Format fallback) {
  if (!format.empty()) return reports::parse_format(format);
  const auto ext = std::filesystem::path(out).extension().string();
  if (ext == ".json") return reports::Format::json;
  if (ext == ".md") return reports::Format::markdown;
  if (ext == ".html" || ext == ".htm") return reports::Format::html;
  if (ext == ".xml") return reports::Format::junit;
  return fallback;
}

// Prints to stdout, or writes `out` atomically. Returns an exit code.
int emit(const std::string& text, const std::string& out, const char* command) {
  if (out.empty() || out == "-") {
    std::cout << text;
    return kExitOk;
  }
  auto status = core::write_file_atomically(out, text);
  if (!status) {
    std::cerr << "gauntlet report " << command << ": " << status.describe() << "\n";
    return kExitUsage;
  }
  return kExitOk;
}

int input_error(const char* command, const core::Error& error) {
  std::cerr << "gauntlet report " << command << ": " << error.describe() << "\n";
  return kExitUsage;
}

int run_show(const ReportArgs& a) {
  auto format = choose_format(a.format, a.out, reports::Format::text);
  if (!format) {
    std::cerr << "gauntlet report show: unknown format '" << a.format
              << "' (expected text, md, html, junit or json)\n";
    return kExitUsage;
  }
  auto report = reports::read_report(a.file);
  if (!report) return input_error("show", report.error());
  reports::RenderOptions options;
  options.all = a.all;
  return emit(reports::render(*report, *format, options), a.out, "show");
}

int run_diff(const ReportArgs& a) {
  if (a.threshold < 0.0 || a.threshold >= 1.0) {
    std::cerr << "gauntlet report diff: --threshold must be a fraction in [0, 1), got "
              << a.threshold << "\n";
    return kExitUsage;
  }
  auto before = reports::read_report(a.old_file);
  if (!before) return input_error("diff", before.error());
  auto after = reports::read_report(a.new_file);
  if (!after) return input_error("diff", after.error());
  auto diff = reports::diff_reports(*before, *after, a.threshold);
  const std::string text =
      a.json ? reports::diff_to_json(diff).dump(2) + "\n" : reports::render_diff_text(diff);
  int code = emit(text, a.out, "diff");
  if (code != kExitOk) return code;
  return diff.regressions.empty() ? kExitOk : kExitFailures;
}

// The per-profile table of every machine (`--table`): one row per profile, a column per device.
int run_merge_table(const ReportArgs& a, reports::Format format) {
  std::vector<reports::NamedReport> inputs;
  for (const auto& file : a.files) {
    auto report = reports::read_report(file);
    if (!report) return input_error("merge", report.error());
    inputs.push_back({file, std::move(*report)});
  }
  auto table = reports::merge_reports(inputs);
  switch (format) {
    case reports::Format::json:
      return emit(reports::merge_to_json(table).dump(2) + "\n", a.out, "merge");
    case reports::Format::markdown:
      return emit(reports::render_merge_markdown(table), a.out, "merge");
    default:
      return emit(reports::render_merge_text(table), a.out, "merge");
  }
}

std::string render_fleet(const reports::FleetReport& fleet, reports::Format format) {
  switch (format) {
    case reports::Format::json:
      return reports::fleet_to_json(fleet).dump(2) + "\n";
    case reports::Format::markdown:
      return reports::render_fleet_markdown(fleet);
    case reports::Format::html:
      return reports::render_fleet_html(fleet);
    default:
      return reports::render_fleet_text(fleet);
  }
}

int run_merge(const ReportArgs& a) {
  auto format = choose_format(a.format, a.out, reports::Format::text);
  if (!format || *format == reports::Format::junit ||
      (a.table && *format == reports::Format::html)) {
    std::cerr << "gauntlet report merge: format '" << a.format
              << "' is not offered for merge (expected text, md, json or html; html is not "
                 "offered with --table)\n";
    return kExitUsage;
  }
  if (a.threshold < 0.0 || a.threshold >= 1.0) {
    std::cerr << "gauntlet report merge: --threshold must be a fraction in [0, 1), got "
              << a.threshold << "\n";
    return kExitUsage;
  }
  if (a.table) return run_merge_table(a, *format);
  const auto fleet = reports::merge_report_files(a.files, a.threshold);
  for (const auto& s : fleet.skipped) {
    std::cerr << "gauntlet report merge: skipped " << s.source << ": " << s.reason << "\n";
  }
  int code = emit(render_fleet(fleet, *format), a.out, "merge");
  if (code != kExitOk) return code;
  if (!fleet.skipped.empty()) return kExitFailures;
  return a.fail_on_outlier && fleet.outlier_count() > 0 ? kExitFailures : kExitOk;
}

}  // namespace

void add_report_command(CLI::App& app, CommandContext& context) {
  auto args = std::make_shared<ReportArgs>();
  auto* report = app.add_subcommand("report", "Render, compare or merge report files");
  report->require_subcommand(1);

  auto* show = report->add_subcommand("show", "Render a report: text, md, html or junit");
  show->add_option("file", args->file, "report.json")->required();
  show->add_option("--format", args->format, "text (default), md, html, junit or json");
  show->add_option("-o,--out", args->out, "write here (atomically) instead of stdout");
  show->add_flag("--all", args->all,
                 "text and md: list every profile with its verdict and reason, beside the "
                 "causes (JSON, HTML and JUnit always hold every profile)");
  show->callback([args, &context] { context.exit_code = run_show(*args); });

  auto* diff = report->add_subcommand(
      "diff", "Regressions from OLD to NEW; exit 1 when there is one, 2 on a broken file");
  diff->add_option("old", args->old_file, "the earlier report.json")->required();
  diff->add_option("new", args->new_file, "the later report.json")->required();
  diff->add_option("--threshold", args->threshold,
                   "a figure (budget, tok/s) that falls by more than this fraction regresses")
      ->default_val(0.1);
  diff->add_flag("--json", args->json, "print the changes as JSON");
  diff->add_option("-o,--out", args->out, "write here (atomically) instead of stdout");
  diff->callback([args, &context] { context.exit_code = run_diff(*args); });

  auto* merge = report->add_subcommand(
      "merge",
      "The fleet report: devices grouped by model, driver and memory, with the machines that "
      "differ from their group; exit 1 when a file was skipped (or, with --fail-on-outlier, when "
      "there is an outlier)");
  merge->add_option("files", args->files, "report.json files")->required()->expected(1, -1);
  merge->add_option("--format", args->format, "text (default), md, json or html");
  merge->add_option("-o,--out", args->out,
                    "write here (atomically); .json, .md or .html pick the format");
  merge
      ->add_option("--threshold", args->threshold,
                   "a budget or tok/s below its group's median by more than this fraction makes "
                   "an outlier")
      ->default_val(0.1);
  merge->add_flag("--fail-on-outlier", args->fail_on_outlier,
                  "exit 1 when a machine is an outlier");
  merge->add_flag("--table", args->table,
                  "instead: one row per profile, a column per machine and device (text, md, json)");
  merge->callback([args, &context] { context.exit_code = run_merge(*args); });
}

}  // namespace gauntlet::cli
