#pragma once
// Each subcommand registers itself on the app; its callback does the work through harness/,
// probes/ or reports/ and leaves the process exit code in the context.
#include <CLI/CLI.hpp>
#include <iostream>
#include <optional>
#include <string>

#include "core/options.h"
#include "probes/inventory.h"
#include "probes/select.h"

namespace gauntlet::cli {

// Exit codes, the same for every subcommand (see --help and the README).
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailures = 1;
inline constexpr int kExitUsage = 2;
inline constexpr int kExitNoDevice = 3;
inline constexpr int kExitInterrupted = 130;  // SIGINT/SIGTERM: an incomplete report was written

// The exit code for a device that could not be opened: 2 when it is not there (the error names
// the devices that are), 1 when it is there and failed.
inline int exit_code_for_open(const core::Error& error) {
  return error.kind == core::ErrorKind::not_found ? kExitUsage : kExitFailures;
}

struct CommandContext {
  core::Options options;
  int exit_code = kExitOk;
};

// Adds --device and --fallback, bound to the context's options.
void add_device_flags(CLI::App& command, CommandContext& context);
// Adds --level (quick, standard, full), bound to the context's options.
void add_level_flag(CLI::App& command, CommandContext& context);

struct SelectedDevices {
  probes::Inventory inventory;
  probes::Selection selection;
};

// Enumerates every API and selects the devices the options name. When that fails, prints
// "gauntlet <command>: <why>" with the devices that exist, sets the exit code (2 for a device
// that is not there, 3 when none is usable) and returns nothing.
std::optional<SelectedDevices> select_for_command(const std::string& command,
                                                  CommandContext& context);

// Measures each selected device in turn and prints each result, or all of them as one JSON
// array; the exit code is 1 when any result holds a failed, errored, crashed or timed-out row.
template <typename Result, typename Measure, typename Print>
void measure_each_device(const SelectedDevices& selected, bool json, CommandContext& context,
                         Measure measure, Print print) {
  core::Json out = core::Json::array();
  bool all_ok = true;
  for (const auto& id : selected.selection.devices) {
    const core::DeviceInfo* info = selected.inventory.find(id);
    if (info == nullptr) continue;
    Result result = measure(*info);
    all_ok = all_ok && core::all_passed(result.rows);
    if (json) {
      out.push_back(result);
    } else {
      print(result);
    }
  }
  if (json) std::cout << out.dump(2) << "\n";
  context.exit_code = all_ok ? kExitOk : kExitFailures;
}

void add_list_command(CLI::App& app, CommandContext& context);
void add_probe_command(CLI::App& app, CommandContext& context);
void add_doctor_command(CLI::App& app, CommandContext& context);
void add_run_command(CLI::App& app, CommandContext& context);
// gauntlet report show|diff|merge (reports/).
void add_report_command(CLI::App& app, CommandContext& context);
// engine: gauntlet model make|info, gauntlet decode.
void add_model_command(CLI::App& app, CommandContext& context);
// `model shapes`, under the `model` command.
void add_model_shapes_command(CLI::App& model, CommandContext& context);
void add_decode_command(CLI::App& app, CommandContext& context);
// gauntlet bench: pp/tg speed as llama-bench measures it (engine/bench).
void add_bench_command(CLI::App& app, CommandContext& context);
// gauntlet stress (stress/).
void add_stress_command(CLI::App& app, CommandContext& context);
// gauntlet health: the node gate (harness/health.h).
void add_health_command(CLI::App& app, CommandContext& context);
// gauntlet conform (conformance/).
void add_conform_command(CLI::App& app, CommandContext& context);

}  // namespace gauntlet::cli
