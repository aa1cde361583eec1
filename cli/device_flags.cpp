#include <iostream>

#include "cli/commands.h"

namespace gauntlet::cli {

void add_device_flags(CLI::App& command, CommandContext& context) {
  command
      .add_option_function<std::string>(
          "--device",
          [&context](const std::string& value) {
            context.options.device = value;
            context.options.sources["device"] = "flag --device";
          },
          "all (default: every OpenCL and Vulkan device and cpu), host (the C++ reference, judged "
          "only "
          "when named), cpu, opencl:N, vulkan:N, a PCI bus id, or a comma list; "
          "GAUNTLET_DEVICE means the same")
      ->type_name("D");
  command
      .add_option_function<std::string>(
          "--fallback",
          [&context](const std::string& value) {
            context.options.fallback =
                value == "host" ? core::Fallback::host : core::Fallback::none;
            context.options.sources["fallback"] = "flag --fallback";
          },
          "what runs when the device asked for is absent or unusable: host, or none (default: "
          "stop with exit 2); GAUNTLET_FALLBACK means the same")
      ->check(CLI::IsMember({"host", "none"}))
      ->type_name("host|none");
}

void add_level_flag(CLI::App& command, CommandContext& context) {
  command
      .add_option_function<std::string>(
          "--level",
          [&context](const std::string& value) {
            (void)core::apply_level(context.options, value);  // checked by IsMember
            context.options.sources["level"] = "flag --level";
          },
          "quick (default), standard, full, or soak (the standard level, then each device's "
          "heaviest safe profile held for 300 s or --soak's seconds, where `run` takes it; at "
          "standard and full `run` holds it for up to 60 s of the time budget left); "
          "GAUNTLET_LEVEL means the same")
      ->check(CLI::IsMember({"quick", "standard", "full", "soak"}));
}

std::optional<SelectedDevices> select_for_command(const std::string& command,
                                                  CommandContext& context) {
  SelectedDevices found;
  found.inventory = probes::enumerate_all(context.options);
  auto selection =
      probes::select_devices(context.options.device, context.options.fallback, found.inventory);
  if (!selection) {
    std::cerr << "gauntlet " << command << ": " << selection.error().describe() << "\n";
    context.exit_code = kExitUsage;
    return std::nullopt;
  }
  for (const auto& note : selection->notes)
    std::cerr << "gauntlet " << command << ": " << note << "\n";
  if (selection->devices.empty()) {
    std::cerr << "gauntlet " << command
              << ": no usable device. Devices here: " << probes::describe_available(found.inventory)
              << "\n";
    context.exit_code = kExitNoDevice;
    return std::nullopt;
  }
  found.selection = std::move(*selection);
  return found;
}

}  // namespace gauntlet::cli
