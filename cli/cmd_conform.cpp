#include <iostream>

#include "cli/commands.h"
#include "cli/format.h"
#include "conformance/conformance.h"
#include "probes/inventory.h"
#include "probes/select.h"

namespace gauntlet::cli {

namespace {

struct ConformFlags {
  std::string filter = "*";
  bool json = false;
};

void print_result(const conformance::ConformanceResult& r) {
  std::vector<std::vector<std::string>> rows{{"row", "status", "reason"}};
  for (const auto& row : r.rows) {
    rows.push_back({row.id, core::to_string(row.status), row.reason});
  }
  std::cout << "== " << r.device << "\n" << format_table(rows);
  std::vector<std::vector<std::string>> verdicts{{"feature", "verdict", "reason"}};
  for (const auto& key : conformance::feature_keys()) {
    auto it = r.features.find(key);
    if (it == r.features.end()) continue;
    verdicts.push_back({key, core::to_string(it->second.verdict), it->second.reason});
  }
  std::cout << format_table(verdicts);
  std::cout << "local memory verified: " << r.local_mem_verified_bytes
            << " bytes; largest workgroup verified: " << r.max_workgroup_verified
            << "; subgroup size observed: " << r.subgroup_size_observed << "\n\n";
}

}  // namespace

void add_conform_command(CLI::App& app, CommandContext& context) {
  auto* command = app.add_subcommand(
      "conform",
      "Verify dtypes, conversions, quantized formats, local memory and workgroups by "
      "running kernels, and give a verdict per feature");
  add_device_flags(*command, context);
  auto flags = std::make_shared<ConformFlags>();
  command->add_option("--filter", flags->filter,
                      "comma list of globs over case ids, e.g. 'f16.*,conform.local.*'");
  add_level_flag(*command, context);
  command->add_flag("--json", flags->json, "print JSON");
  command->callback([&context, flags] {
    if (conformance::cases_matching(flags->filter).empty()) {
      std::cerr << "gauntlet conform: --filter '" << flags->filter
                << "' matches no conformance case (ids such as conform.f16.native.add, "
                   "conform.gguf.q4_K; globs may leave out \"conform.\")\n";
      context.exit_code = kExitUsage;
      return;
    }
    auto selected = select_for_command("conform", context);
    if (!selected) return;
    conformance::ConformanceOptions conf;
    conf.level = context.options.level;
    conf.filter = flags->filter;
    measure_each_device<conformance::ConformanceResult>(
        *selected, flags->json, context,
        [&](const core::DeviceInfo& info) {
          return conformance::run_conformance(info, context.options, conf);
        },
        print_result);
  });
}

}  // namespace gauntlet::cli
