// A gated-DeltaNet hybrid (qwen35) on each device: the recurrent step of one layer (the conv1d and
// the delta rule of one token over Qwen3.6-27B's recurrent layer: 10240 conv channels, 48 value
// heads of 128, a 3.0 MiB f32 state) with the state bytes it reads and writes per second; and the
// whole decode of a ~300 MB hybrid beside a dense qwen3 of about the same size in the same run,
// each with its effective bandwidth (weights, KV cache and recurrent state read per token x tok/s)
// and the hybrid's ratio to the dense model's (the target is at least 0.8); the same for a Mamba2
// hybrid (nemotron_h) of about the same bytes. Devices: host, opencl:0 and vulkan:0
// (GAUNTLET_BENCH_DEVICES to change).
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <sstream>

#include "backends/catalog.h"
#include "core/options.h"
#include "engine/device/ops.h"
#include "engine/device/profile_check.h"
#include "engine/make_decoder.h"
#include "engine/model/synthetic.h"
#include "engine/planner/planner.h"
#include "engine/reference/decoder.h"
#include "engine/reference/gated_delta_net.h"
#include "engine/speed.h"

namespace {

using namespace gauntlet;
using namespace gauntlet::engine;

// Qwen3.5-0.8B's recurrent layer (16 key and 16 value heads of 128) and attention layer (8 heads
// of 256, 2 KV heads) in 12 layers of width 1024: ~300M parameters, 317 MB in Q8_0. The dense
// qwen3 beside it: 20 layers of the same width and feed-forward, ~309 MB in Q8_0.
constexpr const char* kHybridDims =
    "arch=qwen35,n_embd=1024,n_layer=12,n_head=8,n_head_kv=2,head_dim=256,rope_dim=64,n_ff=3072,"
    "n_vocab=32000,context=256,ssm_state=128,ssm_groups=16,ssm_heads=16,ssm_inner=2048";
constexpr const char* kDenseDims =
    "arch=qwen3,n_embd=1024,n_layer=20,n_head=8,n_head_kv=2,head_dim=128,n_ff=3072,n_vocab=32000,"
    "context=256";
// A Mamba2 hybrid of the same width: 12 Mamba2 blocks (32 heads of 64, 8 groups, state 128), 8
// squared-ReLU feed-forwards of 4096 and 4 attention layers, Nemotron-H's proportions: ~255 MB
// in Q8_0.
constexpr const char* kMamba2Dims =
    "arch=nemotron_h,n_embd=1024,n_layer=24,n_head=8,n_head_kv=2,head_dim=128,n_ff=4096,"
    "n_vocab=32000,context=256,layers=M-M-M*M-M-M*M-M-M*M-M-M*,ssm_state=128,ssm_groups=8,"
    "ssm_heads=32,ssm_inner=2048";
// Qwen3.6-27B's recurrent layer (text_config: 16 key heads and 48 value heads of 128).
constexpr uint32_t kStateN = 128, kKeyHeads = 16, kValueHeads = 48, kWidth = 4;
constexpr uint32_t kChannels = kValueHeads * kStateN + 2 * kKeyHeads * kStateN;
constexpr uint32_t kSteps = 24;

template <class T>
T value_of(core::Result<T> r) {
  if (!r) throw std::runtime_error(r.error().describe());
  return std::move(*r);
}

void check(const core::Status& st) {
  if (!st) throw std::runtime_error(st.error().describe());
}

backends::Device& device_for(const std::string& name) {
  static std::map<std::string, std::unique_ptr<backends::Device>> devices;
  if (auto it = devices.find(name); it != devices.end()) return *it->second;
  auto options = value_of(core::Options::from_environment());
  auto d = value_of(backends::open(*core::DeviceId::parse(name), options));
  return *devices.emplace(name, std::move(d)).first->second;
}

// The dense decode's effective bandwidth per device and format in this run (its rows run first).
std::map<std::string, double>& dense_effective_gbps() {
  static std::map<std::string, double> measured;
  return measured;
}

// Bytes of one token's recurrent step: the conv state and the delta state, each read and written.
double state_step_bytes() {
  return 2.0 * 4.0 * (double{kWidth - 1} * kChannels + double{kValueHeads} * kStateN * kStateN);
}

// The host reference: the conv over every channel, then each value head's L2 norms, gate and
// delta-rule step (gated_delta_net.h), as one token of the layer.
void BM_RecurrentStepHost(benchmark::State& state) {
  std::vector<float> x(kChannels, 0.01f), conv_state((kWidth - 1) * kChannels, 0.0f);
  std::vector<float> kernel(kWidth * kChannels, 0.25f), conv_out(kChannels);
  std::vector<float> delta(uint64_t{kValueHeads} * kStateN * kStateN, 0.0f), out(kStateN);
  std::vector<float> q(kStateN), k(kStateN);
  for (auto _ : state) {
    reference::conv_step(x.data(), conv_state.data(), kernel.data(), kChannels, kWidth,
                         conv_out.data());
    for (uint32_t h = 0; h < kValueHeads; ++h) {
      const uint32_t kh = h % kKeyHeads;
      std::copy_n(conv_out.begin() + kh * kStateN, kStateN, q.begin());
      std::copy_n(conv_out.begin() + (kKeyHeads + kh) * kStateN, kStateN, k.begin());
      reference::l2_normalize(q.data(), kStateN, 1e-6f);
      reference::l2_normalize(k.data(), kStateN, 1e-6f);
      const float* v = conv_out.data() + (2 * kKeyHeads + h) * kStateN;
      reference::delta_rule_step(delta.data() + uint64_t{h} * kStateN * kStateN, q.data(), k.data(),
                                 v, -0.1f, 0.5f, kStateN, out.data());
    }
    benchmark::DoNotOptimize(out.data());
  }
  state.counters["state_GBps"] =
      benchmark::Counter(static_cast<double>(state.iterations()) * state_step_bytes() / 1e9,
                         benchmark::Counter::kIsRate);
  state.SetLabel("single thread");
}

// The device's ssm_conv and delta_net kernels for one token at position 1 of one sequence.
void BM_RecurrentStep(benchmark::State& state, const std::string& name) {
  try {
    auto& d = device_for(name);
    // Each token's floats: the conv's input, its output, beta's and alpha's logits, the output.
    const uint32_t in_off = 0, conv_off = kChannels, ba_off = 2 * kChannels;
    const uint32_t out_off = ba_off + 2 * kValueHeads;
    const uint32_t stride = out_off + kValueHeads * kStateN;
    const uint64_t conv_floats = uint64_t{kWidth - 1} * kChannels;
    const uint64_t seq_floats = conv_floats + uint64_t{kValueHeads} * kStateN * kStateN;
    auto upload = [&](const std::vector<float>& v) {
      auto b = value_of(d.allocate(v.size() * sizeof(float)));
      check(d.upload(*b, std::as_bytes(std::span(v))));
      return b;
    };
    auto act = upload(std::vector<float>(stride, 0.01f));
    auto st = upload(std::vector<float>(seq_floats, 0.0f));
    auto kernel = upload(std::vector<float>(uint64_t{kWidth} * kChannels, 0.25f));
    auto dt_bias = upload(std::vector<float>(kValueHeads, 0.5f));
    auto ssm_a = upload(std::vector<float>(kValueHeads, -1.0f));
    auto pass = value_of(d.allocate(2 * sizeof(uint32_t)));
    const uint32_t where[2] = {1, 0};
    check(d.upload(*pass, std::as_bytes(std::span(where))));
    device::Ops ops(d);
    const device::SsmConvParams cp{
        kChannels, kWidth, in_off, conv_off, 0, static_cast<uint32_t>(seq_floats), stride, 1};
    const device::DeltaNetParams dp{kStateN,
                                    kValueHeads,
                                    kKeyHeads,
                                    conv_off,
                                    ba_off,
                                    out_off,
                                    static_cast<uint32_t>(conv_floats),
                                    static_cast<uint32_t>(seq_floats),
                                    stride,
                                    1,
                                    1e-6f};
    auto run = [&] {
      check(ops.ssm_conv(*act, *st, *kernel, *kernel, *pass, cp, 1));
      check(ops.delta_net(*act, *st, *dt_bias, *ssm_a, *pass, dp, 1));
    };
    run();
    check(d.finish());
    for (auto _ : state) {
      run();
      check(d.finish());
    }
    state.counters["state_GBps"] =
        benchmark::Counter(static_cast<double>(state.iterations()) * state_step_bytes() / 1e9,
                           benchmark::Counter::kIsRate);
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
  }
}

// kSteps greedy decode steps after two warm-up steps, through the decoder `decode` and `bench`
// build (the host's runs the reference over the mapped file). Effective bandwidth: the bytes a
// token reads (weights, the KV cache at the middle position, the recurrent state) x tok/s.
void BM_Decode(benchmark::State& state, const std::string& name, model::FileType type,
               const std::string& dims) {
  try {
    auto& d = device_for(name);
    auto shape = value_of(model::parse_dims(dims));
    shape.name = shape.recurrent_layers() > 0 ? "bench-hybrid" : "bench-dense";
    const auto path = std::filesystem::temp_directory_path() /
                      ("gauntlet-bench-hybrid-" + std::to_string(::getpid()) + ".gguf");
    check(model::write_synthetic_model(shape, type, 1, path, true));
    auto file = value_of(model::GgufFile::open(path));
    std::filesystem::remove(path);
    backends::Device* devices[] = {&d};
    auto decoder = value_of(make_decoder(placement::whole(shape.n_layer, d.name()), devices, *file,
                                         {.context = shape.context}));
    time_generation(*decoder, shape.n_vocab, 2).value();
    double tok_s = 0;
    for (auto _ : state) {
      decoder->reset();
      tok_s = time_generation(*decoder, shape.n_vocab, kSteps).value().tokens_per_second();
    }
    auto view = value_of(model::load_model(file->info(), file->bytes()));
    const double bytes = static_cast<double>(
        device::bytes_read_per_token(shape, view.tensors, planner::KvPrecision::f32, kSteps / 2));
    const double effective = bytes * tok_s / 1e9;
    state.counters["tok_per_s"] = tok_s;
    state.counters["effective_GBps"] = effective;
    state.counters["model_MB"] = planner::weight_bytes(view.tensors) / 1e6;
    state.counters["state_MB"] = planner::state_bytes(shape, 1) / 1e6;
    const std::string key = name + "/" + model::to_string(type);
    if (shape.recurrent_layers() == 0) {
      dense_effective_gbps()[key] = effective;
    } else if (auto it = dense_effective_gbps().find(key); it != dense_effective_gbps().end()) {
      state.counters["ratio_to_dense"] = effective / it->second;
    }
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
  }
}

std::vector<std::string> bench_devices() {
  const char* env = std::getenv("GAUNTLET_BENCH_DEVICES");
  std::stringstream in(env != nullptr ? env : "host,opencl:0,vulkan:0");
  std::vector<std::string> out;
  for (std::string d; std::getline(in, d, ',');) {
    if (!d.empty()) out.push_back(d);
  }
  return out;
}

const bool registered = [] {
  benchmark::RegisterBenchmark("BM_RecurrentStep/host", BM_RecurrentStepHost)
      ->Unit(benchmark::kMicrosecond)
      ->UseRealTime();
  for (const auto& dev : bench_devices()) {
    if (dev != "host") {
      benchmark::RegisterBenchmark(("BM_RecurrentStep/" + dev).c_str(), BM_RecurrentStep, dev)
          ->Unit(benchmark::kMicrosecond)
          ->UseRealTime();
    }
    for (auto f : {model::FileType::q8_0, model::FileType::q4_K_M}) {
      const std::string suffix = dev + "/" + model::to_string(f);
      benchmark::RegisterBenchmark(("BM_Decode/dense/" + suffix).c_str(), BM_Decode, dev, f,
                                   std::string(kDenseDims))
          ->Iterations(1)
          ->Unit(benchmark::kMillisecond)
          ->UseRealTime();
      benchmark::RegisterBenchmark(("BM_Decode/hybrid/" + suffix).c_str(), BM_Decode, dev, f,
                                   std::string(kHybridDims))
          ->Iterations(1)
          ->Unit(benchmark::kMillisecond)
          ->UseRealTime();
      benchmark::RegisterBenchmark(("BM_Decode/mamba2/" + suffix).c_str(), BM_Decode, dev, f,
                                   std::string(kMamba2Dims))
          ->Iterations(1)
          ->Unit(benchmark::kMillisecond)
          ->UseRealTime();
    }
  }
  return true;
}();

}  // namespace

BENCHMARK_MAIN();
