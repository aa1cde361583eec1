#include <chrono>
#include <cmath>
#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "harness/health.h"
#include "harness/health_state.h"
#include "reports/health.h"
#include "reports/health_formats.h"
#include "reports/report.h"

namespace gauntlet::cli {

namespace {

struct HealthFlags {
  double deadline_s = 40;
  std::string baseline;
  std::string format = "text";
  std::string fail_on = "critical";
  std::string out;
  std::string dra_driver = "gpu.example.com";
};

std::string render(const reports::HealthReport& report, const HealthFlags& flags) {
  if (flags.format == "line") return "";
  if (flags.format == "json") return reports::health_to_json(report).dump(2) + "\n";
  if (flags.format == "prometheus") {
    const double now =
        std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
    return reports::render_health_prometheus(report, std::floor(now));
  }
  if (flags.format == "node-condition") {
    return reports::health_node_condition(report, reports::now_iso8601()).dump(2) + "\n";
  }
  if (flags.format == "device-taint") {
    return reports::health_device_taints(report, flags.dra_driver).dump(2) + "\n";
  }
  return reports::render_health_text(report);
}

}  // namespace

void add_health_command(CLI::App& app, CommandContext& context) {
  auto* command = app.add_subcommand(
      "health",
      "The node gate, well under 60 s: identity against the last full run's report (the "
      "baseline), the machine's signals since the last health run, and per device a probe, the "
      "dtype rows the baseline's safe profiles rely on, a sentinel memory write/verify and a "
      "short decode against the host reference. The first line of stdout is a one-line reason "
      "fit for a drain. Exit 0 pass or warning, 1 critical, 2 could not run");
  add_device_flags(*command, context);
  auto flags = std::make_shared<HealthFlags>();
  command
      ->add_option("--deadline", flags->deadline_s,
                   "seconds the whole check may take (default 40); each check asks it before it "
                   "starts, and what it cuts is reported \"not run: deadline\"")
      ->check(CLI::Range(1.0, 3600.0));
  command->add_option("--baseline", flags->baseline,
                      "the report to compare with (default: $GAUNTLET_STATE_DIR/baseline.json, "
                      "else /var/lib/gauntlet/baseline.json for root, else "
                      "$XDG_STATE_HOME/gauntlet/baseline.json; a complete `gauntlet run` writes "
                      "it there), or a fleet report (`report merge --format json`), whose entry "
                      "for this node names the report to read");
  command
      ->add_option("--format", flags->format,
                   "text (default), line (the reason line alone, e.g. for node-problem-detector), "
                   "json (reports/schema/health.schema.json), prometheus "
                   "(node_exporter's textfile format), node-condition (a Kubernetes "
                   "NodeCondition), device-taint (a DeviceTaintRule per failing device); the "
                   "reason line comes first on stdout (in prometheus as a comment)")
      ->check(
          CLI::IsMember({"text", "line", "json", "prometheus", "node-condition", "device-taint"}));
  command
      ->add_option("--fail-on", flags->fail_on,
                   "critical (default): exit 1 on a critical finding only; warning: a warning "
                   "(e.g. re-validate) exits 1 too")
      ->check(CLI::IsMember({"critical", "warning"}));
  command->add_option("--out", flags->out,
                      "write the --format output to this file (atomically) instead of stdout; "
                      "stdout keeps the reason line");
  command->add_option("--dra-driver", flags->dra_driver,
                      "device-taint: the DRA driver whose devices the rules select (default "
                      "gpu.example.com)");
  command->callback([&context, flags] {
    harness::HealthConfig config;
    config.options = context.options;
    config.deadline = std::chrono::milliseconds(static_cast<long long>(flags->deadline_s * 1000.0));
    config.baseline = flags->baseline;
    const auto report = harness::run_health(config);
    const std::string text = render(report, *flags);
    // Prometheus' text format holds the reason line as its first comment, so that stdout parses.
    if (flags->format != "prometheus" || !flags->out.empty()) {
      std::cout << reports::health_first_line(report) << "\n";
    }
    if (flags->out.empty()) {
      // The text rendering starts with the reason line itself.
      const size_t first = text.find('\n');
      std::cout << (flags->format == "text" && first != std::string::npos ? text.substr(first + 1)
                                                                          : text);
    } else if (auto written = harness::write_file_atomically(flags->out, text); !written) {
      std::cerr << "gauntlet health: " << written.error().message << "\n";
      context.exit_code = kExitUsage;
      return;
    }
    context.exit_code = reports::health_exit_code(report, flags->fail_on == "warning");
  });
}

}  // namespace gauntlet::cli
