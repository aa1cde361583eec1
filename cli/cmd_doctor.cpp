#include <iostream>

#include "cli/commands.h"
#include "cli/format.h"
#include "probes/doctor.h"

namespace gauntlet::cli {

namespace {

void print_doctor(const std::vector<core::Row>& rows) {
  std::vector<std::vector<std::string>> table{{"STATUS", "CHECK", "DETAIL"}};
  int failed = 0;
  for (const auto& row : rows) {
    std::string detail = row.reason;
    if (auto fix = row.metrics.find("fix"); fix != row.metrics.end() && fix->is_string()) {
      detail += " -- fix: " + fix->get<std::string>();
    }
    table.push_back({core::to_string(row.status), row.id, detail});
    if (!core::all_passed({row})) ++failed;
  }
  std::cout << format_table(table);
  std::cout << "doctor: " << rows.size() << " checks, " << failed << " failed\n";
}

}  // namespace

void add_doctor_command(CLI::App& app, CommandContext& context) {
  auto* command = app.add_subcommand(
      "doctor",
      "Check the runtime environment before touching any device: OpenCL and Vulkan "
      "loaders and drivers, DRM render node permissions, driver environment variables");
  auto json = std::make_shared<bool>(false);
  command->add_flag("--json", *json, "print the check rows as JSON");
  command->callback([&context, json] {
    auto rows = probes::run_doctor(context.options);
    bool ok = core::all_passed(rows);
    if (*json) {
      std::cout << core::Json{{"doctor", rows}, {"passed", ok}}.dump(2) << "\n";
    } else {
      print_doctor(rows);
    }
    context.exit_code = ok ? kExitOk : kExitFailures;
  });
}

}  // namespace gauntlet::cli
