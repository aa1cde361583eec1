// A model placed across the host and a device (llama.cpp's -ngl): the split's decode time per
// token beside each device's own time for its layers, each part run alone over the same tokens'
// residual streams. The split costs the parts plus the hand-over (one pass's residual streams
// downloaded and uploaded at the boundary, and the host's embedding lookup): `handover` is the
// split's time over the sum of the parts, less 1. Model: 16 layers, ~270M parameters, 288 MB in
// Q8_0, half of the layers on the host (-ngl 9: layers 8-15 and the output on the device).
// Devices: opencl:0 and vulkan:0 (GAUNTLET_BENCH_DEVICES to change).
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <sstream>

#include "backends/catalog.h"
#include "core/options.h"
#include "engine/device/device_decoder.h"
#include "engine/device/profile_check.h"
#include "engine/loader/loader.h"
#include "engine/make_decoder.h"
#include "engine/model/synthetic.h"
#include "engine/reference/decoder.h"
#include "engine/speed.h"

namespace {

using namespace gauntlet;
using namespace gauntlet::engine;
using Clock = std::chrono::steady_clock;

constexpr const char* kSplitDims =
    "n_embd=1024,n_layer=16,n_head=16,n_head_kv=16,n_ff=2816,n_vocab=32000,context=256";
constexpr uint32_t kContext = 64, kSteps = 24;

template <class T>
T value_of(core::Result<T> r) {
  if (!r) throw std::runtime_error(r.error().describe());
  return std::move(*r);
}

void check(const core::Status& st) {
  if (!st) throw std::runtime_error(st.error().describe());
}

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

// One share run alone: kSteps passes of one token at positions 0.. over the same residual stream.
double time_share(Stage& stage, uint32_t n_embd) {
  std::vector<float> x(n_embd, 0.01f), logits;
  const auto start = Clock::now();
  for (uint32_t pos = 0; pos < kSteps; ++pos) {
    const engine::PassToken token{1, pos, 0, true};
    logits.clear();
    check(stage.run_stage(std::span(&token, 1), x, logits));
  }
  return seconds_since(start) / kSteps;
}

void BM_SplitDecode(benchmark::State& state, const std::string& name) {
  try {
    auto options = value_of(core::Options::from_environment());
    auto device = value_of(backends::open(*core::DeviceId::parse(name), options));
    auto host = value_of(backends::open(*core::DeviceId::parse("host"), options));
    auto shape = value_of(model::parse_dims(kSplitDims));
    shape.name = "bench-split";
    const auto path = std::filesystem::temp_directory_path() /
                      ("gauntlet-bench-split-" + std::to_string(::getpid()) + ".gguf");
    check(model::write_synthetic_model(shape, model::FileType::q8_0, 1, path, true));
    auto file = value_of(model::GgufFile::open(path));
    std::filesystem::remove(path);
    const auto placement = value_of(placement::from_gpu_layers(
        shape.n_layer, {static_cast<int>(shape.n_layer / 2 + 1), {name}, {}, placement::kHost}));
    const auto shares = value_of(placement.shares());
    std::vector<backends::Device*> devices{device.get(), host.get()};
    auto split = value_of(make_decoder(placement, devices, *file, {0, {}, kContext, 1, 1}));
    time_generation(*split, shape.n_vocab, 2).value();  // builds the kernels

    // Each part alone: the host's share on the reference over the file's bytes, the device's
    // share loaded onto it alone.
    auto view = value_of(model::load_model(file->info(), file->bytes()));
    auto host_part =
        value_of(reference::Decoder::create(view, {{.context = kContext}, shares[0].layers}));
    auto loaded = value_of(loader::load_to_device(*file, *device, {16ull << 20, shares[1].layers}));
    auto config = device::default_config(device->info(), device->info().local_mem_size, shape,
                                         model::FileType::q8_0);
    config.context = kContext;
    config.layers = shares[1].layers;
    auto device_part = value_of(device::DeviceDecoder::create(*device, loaded, config));
    time_share(*device_part, shape.n_embd);

    double split_s = 0, host_s = 0, device_s = 0;
    for (auto _ : state) {
      split_s = 1.0 / time_generation(*split, shape.n_vocab, kSteps).value().tokens_per_second();
      host_s = time_share(*host_part, shape.n_embd);
      device_s = time_share(*device_part, shape.n_embd);
    }
    state.counters["split_ms"] = split_s * 1e3;
    state.counters["host_ms"] = host_s * 1e3;
    state.counters["device_ms"] = device_s * 1e3;
    state.counters["handover"] = split_s / (host_s + device_s) - 1;
    state.counters["model_MB"] = planner::weight_bytes(view.tensors) / 1e6;
    state.SetLabel(placement.describe());
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
  }
}

std::vector<std::string> bench_devices() {
  const char* env = std::getenv("GAUNTLET_BENCH_DEVICES");
  std::stringstream in(env != nullptr ? env : "opencl:0,vulkan:0");
  std::vector<std::string> out;
  for (std::string d; std::getline(in, d, ',');) out.push_back(d);
  return out;
}

const bool registered = [] {
  for (const auto& d : bench_devices()) {
    benchmark::RegisterBenchmark(("BM_SplitDecode/host+" + d).c_str(),
                                 [d](benchmark::State& s) { BM_SplitDecode(s, d); })
        ->Iterations(3)
        ->Unit(benchmark::kMillisecond);
  }
  return true;
}();

}  // namespace

BENCHMARK_MAIN();
