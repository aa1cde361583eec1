#include <iostream>

#include "cli/commands.h"
#include "cli/format.h"
#include "probes/inventory.h"
#include "probes/merge.h"

namespace gauntlet::cli {

namespace {

void print_list(const probes::Inventory& inventory) {
  std::vector<std::vector<std::string>> table{
      {"DEVICE", "NAME", "TYPE", "MEMORY", "LOCAL", "DRIVER", "PHYSICAL", "STATE"}};
  for (const auto& physical : probes::merge_views(inventory.devices())) {
    for (const auto& view : physical.views) {
      table.push_back({view.id.to_string(), view.name, view.device_type,
                       format_bytes(view.global_mem_size), format_bytes(view.local_mem_size),
                       view.driver_name.empty() ? view.driver_version
                                                : view.driver_name + " " + view.driver_version,
                       physical.key, view.usable ? "usable" : "unusable: " + view.unusable_reason});
    }
  }
  std::cout << format_table(table);
  for (const auto& api : inventory.apis) {
    if (api.row.status != core::RowStatus::pass) {
      std::cout << core::to_string(api.api) << ": " << core::to_string(api.row.status) << ": "
                << api.row.reason << "\n";
    } else if (api.devices.empty()) {
      std::cout << core::to_string(api.api) << ": no devices\n";
    }
  }
}

}  // namespace

void add_list_command(CLI::App& app, CommandContext& context) {
  auto* command = app.add_subcommand("list",
                                     "List every device found through OpenCL, Vulkan, DRM "
                                     "and the host, one physical device per group");
  auto json = std::make_shared<bool>(false);
  command->add_flag("--json", *json, "print JSON instead of a table");
  command->callback([&context, json] {
    auto inventory = probes::enumerate_all(context.options);
    if (*json) {
      core::Json out{{"enumeration", inventory.rows()}, {"physical_devices", core::Json::array()}};
      for (const auto& physical : probes::merge_views(inventory.devices())) {
        out["physical_devices"].push_back({{"key", physical.key}, {"views", physical.views}});
      }
      std::cout << out.dump(2) << "\n";
    } else {
      print_list(inventory);
    }
    context.exit_code = core::all_passed(inventory.rows()) ? kExitOk : kExitFailures;
  });
}

}  // namespace gauntlet::cli
