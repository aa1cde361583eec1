// Host (CPU reference) decode speed: tok/s of whole decode steps, and the matrix-vector product
// per weight format. Models are synthetic, written once per run to a temporary file.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <filesystem>
#include <map>

#include "core/rng.h"
#include "core/tensor_type.h"
#include "engine/model/gguf.h"
#include "engine/model/loaded_model.h"
#include "engine/model/synthetic.h"
#include "engine/planner/planner.h"
#include "engine/reference/decoder.h"

namespace {

using namespace gauntlet::engine;

struct Loaded {
  std::unique_ptr<model::GgufFile> file;
  model::LoadedModel model;
};

// One model per (shape, format), kept for the whole run.
Loaded& model_for(const std::string& shape_name, model::FileType format) {
  static std::map<std::string, Loaded> cache;
  const std::string key = shape_name + "." + model::to_string(format);
  auto it = cache.find(key);
  if (it != cache.end()) return it->second;
  auto shape = model::preset_shape(shape_name).value();
  const auto path = std::filesystem::temp_directory_path() /
                    ("gauntlet-bench-" + std::to_string(::getpid()) + "-" + key + ".gguf");
  auto status = model::write_synthetic_model(shape, format, 1, path, true);
  if (!status) throw std::runtime_error(status.error().describe());
  auto file = model::GgufFile::open(path);
  std::filesystem::remove(path);
  if (!file) throw std::runtime_error(file.error().describe());
  Loaded l;
  l.file = std::move(file.value());
  l.model = model::load_model(l.file->info(), l.file->bytes()).value();
  return cache.emplace(key, std::move(l)).first->second;
}

const model::FileType kFileTypes[] = {model::FileType::f32,  model::FileType::f16,
                                      model::FileType::bf16, model::FileType::q8_0,
                                      model::FileType::q4_0, model::FileType::q4_K_M};

void BM_HostDecode(benchmark::State& state, const std::string& shape_name) {
  const auto format = kFileTypes[state.range(0)];
  auto& l = model_for(shape_name, format);
  const uint32_t context = 128;
  auto decoder = reference::Decoder::create(l.model, {{.context = context}}).value();
  int32_t token = 1;
  for (auto _ : state) {
    if (decoder->position() + 1 >= context) decoder->reset();
    auto logits = decoder->step(token);
    if (!logits) {
      state.SkipWithError(logits.error().describe().c_str());
      break;
    }
    token = reference::argmax(*logits);
  }
  const uint64_t weights = planner::weight_bytes(l.model.tensors);
  state.counters["tok/s"] =
      benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
  state.counters["weight_GB/s"] = benchmark::Counter(
      static_cast<double>(weights) * state.iterations() / 1e9, benchmark::Counter::kIsRate);
  state.counters["weight_MB"] = static_cast<double>(weights) / 1e6;
  state.SetLabel(std::string(model::to_string(format)));
}

void BM_MatVec(benchmark::State& state) {
  // Every weight type (core/weight_types.def), in ggml id order.
  const auto format = gauntlet::core::all_tensor_types()[state.range(0)].type;
  const uint64_t n_in = 4096, n_out = 1024;
  gauntlet::core::Rng rng(3);
  std::vector<float> row(n_in), x(n_in), y(n_out);
  const uint64_t rb = model::row_bytes(format, n_in);
  std::vector<std::byte> w(rb * n_out);
  const std::vector<float> importance(n_in, 1.0f);  // iq2_xxs, iq2_xs and iq1_s need one
  for (uint64_t r = 0; r < n_out; ++r) {
    for (float& v : row) v = rng.uniform(-1, 1);
    model::quantize_row(format, row.data(), w.data() + r * rb, n_in, importance.data());
  }
  for (float& v : x) v = rng.uniform(-1, 1);
  for (auto _ : state) {
    for (uint64_t r = 0; r < n_out; ++r)
      y[r] = model::dot_row(format, w.data() + r * rb, x.data(), n_in);
    benchmark::DoNotOptimize(y.data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(w.size()) * state.iterations());
  state.SetLabel(std::string(model::to_string(format)) + " 4096x1024 single thread");
}

}  // namespace

BENCHMARK_CAPTURE(BM_HostDecode, test_tiny, std::string("test-tiny"))
    ->DenseRange(0, 5)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(BM_HostDecode, bench_110m, std::string("bench-110m"))
    ->Arg(3)
    ->Arg(4)
    ->Arg(5)
    ->Unit(benchmark::kMillisecond)
    ->MinTime(2.0)
    ->UseRealTime();
BENCHMARK(BM_MatVec)
    ->DenseRange(0, static_cast<int64_t>(gauntlet::core::all_tensor_types().size()) - 1)
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();

BENCHMARK_MAIN();
