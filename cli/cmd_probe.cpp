#include <iostream>

#include "backends/catalog.h"
#include "backends/saxpy.h"
#include "cli/commands.h"
#include "cli/format.h"
#include "probes/inventory.h"
#include "probes/select.h"

namespace gauntlet::cli {

namespace {

// Opens the device and runs saxpy in an isolated child: proof that the claims can be used.
core::Row smoke_test(const core::DeviceId& id, const core::Options& options) {
  core::IsolationLimits limits;
  limits.timeout = std::chrono::seconds(60);
  auto rows = core::run_isolated_rows("probe.saxpy", id.to_string(), limits, [&] {
    core::Row row = core::make_row("probe.saxpy", id.to_string(), core::RowStatus::pass);
    auto device = backends::open(id, options);
    if (!device) {
      row.status = core::RowStatus::error;
      row.reason = device.error().describe();
      return std::vector<core::Row>{row};
    }
    std::vector<float> x(1000), y(1000);
    for (size_t i = 0; i < x.size(); ++i) {
      x[i] = static_cast<float>(i);
      y[i] = 1.0f;
    }
    auto out = backends::run_saxpy(**device, 2.0f, x, y);
    if (!out) {
      row.status = core::RowStatus::error;
      row.reason = out.error().describe();
    } else {
      for (size_t i = 0; i < x.size(); ++i) {
        if ((*out)[i] != 2.0f * x[i] + 1.0f) {
          row.status = core::RowStatus::fail;
          row.reason = "index " + std::to_string(i) + ": expected " +
                       std::to_string(2.0f * x[i] + 1.0f) + ", got " + std::to_string((*out)[i]);
          break;
        }
      }
    }
    return std::vector<core::Row>{row};
  });
  return rows.front();
}

void print_device(const core::DeviceInfo& d, const core::Row& smoke) {
  const auto& f = d.features;
  auto yes = [](bool b) { return b ? "yes" : "no"; };
  std::vector<std::vector<std::string>> table{
      {d.id.to_string(), d.name},
      {"  vendor", d.vendor + " (0x" +
                       [&] {
                         char hex[16];
                         std::snprintf(hex, sizeof hex, "%04x", d.vendor_id);
                         return std::string(hex);
                       }() +
                       ")"},
      {"  driver", d.driver_name + " " + d.driver_version},
      {"  api version", d.api_version},
      {"  type", d.device_type},
      {"  pci bus id", d.pci_bus_id.value_or("-")},
      {"  global memory", format_bytes(d.global_mem_size)},
      {"  largest allocation", format_bytes(d.max_mem_alloc_size)},
      {"  local memory",
       format_bytes(d.local_mem_size) + " (" + std::to_string(d.local_mem_size) + " bytes)"},
      {"  max workgroup size", std::to_string(d.max_work_group_size)},
      {"  fp16 storage / arithmetic",
       std::string(yes(f.fp16_storage)) + " / " + yes(f.fp16_arithmetic)},
      {"  bf16, fp64", std::string(yes(f.bf16)) + ", " + yes(f.fp64)},
      {"  int8 storage / arithmetic",
       std::string(yes(f.int8_storage)) + " / " + yes(f.int8_arithmetic)},
      {"  integer dot product", yes(f.integer_dot_product)},
      {"  saxpy", std::string(core::to_string(smoke.status)) +
                      (smoke.reason.empty() ? "" : ": " + smoke.reason)},
  };
  std::cout << format_table(table);
}

}  // namespace

void add_probe_command(CLI::App& app, CommandContext& context) {
  auto* command = app.add_subcommand(
      "probe", "Show what each selected device claims, and run a saxpy kernel on it");
  add_device_flags(*command, context);
  auto json = std::make_shared<bool>(false);
  command->add_flag("--json", *json, "print JSON");
  command->callback([&context, json] {
    auto selected = select_for_command("probe", context);
    if (!selected) return;
    const auto& inventory = selected->inventory;
    const auto* selection = &selected->selection;
    core::Json out{{"requested", context.options.device},
                   {"fell_back", selection->fell_back},
                   {"notes", selection->notes},
                   {"enumeration", inventory.rows()},
                   {"devices", core::Json::array()}};
    bool all_ok = true;
    for (const auto& id : selection->devices) {
      const core::DeviceInfo* info = inventory.find(id);
      core::Row smoke = smoke_test(id, context.options);
      all_ok = all_ok && smoke.status == core::RowStatus::pass;
      if (*json) {
        out["devices"].push_back({{"info", *info}, {"smoke", smoke}});
      } else {
        print_device(*info, smoke);
      }
    }
    if (*json) std::cout << out.dump(2) << "\n";
    if (!*json) {
      std::string ran;
      for (const auto& id : selection->devices) ran += (ran.empty() ? "" : ", ") + id.to_string();
      std::cout << "ran on: " << ran << (selection->fell_back ? " (fallback)" : "") << "\n";
    }
    context.exit_code = all_ok ? kExitOk : kExitFailures;
  });
}

}  // namespace gauntlet::cli
