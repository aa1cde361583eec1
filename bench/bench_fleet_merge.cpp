// reports: `gauntlet report merge` over a fleet's reports. Writes N generated reports of three
// devices each (PoCL, llvmpipe and the host, with as many profiles, conformance rows and stress
// points as a quick run writes), plus one broken and one foreign file that the merge must name
// and skip, then times merge_report_files over all of them. Counters: seconds per merge, the
// process's peak resident memory, machines, groups, outliers and skipped files.
#include <benchmark/benchmark.h>
#include <stdlib.h>
#include <sys/resource.h>

#include <filesystem>
#include <fstream>

#include "reports/fleet.h"
#include "reports/io.h"

namespace gauntlet::reports {
namespace {

namespace fs = std::filesystem;

// The shape of a quick run's report on this machine (`gauntlet run --level quick`, one device:
// 512 profiles of which 6 safe, 192 unsafe, 18 derived and 296 untested; 55 conformance rows;
// about 0.55 MB of JSON per device).
constexpr int kProfilesPerDevice = 512;
constexpr int kSafe = 6, kUnsafe = 192, kDerived = 18;
constexpr int kConformanceRows = 55;
constexpr int kStressPoints = 2;
constexpr uint64_t kMiB = 1024 * 1024;

core::Row row(const std::string& id, const std::string& device, double seconds) {
  auto r = core::make_row(id, device, core::RowStatus::pass);
  r.duration_s = seconds;
  r.metrics = {{"elements", 1024}, {"max_ulp", 0}, {"peak_rss_kb", 74116}, {"ulp_bound", 0}};
  return r;
}

ProfileVerdict verdict_of(int i) {
  if (i < kSafe) return ProfileVerdict::safe;
  if (i < kSafe + kUnsafe) return ProfileVerdict::unsafe;
  if (i < kSafe + kUnsafe + kDerived) return ProfileVerdict::derived;
  return ProfileVerdict::untested;
}

const char* reason_of(ProfileVerdict v) {
  switch (v) {
    case ProfileVerdict::safe:
      return "decoded and matched the host reference";
    case ProfileVerdict::unsafe:
      return "local memory 47040 > 32768 (matvec.wg64.whole.f32, n_in 11008); these fit: f32 "
             "activations wg64-t1024-s256 (4352 bytes), f16 activations wg64-whole (22272 bytes)";
    case ProfileVerdict::derived:
      return "fits by the planner; decode verified at ctx 512 and attention at ctx 65536";
    default:
      return "not run at the quick level, which runs the default variant of F16, Q8_0 and "
             "Q4_K_M (--level standard runs every variant of every format)";
  }
}

DeviceReport device(const std::string& api, int index, const std::string& name, int machine) {
  DeviceReport d;
  d.key = api == "host" ? "host" : api + ":" + std::to_string(index);
  d.name = name;
  DeviceView view;
  view.api = api;
  view.info.id = {api == "host"     ? core::Api::host
                  : api == "opencl" ? core::Api::opencl
                                    : core::Api::vulkan,
                  index};
  view.info.name = name;
  view.info.driver_version = api + "-driver 1.2.3";
  view.info.global_mem_size = 16384 * kMiB;
  view.info.max_mem_alloc_size = 4096 * kMiB;
  view.info.local_mem_size = 65536;
  view.info.extensions.assign(40, "VK_KHR_some_extension_name");
  d.views.push_back(view);
  for (int i = 0; i < kConformanceRows; ++i) {
    d.conformance.push_back(row("conform.case" + std::to_string(i), d.key, 0.02));
  }
  StressResult stress;
  // Machines of a group differ by a few percent; every 97th machine has half the budget.
  stress.safe_budget_bytes = (machine % 97 == 13 ? 6000 : 12000 - (machine % 5) * 50) * kMiB;
  for (int i = 0; i < kStressPoints; ++i) {
    stress.curve.push_back({i, (i + 1) * 1024 * kMiB, 0.1 * (i + 1), true, 20.0, {}, {}});
    stress.rows.push_back(row("stress.step" + std::to_string(i), d.key, 0.5));
  }
  d.stress = stress;
  static const char* formats[] = {"F32", "F16", "Q8_0", "Q6_K", "Q5_K_M", "Q4_K_M", "Q4_0", "BF16"};
  for (int i = 0; i < kProfilesPerDevice; ++i) {
    Profile p;
    p.device = d.key;
    p.api = api;
    p.weight_format = formats[i % 8];
    p.compute_precision = (i / 8) % 2 ? "f16" : "f32";
    p.kv_precision = (i / 16) % 2 ? "f16" : "f32";
    p.variant.name = (i / 32) % 2 ? "wg64-whole" : "wg64-t1024-s256";
    p.variant.workgroup = 64;
    p.variant.tile = {{"activations", 1024}, {"scores", 256}};
    p.variant.local_mem_bytes = 4352;
    p.context = 512u << (i / 64);
    p.verdict = verdict_of(i);
    // Every 89th machine failed a profile that its siblings found safe.
    if (machine % 89 == 7 && i == 3) p.verdict = ProfileVerdict::unsafe;
    p.reason = reason_of(p.verdict);
    p.figures.planned_peak_bytes = 76137472;
    if (p.verdict == ProfileVerdict::safe) {
      p.figures.tok_s = 40.0 - i * 0.1 - (machine % 7) * 0.05;
      p.figures.peak_bytes = 39175424;
      p.figures.logits_nmse = 6.3e-13;
      p.figures.effective_gbps = 1.33;
      p.rows.push_back(row("decode:" + std::to_string(i), d.key, 1.5));
      p.rows.back().metrics["host_tokens"] = std::vector<int>(16, 1234);
      p.rows.back().metrics["device_tokens"] = std::vector<int>(16, 1234);
    }
    p.name = profile_name(p);
    p.familiar_name = familiar_name(p.weight_format, p.compute_precision);
    d.profiles.push_back(std::move(p));
  }
  d.recommendation = Recommendation{d.profiles[0].name, "the fastest safe configuration"};
  return d;
}

Report machine_report(int machine) {
  Report r;
  r.tool = {"gauntlet", "0.1.0", "bench"};
  r.host = {"node-" + std::to_string(machine), "Debian GNU/Linux 12 (bookworm)", "bench cpu",
            64 * 1024 * kMiB};
  r.started = "2026-01-01T00:00:00Z";
  r.finished = "2026-01-01T00:01:00Z";
  r.complete = true;
  r.devices = {device("opencl", 0, "pthread-cpu", machine),
               device("vulkan", 0, "llvmpipe (LLVM 15.0.6, 256 bits)", machine),
               device("host", 0, "host cpu", machine)};
  r.summary = compute_summary(r);
  return r;
}

class Fleet {
 public:
  explicit Fleet(int reports) {
    std::string pattern = (fs::temp_directory_path() / "gauntlet-bench-fleet-XXXXXX").string();
    dir_ = ::mkdtemp(pattern.data());
    for (int i = 0; i < reports; ++i) {
      files_.push_back((dir_ / ("node-" + std::to_string(i) + ".json")).string());
      if (!write_report(files_.back(), machine_report(i)).is_ok()) files_.pop_back();
    }
    files_.push_back((dir_ / "broken.json").string());
    std::ofstream(files_.back()) << "{\"schema_version\": \"1.1\", \"devices\": [";
    files_.push_back((dir_ / "foreign.json").string());
    std::ofstream(files_.back()) << "{\"kind\": \"gauntlet-fleet\", \"groups\": []}";
  }
  ~Fleet() { fs::remove_all(dir_); }
  const std::vector<std::string>& files() const { return files_; }
  uintmax_t bytes() const {
    uintmax_t total = 0;
    for (const auto& f : files_) total += fs::file_size(f);
    return total;
  }

