#include <cstdio>
#include <iostream>

#include "cli/commands.h"
#include "cli/format.h"
#include "probes/inventory.h"
#include "probes/select.h"
#include "stress/stress.h"

namespace gauntlet::cli {

namespace {

struct StressFlags {
  double max_fraction = 0;
  bool json = false;
};

std::string gbps(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f GB/s", value);
  return text;
}

void print_result(const stress::StressResult& r) {
  std::vector<std::vector<std::string>> table{
      {r.device, ""},
      {"  safe budget", format_bytes(r.safe_budget_bytes) + " (bound by " + r.bound_by + ")"},
      {"  margin", format_bytes(r.margin_bytes) + " (" + r.margin_rule + ")"},
      {"  largest allocation",
       format_bytes(r.max_single_alloc_verified_bytes) + " (" + r.max_single_alloc_bound_by + ")"},
      {"  copy / read / write", gbps(r.copy_bandwidth_gbps) + " / " + gbps(r.read_bandwidth_gbps) +
                                    " / " + gbps(r.write_bandwidth_gbps)},
      {"  host->device / device->host", gbps(r.h2d_gbps) + " / " + gbps(r.d2h_gbps)},
      {"  host memcpy (same run)",
       gbps(r.host_memcpy_gbps) + ", device copy is " +
           (r.host_memcpy_gbps > 0
                ? std::to_string(r.copy_bandwidth_gbps / r.host_memcpy_gbps).substr(0, 4) + "x"
                : std::string("-"))}};
  for (const auto& p : r.curve) {
    table.push_back({"  step " + std::to_string(p.step),
                     format_bytes(p.bytes) + " " + core::to_string(p.status) +
                         (p.bandwidth_gbps > 0 ? ", copy " + gbps(p.bandwidth_gbps) : "")});
  }
  std::cout << format_table(table);
  for (const auto& row : r.rows) {
    if (row.status != core::RowStatus::pass) {
      std::cout << "  " << row.id << ": " << core::to_string(row.status) << ": " << row.reason
                << "\n";
    }
  }
}

}  // namespace

void add_stress_command(CLI::App& app, CommandContext& context) {
  auto* command = app.add_subcommand(
      "stress",
      "Graduated memory stress: verified largest allocation, safe memory budget, "
      "memtest-style patterns and bandwidth, each step in an isolated child");
  add_device_flags(*command, context);
  auto flags = std::make_shared<StressFlags>();
  add_level_flag(*command, context);
  command
      ->add_option("--max-fraction", flags->max_fraction,
                   "largest share of device memory to occupy, in (0, 1]")
      ->check(CLI::Range(0.0, 1.0));
  command->add_flag("--json", flags->json, "print JSON");
  command->callback([&context, flags] {
    auto selected = select_for_command("stress", context);
    if (!selected) return;
    stress::StressOptions options;
    options.level = context.options.level;
    options.max_fraction = flags->max_fraction;
    options.limits.timeout = std::chrono::seconds(options.level == core::Level::quick      ? 60
                                                  : options.level == core::Level::standard ? 180
                                                                                           : 600);
    options.progress = [](const std::string& line) { std::cerr << line << std::endl; };
    measure_each_device<stress::StressResult>(
        *selected, flags->json, context,
        [&](const core::DeviceInfo& info) {
          return stress::run_stress(info, context.options, options);
        },
        print_result);
  });
}

}  // namespace gauntlet::cli
