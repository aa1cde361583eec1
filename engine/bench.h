#pragma once
// llama-bench's measurement over any decoder: each test (pp<N>: one prompt of N tokens; tg<N>: N
// tokens generated one at a time) runs once untimed as a warm-up (the whole prompt for pp, one
// token for tg, as llama-bench warms up), then `repetitions` timed times from an empty KV cache;
// the result is each repetition's tokens per second, their mean and their sample standard
// deviation.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/status.h"
#include "engine/speculative.h"
#include "engine/speed.h"

namespace gauntlet::engine {

struct BenchTest {
  uint32_t n_prompt = 0;  // pp<n_prompt> when set
  uint32_t n_gen = 0;     // tg<n_gen> when set (one of the two is)
  std::string name() const;
  uint32_t tokens() const { return n_prompt != 0 ? n_prompt : n_gen; }
};

// The tests of llama-bench's -p and -n lists: every prompt size, then every generation size; a 0
// is skipped.
std::vector<BenchTest> bench_tests(const std::vector<uint32_t>& n_prompt,
                                   const std::vector<uint32_t>& n_gen);

struct BenchResult {
  BenchTest test;
  std::vector<double> samples_ts;  // tokens per second of each repetition
  double avg_ts = 0;
  double stddev_ts = 0;  // sample standard deviation (n - 1); 0 for one repetition
};

// Mean and sample standard deviation, as llama-bench computes them.
double mean(const std::vector<double>& values);
double sample_stddev(const std::vector<double>& values);

// Called before the warm-up (repetition 0) and after each timed repetition (1..n) with its tok/s.
using BenchProgress = std::function<void(const BenchTest&, uint32_t repetition, double ts)>;

core::Result<BenchResult> run_bench_test(Decoder& decoder, uint32_t n_vocab, const BenchTest& test,
                                         uint32_t repetitions, const BenchProgress& progress = {});

// The same protocol over any timed work: `time_once(warm_up)` runs the test once (the warm-up
// shorter where it can be).
using TimedRun = std::function<core::Result<SpeedSample>(bool warm_up)>;
core::Result<BenchResult> run_bench_test(const TimedRun& time_once, const BenchTest& test,
                                         uint32_t repetitions, const BenchProgress& progress = {});

// tg<n_gen> with a draft proposing (speculative.h): from one token, both caches empty, the
// generated tokens over the time; each run's drafted and accepted tokens added to `stats`.
TimedRun speculative_generation(Decoder& target, Decoder& draft, uint32_t n_vocab, uint32_t n_gen,
                                const SpeculativeOptions& options, SpeculativeStats& stats);
// The same with the model file's own MTP head drafting (speculative_mtp).
TimedRun mtp_generation(Decoder& target, MtpHead& head, uint32_t n_vocab, uint32_t n_gen,
                        const SpeculativeOptions& options, SpeculativeStats& stats);

}  // namespace gauntlet::engine
