#include <algorithm>
#include <iostream>
#include <string>
#include <vector>

#include "backends/host/host_device.h"
#include "cli/commands.h"
#include "cli/data_files.h"
#include "cli/huge_pages.h"
#include "cli/placement_flags.h"

int main(int argc, char** argv) {
  using namespace gauntlet;
  cli::restart_with_huge_pages(argv);
  CLI::App app{
      "gauntlet: what can this GPU really do, and which LLM decode configurations are safe on it?\n"
      "Exit codes: 0 all required checks passed, 1 failures found, 2 usage or input error,\n"
      "3 no usable device, 130 run interrupted (an incomplete report was written);\n"
      "health: 0 pass or warning, 1 critical, 2 could not run.",
      "gauntlet"};
  app.set_version_flag("--version", [] {
    auto text = cli::version_text();
    text.pop_back();  // CLI11 ends the line itself
    return text;
  });
  app.require_subcommand(1);

  auto options = core::Options::from_environment();
  if (!options) {
    std::cerr << "gauntlet: " << options.error().describe() << "\n";
    return cli::kExitUsage;
  }
  if (!options->cpu_target.empty()) {
    if (auto capped = backends::host::cap_simd_target(options->cpu_target); !capped) {
      std::cerr << "gauntlet: " << capped.error().describe() << "\n";
      return cli::kExitUsage;
    }
  }
  cli::CommandContext context{*options};
  cli::add_list_command(app, context);
  cli::add_probe_command(app, context);
  cli::add_doctor_command(app, context);
  cli::add_run_command(app, context);
  cli::add_report_command(app, context);
  cli::add_conform_command(app, context);
  cli::add_model_command(app, context);
  cli::add_decode_command(app, context);
  cli::add_bench_command(app, context);
  cli::add_stress_command(app, context);
  cli::add_health_command(app, context);

  // llama.cpp's single-dash flags (-ngl, -ts, -ub, -ot) in their long spellings; CLI11 takes the
  // arguments last first.
  std::vector<std::string> args(argv + 1, argv + argc);
  cli::spell_llama_flags(args);
  std::reverse(args.begin(), args.end());
  try {
    app.parse(args);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? cli::kExitOk : cli::kExitUsage;
  }
  return context.exit_code;
}
