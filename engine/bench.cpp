#include "engine/bench.h"

#include <chrono>
#include <cmath>
#include <functional>

namespace gauntlet::engine {

std::string BenchTest::name() const {
  return n_prompt != 0 ? "pp" + std::to_string(n_prompt) : "tg" + std::to_string(n_gen);
}

std::vector<BenchTest> bench_tests(const std::vector<uint32_t>& n_prompt,
                                   const std::vector<uint32_t>& n_gen) {
  std::vector<BenchTest> tests;
  for (uint32_t n : n_prompt) {
    if (n != 0) tests.push_back({n, 0});
  }
  for (uint32_t n : n_gen) {
    if (n != 0) tests.push_back({0, n});
  }
  return tests;
}

double mean(const std::vector<double>& values) {
  if (values.empty()) return 0;
  double sum = 0;
  for (double v : values) sum += v;
  return sum / static_cast<double>(values.size());
}

double sample_stddev(const std::vector<double>& values) {
  if (values.size() < 2) return 0;
  const double m = mean(values);
  double sq = 0;
  for (double v : values) sq += (v - m) * (v - m);
  return std::sqrt(sq / static_cast<double>(values.size() - 1));
}

core::Result<BenchResult> run_bench_test(Decoder& decoder, uint32_t n_vocab, const BenchTest& test,
                                         uint32_t repetitions, const BenchProgress& progress) {
  auto time_once = [&](bool warm_up) {
    if (test.n_prompt != 0) return time_prompt(decoder, n_vocab, test.n_prompt);
    return time_generation(decoder, n_vocab, warm_up ? 1 : test.n_gen);
  };
  return run_bench_test(time_once, test, repetitions, progress);
}

namespace {

// tg<n_gen> from one token: `generate` (which empties the caches it uses) over the time.
using Generate = std::function<core::Result<std::vector<int32_t>>(std::span<const int32_t>)>;
TimedRun timed_generation(uint32_t n_vocab, uint32_t n_gen, Generate generate) {
  return [n_vocab, n_gen, generate = std::move(generate)](bool) -> core::Result<SpeedSample> {
    const std::vector<int32_t> prompt = bench_tokens(1, n_vocab);
    const auto start = std::chrono::steady_clock::now();
    auto tokens = generate(prompt);
    if (!tokens) return tokens.error();
    return SpeedSample{
        n_gen, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()};
  };
}

}  // namespace

TimedRun speculative_generation(Decoder& target, Decoder& draft, uint32_t n_vocab, uint32_t n_gen,
                                const SpeculativeOptions& options, SpeculativeStats& stats) {
  return timed_generation(
      n_vocab, n_gen, [&target, &draft, &stats, n_vocab, n_gen, options](auto prompt) {
        target.reset();
        draft.reset();
        return speculative_greedy(target, draft, prompt, n_gen, n_vocab, options, stats);
      });
}

TimedRun mtp_generation(Decoder& target, MtpHead& head, uint32_t n_vocab, uint32_t n_gen,
                        const SpeculativeOptions& options, SpeculativeStats& stats) {
  return timed_generation(
      n_vocab, n_gen, [&target, &head, &stats, n_vocab, n_gen, options](auto prompt) {
        target.reset();
        return speculative_mtp(target, head, prompt, n_gen, n_vocab, options, stats);
      });
}

core::Result<BenchResult> run_bench_test(const TimedRun& time_once, const BenchTest& test,
                                         uint32_t repetitions, const BenchProgress& progress) {
  if (test.tokens() == 0) {
    return core::make_error(core::ErrorKind::invalid_argument, "a test of 0 tokens");
  }
  if (repetitions == 0) {
    return core::make_error(core::ErrorKind::invalid_argument, "0 repetitions");
  }
  if (progress) progress(test, 0, 0);
  auto warm_up = time_once(true);
  if (!warm_up) return warm_up.error();
  BenchResult result;
  result.test = test;
  for (uint32_t r = 1; r <= repetitions; ++r) {
    auto sample = time_once(false);
    if (!sample) return sample.error();
    result.samples_ts.push_back(sample->tokens_per_second());
    if (progress) progress(test, r, result.samples_ts.back());
  }
  result.avg_ts = mean(result.samples_ts);
  result.stddev_ts = sample_stddev(result.samples_ts);
  return result;
}

}  // namespace gauntlet::engine
