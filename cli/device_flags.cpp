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
          "all (default), host, opencl:N, vulkan:N, a PCI bus id, or a comma list; "
          "GAUNTLET_DEVICE means the same")
      ->type_name("D");
  command
      .add_option_function<std::string>(
          "--fallback",
          [&context](const std::string& value) {
            context.options.fallback = value == "host" ? core::Fallback::host : core::Fallback::none;
            context.options.sources["fallback"] = "flag --fallback";
          },
          "what runs when the device asked for is absent or unusable: host, or none (default: "
          "stop with exit 2); GAUNTLET_FALLBACK means the same")
      ->check(CLI::IsMember({"host", "none"}))
      ->type_name("host|none");
}

}  // namespace gauntlet::cli
