// Device decode speed on OpenCL and Vulkan: the copy bandwidth of each device (stress's copy
// kernel, read + write bytes) and its read bandwidth, the matrix-vector product per weight format,
// and whole decode tok/s with its effective bandwidth (weight + KV bytes read per token x tok/s)
// and the ratio to the copy bandwidth measured in the same run (a mixture of experts' too, with
// its active bytes and its ratio to the dense model's), and the f32 compute peak (stress's
// peak kernels) beside one serial FMA chain. Devices: opencl:0 and vulkan:0
// (GAUNTLET_BENCH_DEVICES to change, e.g. "vulkan:0").
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <map>
#include <sstream>

#include "backends/catalog.h"
#include "core/half.h"
#include "core/options.h"
#include "engine/device/device_decoder.h"
#include "engine/device/ops.h"
#include "engine/device/profile_check.h"
#include "engine/loader/loader.h"
#include "engine/model/synthetic.h"
#include "engine/reference/decoder.h"
#include "engine/speed.h"
#include "stress/bandwidth.h"
#include "stress/compute_peak.h"

namespace {

using namespace gauntlet;
using namespace gauntlet::engine;
using Clock = std::chrono::steady_clock;

// ~220M parameters: 234 MB in q8_0, 124 MB in q4_0 (both over 100 MB).
constexpr const char* kDecodeDims =
    "n_embd=1024,n_layer=12,n_head=16,n_head_kv=16,n_ff=2816,n_vocab=32000,context=256";
// A mixture of ~286M parameters (304 MB in q8_0), 8 experts of 1024 with 2 used: ~135M active.
constexpr const char* kMoeDims =
    "arch=qwen3moe,n_embd=1024,n_layer=8,n_head=16,n_head_kv=4,head_dim=64,n_ff=2816,n_expert=8,"
    "n_expert_used=2,n_ff_exp=1024,n_vocab=32000,context=256";

// The dense decode's effective bandwidth per device and format in this run, for the mixture's
// ratio to it (the dense rows run first).
std::map<std::string, double>& dense_effective_gbps() {
  static std::map<std::string, double> measured;
  return measured;
}

backends::Device& device_for(const std::string& name) {
  static std::map<std::string, std::unique_ptr<backends::Device>> devices;
  auto it = devices.find(name);
  if (it != devices.end()) return *it->second;
  auto options = core::Options::from_environment().value();
  auto d = backends::open(*core::DeviceId::parse(name), options);
  if (!d) throw std::runtime_error(d.error().describe());
  return *devices.emplace(name, std::move(*d)).first->second;
}

void check(const core::Status& st) {
  if (!st) throw std::runtime_error(st.error().describe());
}

// Copy (read + write) and read bandwidth of stress::kBandwidthBytes buffers, with stress's kernels,
// measured once per device per run.
const stress::Bandwidth& bandwidth(const std::string& name) {
  static std::map<std::string, stress::Bandwidth> measured;
  if (auto it = measured.find(name); it != measured.end()) return it->second;
  auto& d = device_for(name);
  const uint64_t bytes = stress::kBandwidthBytes;
  auto a = d.allocate(bytes).value();
  auto b = d.allocate(bytes).value();
  auto bw = stress::measure_device_bandwidth(d, *a, *b, 5);
  if (!bw) throw std::runtime_error(bw.error().describe());
  return measured[name] = *bw;
}

void BM_Copy(benchmark::State& state, const std::string& name) {
  try {
    stress::Bandwidth bw;
    for (auto _ : state) bw = bandwidth(name);
    state.counters["copy_GBps"] = bw.copy_gbps;
    state.counters["read_GBps"] = bw.read_gbps;
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
  }
}

// The f32 peak (many independent FMA chains per work-item, the standard level's 50 ms runs) and
// the rate of one work-item's one chain. f16 and int8 need conformance first: `gauntlet run`.
void BM_ComputePeak(benchmark::State& state, const std::string& name) {
  try {
    auto& d = device_for(name);
    core::ComputePeak peak;
    for (auto _ : state) {
      auto measured =
          stress::measure_compute_peak(d, stress::peak_options_for(core::Level::standard));
      if (!measured) throw std::runtime_error(measured.error().describe());
      peak = *measured;
    }
    auto serial = stress::measure_serial_fma_gflops(d);
    if (!serial) throw std::runtime_error(serial.error().describe());
    state.counters["f32_GFLOPs"] = peak.f32_gflops.value_or(0.0);
    state.counters["serial_chain_GFLOPs"] = *serial;
    state.counters["copy_GBps"] = bandwidth(name).copy_gbps;
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
  }
}

// About `bytes` of rows of n_in weights of `type` (a multiple of 256 rows) on the device.
struct Rows {
  std::unique_ptr<backends::Buffer> buffer;
  uint32_t n_out = 0;
};
Rows upload_rows(backends::Device& d, model::TensorType type, uint32_t n_in, uint64_t bytes) {
  const uint64_t rb = model::row_bytes(type, n_in);
  const auto n_out = static_cast<uint32_t>(bytes / rb / 256 * 256);
  std::vector<float> row(n_in);
  const std::vector<float> importance(n_in, 1.0f);  // iq2_xxs, iq2_xs and iq1_s need one
  std::vector<std::byte> w(rb * n_out);
  // 64 distinct rows, repeated: the lattice types' encoders search a grid per group of 8 and
  // would take minutes over 96 MiB; the matvec streams every byte all the same.
  const uint32_t distinct = std::min<uint32_t>(n_out, 64);
  for (uint32_t r = 0; r < n_out; ++r) {
    if (r >= distinct) {
      std::copy_n(w.data() + (r % distinct) * rb, rb, w.data() + r * rb);
      continue;
    }
    for (uint32_t i = 0; i < n_in; ++i) {
      row[i] = static_cast<float>((r * 31 + i * 7) % 17) / 17.0f - 0.5f;
    }
    model::quantize_row(type, row.data(), w.data() + r * rb, n_in, importance.data());
  }
  auto wb = d.allocate(w.size()).value();
  check(d.upload(*wb, w));
  return {std::move(wb), n_out};
}

// ffn_down-wide rows, `weight_bytes` of them: 96 MiB (more than the CPU's last-level cache) stream
// from memory as in a decode step; 8 MiB stays in the CPU's 32 MiB last-level cache, so it shows
// the kernel's arithmetic ceiling, near the most it could reach were memory free.
void BM_Matvec(benchmark::State& state, const std::string& name, model::TensorType type,
               uint64_t weight_bytes) {
  try {
    auto& d = device_for(name);
    const uint32_t n_in = 2816;
    auto [wb, n_out] = upload_rows(d, type, n_in, weight_bytes);
    const uint64_t w_bytes = wb->size();
    auto act = d.allocate((n_in + n_out) * sizeof(float)).value();
    std::vector<float> x(n_in + n_out, 0.25f);
    check(d.upload(*act, std::as_bytes(std::span(x))));
    auto shape =
        model::parse_dims("n_embd=128,n_layer=1,n_head=1,n_ff=2816,n_vocab=32,context=8").value();
    const auto cfg =
        device::default_config(d.info(), d.info().local_mem_size, shape,
                               model::file_type_for(type).value_or(model::FileType::f32));
    const auto v = device::effective_matvec(cfg);
    device::Ops ops(d);
    check(ops.matvec(*wb, type, v, n_in, n_out, *act, 0, n_in,
                     device::matvec_rows(d.info(), n_out, v.workgroup)));
    check(d.finish());
    const int per = 8;
    for (auto _ : state) {
      for (int i = 0; i < per; ++i)
        check(ops.matvec(*wb, type, v, n_in, n_out, *act, 0, n_in,
                         device::matvec_rows(d.info(), n_out, v.workgroup)));
      check(d.finish());
    }
    const double per_s = static_cast<double>(state.iterations()) * per;
    state.counters["weight_GBps"] =
        benchmark::Counter(per_s * static_cast<double>(w_bytes) / 1e9, benchmark::Counter::kIsRate);
    state.SetLabel(v.name());
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
  }
}

// One layer's attention of one token over `context` positions of an f16 KV cache, with today's
// attention kernel (a workgroup per query head) or the flash kernel (a workgroup per KV head
// serving its group of 4 query heads from K/V tiles in local memory): llama-3-8B's heads (32
// query heads of 128, 8 KV heads). KV_GBps: the cache bytes read per call over its time.
void BM_Attention(benchmark::State& state, const std::string& name, bool flash, uint32_t context) {
  try {
    auto& d = device_for(name);
    auto shape = model::parse_dims(
                     "n_embd=4096,n_layer=1,n_head=32,n_head_kv=8,n_ff=64,"
                     "n_vocab=32,context=" +
                     std::to_string(context))
                     .value();
    auto cfg =
        device::default_config(d.info(), d.info().local_mem_size, shape, model::FileType::f16);
    cfg.kv = planner::KvPrecision::f16;
    cfg.flash_attention = flash;
    check(device::check_config(d.info(), d.info().local_mem_size, shape, cfg));
    const auto v = device::effective_attention(cfg);
    const uint32_t hd = shape.head_dim(), n_q = shape.n_embd_q(), n_kv = shape.n_embd_kv();
    const uint64_t cache_bytes = uint64_t{context} * n_kv * 2;
    auto k = d.allocate(cache_bytes).value();
    auto vc = d.allocate(cache_bytes).value();
    std::vector<uint16_t> half(uint64_t{context} * n_kv, core::f32_to_f16(0.01f));
    check(d.upload(*k, std::as_bytes(std::span(half))));
    check(d.upload(*vc, std::as_bytes(std::span(half))));
    auto act = d.allocate(2ull * n_q * sizeof(float)).value();
    std::vector<float> q(2ull * n_q, 0.5f);
    check(d.upload(*act, std::as_bytes(std::span(q))));
    auto pass = d.allocate(2 * sizeof(uint32_t)).value();
    const uint32_t where[2] = {context - 1, 0};
    check(d.upload(*pass, std::as_bytes(std::span(where))));
    const device::AttentionParams p{0,
                                    n_q,
                                    shape.n_head / shape.n_head_kv,
                                    n_kv,
                                    0,
                                    0,
                                    1.0f / std::sqrt(static_cast<float>(hd)),
                                    2 * n_q,
                                    context,
                                    0.0f,
                                    context * n_kv};
    device::Ops ops(d);
    auto run = [&] {
      check(ops.attention(*act, *k, *vc, *pass, *pass, v, shape.n_head, hd, context, cfg.kv, p));
    };
    run();
    check(d.finish());
    for (auto _ : state) {
      run();
      check(d.finish());
    }
    state.counters["KV_GBps"] = benchmark::Counter(
        static_cast<double>(state.iterations()) * 2.0 * static_cast<double>(cache_bytes) / 1e9,
        benchmark::Counter::kIsRate);
    state.SetLabel(v.name());
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
  }
}

// The matrix-matrix product of a pass of `tokens` tokens over rows of n_in weights (`bytes` of
// them, in the CPU's last-level cache): GFLOP/s = 2 * n_in * n_out * tokens / time, in the
// device's default matmul variant. BM_Matmul: ffn_up-like rows (2816 wide, 8 MiB); BM_MatmulWide:
// an ffn_down-like matrix, wide and of few rows (256 x 11008), which a workgroup of many rows
// per invocation more than covers.
void BM_Matmul(benchmark::State& state, const std::string& name, model::TensorType type,
               uint32_t tokens, uint32_t n_in, uint64_t bytes) {
  try {
    auto& d = device_for(name);
    auto [wb, n_out] = upload_rows(d, type, n_in, bytes);
    const uint32_t stride = n_in + n_out;
    auto act = d.allocate(uint64_t{stride} * tokens * sizeof(float)).value();
    std::vector<float> x(uint64_t{stride} * tokens, 0.25f);
    check(d.upload(*act, std::as_bytes(std::span(x))));
    auto shape =
        model::parse_dims("n_embd=256,n_layer=1,n_head=1,n_ff=2816,n_vocab=32,context=8").value();
    const auto v = device::default_matmul(
        d.info().local_mem_size, shape, model::file_type_for(type).value_or(model::FileType::f32));
    device::Ops ops(d);
    auto run = [&] {
      check(ops.matmul(*wb, type, v, n_in, n_out, *act, 0, n_in, stride, tokens,
                       device::matmul_rows(d.info(), n_in, n_out)));
    };
    run();
    check(d.finish());
    for (auto _ : state) {
      run();
      check(d.finish());
    }
    const double flops = 2.0 * n_in * n_out * tokens;
    state.counters["GFLOPs"] = benchmark::Counter(
        static_cast<double>(state.iterations()) * flops / 1e9, benchmark::Counter::kIsRate);
    device::DecodeConfig config;
    config.matmul = v;
    state.SetLabel(device::effective_matmul(config).name());
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
  }
}

struct DecodeSetup {
  std::unique_ptr<model::GgufFile> file;
  loader::DeviceModel model;
  std::unique_ptr<device::DeviceDecoder> decoder;
  device::DecodeConfig config;
};

// Decode tok/s and effective bandwidth: the bytes a token reads (weights and KV cache; for a
// mixture, the picked experts' share of each expert stack) times tok/s. A mixture's row gives its
// ratio to the dense model's effective bandwidth in the same run.
void BM_Decode(benchmark::State& state, const std::string& name, model::FileType type,
               const std::string& dims) {
  try {
    auto& d = device_for(name);
    const auto& bw = bandwidth(name);
    auto shape = model::parse_dims(dims).value();
    shape.name = shape.moe() ? "bench-moe" : "bench-220m";
    const auto path = std::filesystem::temp_directory_path() /
                      ("gauntlet-bench-device-" + std::to_string(::getpid()) + ".gguf");
    check(model::write_synthetic_model(shape, type, 1, path, true));
    DecodeSetup s;
    s.file = model::GgufFile::open(path).value();
    std::filesystem::remove(path);
    s.model = loader::load_to_device(*s.file, d, {}).value();
    s.config = device::default_config(d.info(), d.info().local_mem_size, shape, type);
    check(device::check_config(d.info(), d.info().local_mem_size, shape, s.config));
    s.decoder = device::DeviceDecoder::create(d, s.model, s.config).value();
    int32_t token = 1;
    for (int i = 0; i < 2; ++i) token = reference::argmax(s.decoder->step(token).value());
    const uint32_t first = s.decoder->position();
    const auto start = Clock::now();
    for (auto _ : state) {
      if (s.decoder->position() + 1 >= shape.context) {
        state.SkipWithError("context exhausted");
        break;
      }
      token = reference::argmax(s.decoder->step(token).value());
    }
    const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
    const uint32_t mid = (first + s.decoder->position()) / 2;
    const double bytes =
        static_cast<double>(device::bytes_read_per_token(shape, s.model.mix, s.config.kv, mid));
    state.counters["tok_per_s"] =
        benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
    state.counters["effective_GBps"] = benchmark::Counter(
        static_cast<double>(state.iterations()) * bytes / 1e9, benchmark::Counter::kIsRate);
    state.counters["copy_GBps"] = bw.copy_gbps;
    state.counters["read_GBps"] = bw.read_gbps;
    const double effective = static_cast<double>(state.iterations()) * bytes / 1e9 / seconds;
    state.counters["ratio_to_copy"] = effective / bw.copy_gbps;
    state.counters["model_MB"] = planner::weight_bytes(shape, type) / 1e6;
    const std::string key = name + "/" + model::to_string(type);
    if (!shape.moe()) {
      dense_effective_gbps()[key] = effective;
    } else if (auto it = dense_effective_gbps().find(key); it != dense_effective_gbps().end()) {
      state.counters["active_MB"] = bytes / 1e6;
      state.counters["ratio_to_dense"] = effective / it->second;
    }
    state.SetLabel(device::effective_matvec(s.config).name() + " " +
                   device::effective_attention(s.config).name());
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
  }
}

// llama-bench's pp<N> and tg<M> on a synthetic model of `dims`, in the device's default
// configuration with micro-batch N, and the device time per kernel of the prompt pass.
void BM_PromptAndGeneration(benchmark::State& state, const std::string& name, model::FileType type,
                            const std::string& dims, uint32_t n_prompt, uint32_t n_gen) {
  try {
    auto& d = device_for(name);
    auto shape = model::parse_dims(dims).value();
    shape.name = "bench-pp";
    const auto path = std::filesystem::temp_directory_path() /
                      ("gauntlet-bench-pp-" + std::to_string(::getpid()) + ".gguf");
    check(model::write_synthetic_model(shape, type, 1, path, true));
    auto file = model::GgufFile::open(path).value();
    std::filesystem::remove(path);
    auto loaded = loader::load_to_device(*file, d, {}).value();
    auto config = device::default_config(d.info(), d.info().local_mem_size, shape, type);
    config.context = n_prompt + n_gen;
    config.micro_batch = n_prompt;
    check(device::check_config(d.info(), d.info().local_mem_size, shape, config));
    auto decoder = device::DeviceDecoder::create(d, loaded, config).value();
    const uint32_t n_vocab = shape.n_vocab;
    time_prompt(*decoder, n_vocab, n_prompt).value();
    double pp = 0, tg = 0;
    for (auto _ : state) {
      pp = time_prompt(*decoder, n_vocab, n_prompt).value().tokens_per_second();
      tg = time_generation(*decoder, n_vocab, n_gen).value().tokens_per_second();
    }
    device::KernelTimes times;
    decoder->time_dispatches(&times);
    time_prompt(*decoder, n_vocab, n_prompt).value();
    decoder->time_dispatches(nullptr);
    const double flops = flops_per_token(shape, loaded.mix);
    state.counters["pp_tok_s"] = pp;
    state.counters["tg_tok_s"] = tg;
    state.counters["pp_over_tg"] = tg > 0 ? pp / tg : 0;
    state.counters["pp_GFLOPs"] = flops * pp / 1e9;
    state.counters["model_MB"] = planner::weight_bytes(loaded.mix) / 1e6;
    for (const auto& t : times) state.counters["s_" + t.kernel] = t.seconds;
    state.SetLabel(device::effective_matmul(config).name());
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
  }
}

std::vector<std::string> bench_devices() {
  std::string list = core::env("GAUNTLET_BENCH_DEVICES").value_or("opencl:0,vulkan:0");
  std::vector<std::string> out;
  std::stringstream in(list);
  for (std::string item; std::getline(in, item, ',');) {
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

const int registered = [] {
  std::vector<model::TensorType> formats;
  for (const auto& t : model::all_tensor_types()) formats.push_back(t.type);
  for (const auto& dev : bench_devices()) {
    benchmark::RegisterBenchmark(("BM_Copy/" + dev).c_str(), BM_Copy, dev)
        ->Iterations(1)
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("BM_ComputePeak/" + dev).c_str(), BM_ComputePeak, dev)
        ->Iterations(1)
        ->Unit(benchmark::kMillisecond);
    for (auto f : formats) {
      benchmark::RegisterBenchmark(("BM_Matvec/" + dev + "/" + model::to_string(f)).c_str(),
                                   BM_Matvec, dev, f, 96ull << 20)
          ->Unit(benchmark::kMillisecond)
          ->UseRealTime();
    }
    for (auto f : formats) {
      benchmark::RegisterBenchmark(("BM_MatvecInCache/" + dev + "/" + model::to_string(f)).c_str(),
                                   BM_Matvec, dev, f, 8ull << 20)
          ->Unit(benchmark::kMillisecond)
          ->UseRealTime();
    }
    for (auto f : formats) {
      benchmark::RegisterBenchmark(("BM_Matmul/" + dev + "/" + model::to_string(f)).c_str(),
                                   BM_Matmul, dev, f, 64, 2816, 8ull << 20)
          ->Unit(benchmark::kMillisecond)
          ->UseRealTime();
    }
    benchmark::RegisterBenchmark(("BM_MatmulWide/" + dev + "/q8_0").c_str(), BM_Matmul, dev,
                                 model::TensorType::q8_0, 64, 11008,
                                 256 * model::row_bytes(model::TensorType::q8_0, 11008))
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
    for (uint32_t context : {512u, 8192u}) {
      for (bool flash : {false, true}) {
        benchmark::RegisterBenchmark(
            ("BM_Attention/" + dev + (flash ? "/flash/" : "/today/") + std::to_string(context))
                .c_str(),
            BM_Attention, dev, flash, context)
            ->Unit(benchmark::kMillisecond)
            ->UseRealTime();
      }
    }
    // The quick run's model (d=256, ff=11008) and the 220M decode model, pp512 / tg128.
    for (auto f : {model::FileType::f32, model::FileType::q8_0, model::FileType::q4_K_M}) {
      benchmark::RegisterBenchmark(
          ("BM_PromptAndGeneration/" + dev + "/quick/" + model::to_string(f)).c_str(),
          BM_PromptAndGeneration, dev, f,
          std::string(
              "n_embd=256,n_layer=2,n_head=4,n_head_kv=2,n_ff=11008,n_vocab=2048,context=1024"),
          512u, 128u)
          ->Iterations(1)
          ->Unit(benchmark::kMillisecond)
          ->UseRealTime();
    }
    for (auto f : {model::FileType::q8_0, model::FileType::q4_K_M}) {
      benchmark::RegisterBenchmark(
          ("BM_PromptAndGeneration/" + dev + "/220m/" + model::to_string(f)).c_str(),
          BM_PromptAndGeneration, dev, f,
          std::string(kDecodeDims)
              .replace(std::string(kDecodeDims).find("context=256"), 11, "context=1024"),
          512u, 128u)
          ->Iterations(1)
          ->Unit(benchmark::kMillisecond)
          ->UseRealTime();
    }
    // The mixture: its prompt pass multiplies each expert's matrix once per token tile of its
    // picks.
    benchmark::RegisterBenchmark(("BM_PromptAndGeneration/" + dev + "/moe/Q8_0").c_str(),
                                 BM_PromptAndGeneration, dev, model::FileType::q8_0,
                                 std::string(kMoeDims).replace(
                                     std::string(kMoeDims).find("context=256"), 11, "context=1024"),
                                 512u, 128u)
        ->Iterations(1)
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
    for (auto f : {model::FileType::q8_0, model::FileType::q4_0, model::FileType::q4_K_M}) {
      benchmark::RegisterBenchmark(("BM_Decode/" + dev + "/" + model::to_string(f)).c_str(),
                                   BM_Decode, dev, f, std::string(kDecodeDims))
          ->Iterations(24)
          ->Unit(benchmark::kMillisecond)
          ->UseRealTime();
    }
    // MXFP4_MOE: the experts in MXFP4 (gpt-oss's format), against Q4_0's matvec above.
    for (auto f : {model::FileType::q8_0, model::FileType::q4_K_M, model::FileType::mxfp4_moe}) {
      benchmark::RegisterBenchmark(("BM_Decode/" + dev + "/moe/" + model::to_string(f)).c_str(),
                                   BM_Decode, dev, f, std::string(kMoeDims))
          ->Iterations(24)
          ->Unit(benchmark::kMillisecond)
          ->UseRealTime();
    }
  }
  return 0;
}();

}  // namespace

BENCHMARK_MAIN();
