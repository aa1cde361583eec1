// The machine-signals sampler's own cost (signals/): one snapshot of each source the run watches,
// over the fixture trees of an amdgpu card (gpu_metrics, hwmon, RAS) and an xe card and over this
// machine's CPU, and one reading of the amdgpu card's counters. The counter `percent_of_interval`
// is one snapshot's time over the sampler's 100 ms interval: the share of one core the sampler's
// thread takes while a unit runs.
#include <benchmark/benchmark.h>

#include <chrono>
#include <filesystem>

#include "signals/device_signals.h"

namespace {

const std::filesystem::path kFixtures =
    std::filesystem::path(GAUNTLET_SOURCE_DIR) / "tests/signals/fixtures";
constexpr double kIntervalSeconds = 0.1;  // SamplerOptions' default

void snapshot_of(benchmark::State& state, const gauntlet::signals::DeviceSignals& device) {
  const auto start = std::chrono::steady_clock::now();
  for (auto _ : state) {
    auto s = device.snapshot();
    benchmark::DoNotOptimize(s);
  }
  const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
  state.counters["percent_of_interval"] =
      100.0 * took.count() / static_cast<double>(state.iterations()) / kIntervalSeconds;
}

void BM_SnapshotAmdgpuCard(benchmark::State& state) {
  snapshot_of(state, gauntlet::signals::drm_card_signals(kFixtures / "amdgpu", "card0"));
}
void BM_SnapshotXeCard(benchmark::State& state) {
  snapshot_of(state, gauntlet::signals::drm_card_signals(kFixtures / "xe", "card0"));
}
void BM_SnapshotThisCpu(benchmark::State& state) {
  snapshot_of(state, gauntlet::signals::cpu_signals("/sys"));
}
void BM_CountersAmdgpuCard(benchmark::State& state) {
  const auto device = gauntlet::signals::drm_card_signals(kFixtures / "amdgpu", "card0");
  for (auto _ : state) {
    auto c = device.counters();
    benchmark::DoNotOptimize(c);
  }
}

BENCHMARK(BM_SnapshotAmdgpuCard)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_SnapshotXeCard)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_SnapshotThisCpu)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_CountersAmdgpuCard)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
