// The cpu device's integer dot kernels (engine/cpu) beside the exact reference's float products,
// one thread, per weight type: a 4096 x 1024 matrix against 1 token (decode: bytes per second of
// weights) and against 32 (a prompt's pass: GFLOP/s), the activations' rounding included; and the
// device's decode matvec of every weight type from memory, every thread.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <string>

#include "core/rng.h"
#include "engine/cpu/dot_kernels.h"
#include "engine/cpu/fast_products.h"
#include "engine/cpu/quantized_acts.h"
#include "engine/model/loaded_model.h"
#include "engine/model/tensor_type.h"

namespace {

using namespace gauntlet::engine;
using gauntlet::core::TensorType;

constexpr TensorType kTypes[] = {TensorType::q8_0, TensorType::q4_0, TensorType::q4_K,
                                 TensorType::q6_K, TensorType::mxfp4};
constexpr uint64_t kIn = 4096, kOut = 1024;

struct Matrix {
  std::vector<std::byte> w;
  std::vector<float> x;  // tokens x kIn
  uint64_t row_bytes = 0;
};

Matrix make(TensorType type, size_t tokens) {
  gauntlet::core::Rng rng(3);
  Matrix m;
  m.row_bytes = model::row_bytes(type, kIn);
  m.w.resize(m.row_bytes * kOut);
  std::vector<float> row(kIn);
  for (uint64_t r = 0; r < kOut; ++r) {
    for (float& v : row) v = rng.uniform(-1, 1);
    model::quantize_row(type, row.data(), m.w.data() + r * m.row_bytes, kIn);
  }
  m.x.resize(tokens * kIn);
  for (float& v : m.x) v = rng.uniform(-1, 1);
  return m;
}

void report(benchmark::State& state, TensorType type, size_t tokens, const char* how) {
  state.SetBytesProcessed(static_cast<int64_t>(model::row_bytes(type, kIn) * kOut) *
                          static_cast<int64_t>(state.iterations()));
  state.counters["GFLOP/s"] = benchmark::Counter(
      2.0 * kIn * kOut * static_cast<double>(tokens) * static_cast<double>(state.iterations()),
      benchmark::Counter::kIsRate, benchmark::Counter::kIs1000);
  state.SetLabel(std::string(model::to_string(type)) + " " + how + ", " + std::to_string(tokens) +
                 " token(s), one thread, " + cpu::simd_target());
}

void BM_CpuDot(benchmark::State& state) {
  const TensorType type = kTypes[state.range(0)];
  const auto tokens = static_cast<size_t>(state.range(1));
  const Matrix m = make(type, tokens);
  reference::ThreadPool one(1);
  cpu::QuantizedActs acts;
  std::vector<float> out(tokens * kOut);
  for (auto _ : state) {
    cpu::quantize_acts(*cpu::fast_kernel_acts(type), m.x.data(), kIn, tokens, kIn, one, acts);
    cpu::fast_rows(type, m.w.data(), m.row_bytes, 0, kOut, acts, out.data(), kOut);
    benchmark::DoNotOptimize(out.data());
  }
  report(state, type, tokens, "integer SIMD");
}

// q8_0, q4_0, mxfp4 and q4_K interleaved eight rows at a time, as the loader lays them out on the
// cpu device.
void BM_CpuDotInterleaved(benchmark::State& state) {
  const TensorType type = kTypes[state.range(0)];
  const auto tokens = static_cast<size_t>(state.range(1));
  const Matrix m = make(type, tokens);
  if (!cpu::interleaved_kernels()) {
    state.SkipWithError("no interleaved kernels for this processor");
    return;
  }
  std::vector<std::byte> laid(m.w.size());
  cpu::interleave(type, m.w.data(), kOut, kIn, laid.data());
  const cpu::InterleavedMatrix w(type, kOut, kIn, laid.data());
  reference::ThreadPool one(1);
  cpu::QuantizedActs acts;
  std::vector<float> out(tokens * kOut);
  for (auto _ : state) {
    cpu::quantize_acts(*cpu::fast_kernel_acts(type), m.x.data(), kIn, tokens, kIn, one, acts);
    cpu::interleaved_rows(w, 0, kOut / cpu::kGroupRows, acts, out.data(), kOut);
    benchmark::DoNotOptimize(out.data());
  }
  report(state, type, tokens, "interleaved integer SIMD");
}

// A decode step's product from memory: 96 MiB of interleaved rows (far past the caches), one
// token, every thread, as the cpu device runs a projection; bytes per second of weights, so that
// formats compare as decode reads them (MXFP4 against Q4_0: issue 26's target).
void BM_CpuDecodeFromMemory(benchmark::State& state) {
  const TensorType type = kTypes[state.range(0)];
  if (!cpu::interleaved_kernels()) {
    state.SkipWithError("no interleaved kernels for this processor");
    return;
  }
  const uint64_t row_bytes = model::row_bytes(type, kIn);
  const uint64_t rows = (96ull << 20) / row_bytes / cpu::kGroupRows * cpu::kGroupRows;
  // 64 quantized rows repeated: the values do not change the speed.
  const Matrix seed = make(type, 1);
  std::vector<std::byte> w(rows * row_bytes), laid(w.size());
  for (uint64_t r = 0; r < rows; ++r) {
    std::copy_n(seed.w.data() + (r % 64) * row_bytes, row_bytes, w.data() + r * row_bytes);
  }
  cpu::interleave(type, w.data(), rows, kIn, laid.data());
  const cpu::InterleavedMatrix m(type, rows, kIn, laid.data());
  reference::ThreadPool pool;
  cpu::QuantizedActs acts;
  cpu::quantize_acts(*cpu::fast_kernel_acts(type), seed.x.data(), kIn, 1, kIn, pool, acts);
  std::vector<float> out(rows);
  for (auto _ : state) {
    pool.parallel_for(rows / cpu::kGroupRows, [&](uint64_t g0, uint64_t g1) {
      cpu::interleaved_rows(m, g0, g1, acts, out.data(), rows);
    });
    benchmark::DoNotOptimize(out.data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(rows * row_bytes) *
                          static_cast<int64_t>(state.iterations()));
  state.SetLabel(std::string(model::to_string(type)) +
                 " interleaved, 1 token, 96 MiB, every thread, " + cpu::simd_target());
}

// The cpu device's matvec of every weight type, as a decode step runs it: 96 MiB of rows in the
// file's layout (past the caches), one token, every thread, through the device's products (an
// integer kernel where the type has one, dot_kernels.h; the exact float products otherwise), so
// that each type's bytes per second of weights stand beside q4_0's of the same run.
void BM_CpuDeviceMatvec(benchmark::State& state) {
  const TensorType type = gauntlet::core::all_tensor_types()[state.range(0)].type;
  const uint64_t row_bytes = model::row_bytes(type, kIn);
  const uint64_t rows = (96ull << 20) / row_bytes / 64 * 64;
  // 64 quantized rows repeated: the lattice types' encoders search a grid per group of 8 and
  // would take minutes over 96 MiB; the values do not change the speed.
  gauntlet::core::Rng rng(3);
  std::vector<float> row(kIn);
  const std::vector<float> importance(kIn, 1.0f);  // iq2_xxs, iq2_xs and iq1_s need one
  std::vector<std::byte> w(rows * row_bytes);
  for (uint64_t r = 0; r < rows; ++r) {
    if (r >= 64) {
      std::copy_n(w.data() + (r % 64) * row_bytes, row_bytes, w.data() + r * row_bytes);
      continue;
    }
    for (float& v : row) v = rng.uniform(-1, 1);
    model::quantize_row(type, row.data(), w.data() + r * row_bytes, kIn, importance.data());
  }
  const model::TensorView view{type, kIn, rows, w.data()};
  std::vector<float> act(kIn + rows);
  for (uint64_t i = 0; i < kIn; ++i) act[i] = rng.uniform(-1, 1);
  reference::ThreadPool pool;
  const auto products = cpu::make_fast_products();
  const reference::MatMul op{&view, 0, kIn};
  for (auto _ : state) {
    products->matmuls(pool, act.data(), kIn + rows, 1, std::span(&op, 1));
    benchmark::DoNotOptimize(act.data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(rows * row_bytes) *
                          static_cast<int64_t>(state.iterations()));
  state.SetLabel(std::string(model::to_string(type)) +
                 (cpu::fast_kernel_acts(type) ? " integer kernel" : " exact float products") +
                 ", 1 token, 96 MiB, every thread, " + cpu::simd_target());
}

void BM_ExactDot(benchmark::State& state) {
  const TensorType type = kTypes[state.range(0)];
  const auto tokens = static_cast<size_t>(state.range(1));
  const Matrix m = make(type, tokens);
  std::vector<float> out(tokens * kIn);
  for (auto _ : state) {
    for (uint64_t r = 0; r < kOut; ++r) {
      model::dot_row_tokens(type, m.w.data() + r * m.row_bytes, m.x.data(), kIn, tokens, kIn,
                            out.data() + r);
    }
    benchmark::DoNotOptimize(out.data());
  }
  report(state, type, tokens, "exact float");
}

}  // namespace

BENCHMARK(BM_CpuDot)
    ->ArgsProduct({{0, 1, 2, 3, 4}, {1, 32}})
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();
BENCHMARK(BM_CpuDotInterleaved)
    ->ArgsProduct({{0, 1, 4, 2}, {1, 32}})  // q8_0, q4_0, mxfp4, q4_K
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();
BENCHMARK(BM_CpuDecodeFromMemory)
    ->Arg(1)  // q4_0
    ->Arg(4)  // mxfp4
    ->Arg(2)  // q4_K
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_CpuDeviceMatvec)
    ->DenseRange(0, static_cast<int64_t>(gauntlet::core::all_tensor_types().size()) - 1)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_ExactDot)
    ->ArgsProduct({{0, 1, 2, 3, 4}, {1, 32}})
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();

BENCHMARK_MAIN();