 private:
  fs::path dir_;
  std::vector<std::string> files_;
};

double peak_rss_mib() {
  rusage usage{};
  ::getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;
}

void BM_MergeReports(benchmark::State& state) {
  const Fleet fleet(static_cast<int>(state.range(0)));
  const double rss_before = peak_rss_mib();
  FleetReport result;
  for (auto _ : state) {
    result = merge_report_files(fleet.files(), 0.1);
    benchmark::DoNotOptimize(result.groups.data());
  }
  state.counters["reports_MiB"] = static_cast<double>(fleet.bytes()) / (1024.0 * 1024.0);
  state.counters["peak_rss_MiB"] = peak_rss_mib();
  state.counters["peak_rss_before_MiB"] = rss_before;
  state.counters["machines"] = static_cast<double>(result.machines.size());
  state.counters["groups"] = static_cast<double>(result.groups.size());
  state.counters["outliers"] = static_cast<double>(result.outlier_count());
  state.counters["skipped"] = static_cast<double>(result.skipped.size());
  if (result.skipped.size() != 2)
    state.SkipWithError("the broken and foreign files were not skipped");
}
BENCHMARK(BM_MergeReports)->Arg(100)->Arg(1000)->Unit(benchmark::kSecond)->Iterations(1);

}  // namespace
}  // namespace gauntlet::reports

BENCHMARK_MAIN();
