#include <cstdio>
#include <iostream>

#include "cli/commands.h"
#include "cli/format.h"
#include "conformance/conformance.h"
#include "probes/inventory.h"
#include "probes/select.h"
#include "stress/compute_peak.h"
#include "stress/stress.h"

namespace gauntlet::cli {

namespace {

struct StressFlags {
  double max_fraction = 0;
  bool json = false;
  bool peak = false;
};

// The stress of one device and, with --peak, its compute peak. JSON: the stress's object, with
// "compute_peak" added when measured.
struct StressOutput {
  stress::StressResult stress;
  std::optional<core::ComputePeak> peak;
  std::vector<core::Row> rows;  // the stress's
};

void to_json(core::Json& j, const StressOutput& o) {
  j = core::Json(o.stress);
  if (o.peak) j["compute_peak"] = *o.peak;
}

// f16 and int8 peaks only where their conformance cases (run here, each family in a child) verify
// the arithmetic; the host reference backend measures f32 only.
stress::PeakOptions verified_peak_options(const core::DeviceInfo& info,
                                          const core::Options& options) {
  stress::PeakOptions peak = stress::peak_options_for(options.level);
  if (info.id.api == core::Api::host) return peak;
  conformance::ConformanceOptions conf;
  conf.level = options.level;
  conf.filter = "f16.native.*,int8.dot4*";
  const auto result = conformance::run_conformance(info, options, conf);
  auto decide = [&](const std::string& key, bool& ok, std::string& reason) {
    const auto found = result.features.find(key);
    ok = found != result.features.end() && found->second.verdict == conformance::Verdict::verified;
    if (ok) return;
    reason = "not verified: " + key + " " +
             (found == result.features.end()
                  ? std::string("not tested")
                  : core::to_string(found->second.verdict) +
                        (found->second.reason.empty() ? std::string()
                                                      : " (" + found->second.reason + ")"));
  };
  decide("f16.arithmetic", peak.f16_verified, peak.f16_reason);
  decide("int8.dot", peak.int8_verified, peak.int8_reason);
  return peak;
}

std::string gbps(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f GB/s", value);
  return text;
}

void print_stress(const stress::StressResult& r) {
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

void print_result(const StressOutput& o) {
  print_stress(o.stress);
  if (o.peak) {
    char seconds[32];
    std::snprintf(seconds, sizeof seconds, " (%.2f s)", o.peak->seconds);
    std::cout << "  compute peak: " << core::describe(*o.peak) << ", copy "
              << gbps(o.stress.copy_bandwidth_gbps) << seconds << "\n";
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
  command->add_flag("--peak", flags->peak,
                    "also measure the peak arithmetic throughput: f32 FMA, and f16 and int8 dot "
                    "where their conformance cases pass");
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
    measure_each_device<StressOutput>(
        *selected, flags->json, context,
        [&](const core::DeviceInfo& info) {
          StressOutput out;
          out.stress = stress::run_stress(info, context.options, options);
          out.rows = out.stress.rows;
          if (flags->peak) {
            out.peak = stress::run_compute_peak(info, context.options,
                                                verified_peak_options(info, context.options),
                                                options.limits);
          }
          return out;
        },
        print_result);
  });
}

}  // namespace gauntlet::cli
