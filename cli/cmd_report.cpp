// gauntlet report show|diff|merge: reads report files, renders, compares and merges them.
#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "core/json.h"
#include "reports/diff.h"
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
  return emit(reports::render(*report, *format), a.out, "show");
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

int run_merge(const ReportArgs& a) {
  auto format = choose_format(a.format, a.out, reports::Format::text);
  if (!format || *format == reports::Format::html || *format == reports::Format::junit) {
    std::cerr << "gauntlet report merge: format '" << a.format
              << "' is not offered for merge (expected text, md or json)\n";
    return kExitUsage;
  }
  std::vector<reports::NamedReport> inputs;
  for (const auto& file : a.files) {
    auto report = reports::read_report(file);
    if (!report) return input_error("merge", report.error());
    inputs.push_back({file, std::move(*report)});
  }
  auto table = reports::merge_reports(inputs);
  std::string text;
  switch (*format) {
    case reports::Format::json:
      text = reports::merge_to_json(table).dump(2) + "\n";
      break;
    case reports::Format::markdown:
      text = reports::render_merge_markdown(table);
      break;
    default:
      text = reports::render_merge_text(table);
      break;
  }
  return emit(text, a.out, "merge");
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

  auto* merge = report->add_subcommand("merge", "One table of profile verdicts across machines");
  merge->add_option("files", args->files, "report.json files")->required()->expected(1, -1);
  merge->add_option("--format", args->format, "text (default), md or json");
  merge->add_option("-o,--out", args->out, "write here (atomically); .json or .md pick the format");
  merge->callback([args, &context] { context.exit_code = run_merge(*args); });
}

}  // namespace gauntlet::cli
