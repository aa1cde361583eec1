// engine/bench: llama-bench's tests, warm-up and statistics over a decoder that only counts what
// it is fed.
#include "engine/bench.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <thread>

namespace gauntlet::engine {
namespace {

struct CountingDecoder final : Decoder {
  uint32_t calls = 0, tokens = 0, resets = 0;
  bool fail = false;
  std::vector<float> logits = std::vector<float>(8, 0.0f);

  core::Result<std::span<const float>> forward(std::span<const BatchToken> batch) override {
    if (fail) return core::make_error(core::ErrorKind::device_lost, "lost");
    ++calls;
    tokens += static_cast<uint32_t>(batch.size());
    std::this_thread::sleep_for(std::chrono::microseconds(200));
    return std::span<const float>(logits);
  }
  void reset() override { ++resets; }
  uint32_t position(uint32_t) const override { return 0; }
  uint32_t n_vocab() const { return static_cast<uint32_t>(logits.size()); }
};

TEST(Bench, TestsArePromptsThenGenerationsWithoutZeros) {
  const auto tests = bench_tests({512, 0, 64}, {0, 128});
  ASSERT_EQ(tests.size(), 3u);
  EXPECT_EQ(tests[0].name(), "pp512");
  EXPECT_EQ(tests[1].name(), "pp64");
  EXPECT_EQ(tests[2].name(), "tg128");
  EXPECT_EQ(tests[2].n_prompt, 0u);
  EXPECT_EQ(tests[2].n_gen, 128u);
  EXPECT_TRUE(bench_tests({0}, {0}).empty());
}

TEST(Bench, MeanAndSampleStandardDeviation) {
  EXPECT_DOUBLE_EQ(mean({1, 2, 3, 4}), 2.5);
  EXPECT_NEAR(sample_stddev({1, 2, 3, 4}), std::sqrt(5.0 / 3.0), 1e-12);
  EXPECT_EQ(sample_stddev({7}), 0.0);
  EXPECT_EQ(mean({}), 0.0);
}

TEST(Bench, PromptWarmsUpOnceThenTimesEachRepetitionFromAnEmptyCache) {
  CountingDecoder d;
  auto r = run_bench_test(d, d.n_vocab(), {16, 0}, 3);
  ASSERT_TRUE(r) << r.error().describe();
  EXPECT_EQ(d.calls, 4u);  // the whole prompt in one forward call, warm-up + 3
  EXPECT_EQ(d.tokens, 4u * 16);
  EXPECT_EQ(d.resets, 4u);
  ASSERT_EQ(r->samples_ts.size(), 3u);
  for (double s : r->samples_ts) EXPECT_GT(s, 0.0);
  EXPECT_DOUBLE_EQ(r->avg_ts, mean(r->samples_ts));
  EXPECT_DOUBLE_EQ(r->stddev_ts, sample_stddev(r->samples_ts));
}

TEST(Bench, GenerationWarmsUpWithOneToken) {
  CountingDecoder d;
  std::vector<uint32_t> seen;
  auto r = run_bench_test(d, d.n_vocab(), {0, 5}, 2,
                          [&](const BenchTest&, uint32_t rep, double) { seen.push_back(rep); });
  ASSERT_TRUE(r) << r.error().describe();
  EXPECT_EQ(d.calls, 1u + 2 * 5);
  EXPECT_EQ(d.resets, 3u);
  EXPECT_EQ(seen, (std::vector<uint32_t>{0, 1, 2}));
  EXPECT_EQ(r->test.name(), "tg5");
}

TEST(Bench, ErrorsAreReturned) {
  CountingDecoder d;
  EXPECT_FALSE(run_bench_test(d, d.n_vocab(), {16, 0}, 0));
  EXPECT_FALSE(run_bench_test(d, d.n_vocab(), {0, 0}, 1));
  d.fail = true;
  auto r = run_bench_test(d, d.n_vocab(), {0, 4}, 1);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, core::ErrorKind::device_lost);
}

}  // namespace
}  // namespace gauntlet::engine
