// Passes of several tokens on the host reference: cutting a prompt into passes, sequences decoded
// together and a sliding window's ring sized for the pass all give token-by-token logits bit for
// bit (each output row is one dot product per token in the same order); how batches are cut and
// what they may not hold.
#include "engine/batch.h"

#include <cstring>

#include "engine/planner/planner.h"
#include "engine/reference/decoder.h"
#include "test_models.h"

namespace gauntlet::engine::test {
namespace {

using model::FileType;

model::ModelShape batch_shape_of(const std::string& dims) {
  auto s = model::parse_dims(dims);
  EXPECT_TRUE(s.is_ok()) << s.error().describe();
  s->name = "batch";
  return *s;
}

std::vector<int32_t> tokens_of(uint32_t n, uint32_t salt, uint32_t vocab) {
  std::vector<int32_t> p(n);
  for (uint32_t i = 0; i < n; ++i) p[i] = static_cast<int32_t>((i * 13 + salt * 7 + 1) % vocab);
  return p;
}

std::vector<BatchToken> as_batch(std::span<const int32_t> tokens, uint32_t seq = 0) {
  std::vector<BatchToken> b;
  for (int32_t t : tokens) b.push_back({t, seq, true});
  return b;
}

struct Model {
  std::vector<std::byte> bytes;
  model::LoadedModel loaded;
};

Model load(const model::ModelShape& shape, FileType format) {
  Model m{synthetic_bytes(shape, format), {}};
  auto info = model::parse_gguf(m.bytes);
  EXPECT_TRUE(info.is_ok());
  auto loaded = model::load_model(*info, m.bytes);
  EXPECT_TRUE(loaded.is_ok()) << loaded.error().describe();
  m.loaded = std::move(*loaded);
  return m;
}

std::vector<float> run(const model::LoadedModel& m, reference::DecodeOptions options,
                       std::span<const BatchToken> batch) {
  auto d = reference::Decoder::create(m, options);
  EXPECT_TRUE(d.is_ok()) << d.error().describe();
  auto logits = (*d)->forward(batch);
  EXPECT_TRUE(logits.is_ok()) << logits.error().describe();
  return logits.is_ok() ? std::vector<float>(logits->begin(), logits->end()) : std::vector<float>{};
}

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

TEST(ReferenceBatch, PassesGiveTokenByTokenLogitsBitForBit) {
  const auto shape = batch_shape_of(
      "arch=qwen2,n_embd=256,n_layer=2,n_head=4,n_head_kv=2,n_ff=256,n_vocab=64,context=160");
  const auto prompt = tokens_of(140, 1, shape.n_vocab);
  for (FileType format : {FileType::f32, FileType::q8_0, FileType::q4_K_M}) {
    SCOPED_TRACE(model::to_string(format));
    const auto m = load(shape, format);
    const auto one =
        run(m.loaded, {{.kv = planner::KvPrecision::f32, .context = 160}}, as_batch(prompt));
    ASSERT_EQ(one.size(), prompt.size() * shape.n_vocab);
    for (uint32_t micro_batch : {31u, 32u, 33u, 64u, 65u, 140u}) {
      SCOPED_TRACE("micro-batch " + std::to_string(micro_batch));
      EXPECT_TRUE(same_bits(
          run(m.loaded,
              {{.kv = planner::KvPrecision::f32, .context = 160, .micro_batch = micro_batch}},
              as_batch(prompt)),
          one));
    }
  }
}

// gemma2 (every even layer slides) with a window of 8 and passes of 12: the sliding layers' rings
// hold 8 + 12 - 1 slots, so the first token of a pass still sees its window after the pass has
// written its own K and V.
TEST(ReferenceBatch, SlidingWindowRingHoldsTheWindowOfAPass) {
  const auto shape = batch_shape_of(
      "arch=gemma2,n_embd=64,n_layer=2,n_head=2,n_head_kv=1,n_ff=64,n_vocab=32,context=64,"
      "window=8,tied=1");
  EXPECT_EQ(planner::kv_layout(shape, 64, 12).slots[0], 19u);
  EXPECT_EQ(planner::kv_layout(shape, 64, 12).slots[1], 64u);
  EXPECT_EQ(planner::kv_layout(shape, 64, 1).slots[0], 8u);
  const auto m = load(shape, FileType::f32);
  const auto prompt = tokens_of(50, 2, shape.n_vocab);
  const auto one =
      run(m.loaded, {{.kv = planner::KvPrecision::f32, .context = 64}}, as_batch(prompt));
  EXPECT_TRUE(
      same_bits(run(m.loaded, {{.kv = planner::KvPrecision::f32, .context = 64, .micro_batch = 12}},
                    as_batch(prompt)),
                one));
}

TEST(ReferenceBatch, SequencesDecodedTogetherGiveEachItsOwnResult) {
  const auto shape =
      batch_shape_of("n_embd=64,n_layer=2,n_head=4,n_head_kv=2,n_ff=128,n_vocab=48,context=32");
  const auto m = load(shape, FileType::q8_0);
  std::vector<std::vector<int32_t>> streams;
  for (uint32_t s = 0; s < 3; ++s) streams.push_back(tokens_of(10 + 3 * s, s + 3, shape.n_vocab));
  // Interleaved: token i of every sequence that still has one, in passes of up to 4 per sequence.
  std::vector<BatchToken> mixed;
  for (uint32_t i = 0; i < 16; ++i) {
    for (uint32_t s = 0; s < 3; ++s) {
      if (i < streams[s].size()) mixed.push_back({streams[s][i], s, true});
    }
  }
  const auto together = run(
      m.loaded,
      {{.kv = planner::KvPrecision::f32, .context = 32, .micro_batch = 4, .sequences = 3}}, mixed);
  ASSERT_EQ(together.size(), mixed.size() * shape.n_vocab);
  std::vector<std::vector<float>> got(3);
  for (size_t i = 0; i < mixed.size(); ++i) {
    got[mixed[i].seq].insert(got[mixed[i].seq].end(), together.begin() + i * shape.n_vocab,
                             together.begin() + (i + 1) * shape.n_vocab);
  }
  for (uint32_t s = 0; s < 3; ++s) {
    SCOPED_TRACE("sequence " + std::to_string(s));
    EXPECT_TRUE(same_bits(got[s], run(m.loaded, {{.kv = planner::KvPrecision::f32, .context = 32}},
                                      as_batch(streams[s]))));
  }
}

TEST(Batches, CutIntoPassesByCapacityAndBySequence) {
  std::vector<BatchToken> b;
  for (int i = 0; i < 10; ++i) b.push_back({i, 0, false});
  auto passes = split_into_passes(b, 4, 4);
  ASSERT_EQ(passes.size(), 3u);
  EXPECT_EQ(passes[0].end, 4u);
  EXPECT_EQ(passes[2].begin, 8u);
  EXPECT_EQ(passes[2].end, 10u);
  // Two sequences, two tokens each per pass, at most three tokens a pass.
  std::vector<BatchToken> two{{1, 0}, {2, 1}, {3, 0}, {4, 0}, {5, 1}, {6, 1}};
  passes = split_into_passes(two, 2, 3);
  ASSERT_EQ(passes.size(), 2u);
  EXPECT_EQ(passes[0].end, 3u);  // {0, 1, 0}: a fourth token would pass the capacity
  EXPECT_EQ(passes[1].end, 6u);
}

TEST(Batches, WhatABatchMayNotHoldIsNamed) {
  const std::vector<uint32_t> positions{0, 5};
  auto st = check_batch(std::vector<BatchToken>{{1, 2, false}}, 10, positions, 8);
  ASSERT_FALSE(st.is_ok());
  EXPECT_NE(st.error().message.find("sequence 2"), std::string::npos) << st.error().message;
  st = check_batch(std::vector<BatchToken>{{10, 0, false}}, 10, positions, 8);
  ASSERT_FALSE(st.is_ok());
  EXPECT_NE(st.error().message.find("token id 10"), std::string::npos) << st.error().message;
  st = check_batch(std::vector<BatchToken>{{1, 1}, {1, 1}, {1, 1}, {1, 1}}, 10, positions, 8);
  ASSERT_FALSE(st.is_ok());
  EXPECT_NE(st.error().message.find("position 8 of sequence 1"), std::string::npos)
      << st.error().message;
  EXPECT_TRUE(
      check_batch(std::vector<BatchToken>{{1, 1}, {1, 1}, {1, 1}}, 10, positions, 8).is_ok());
  EXPECT_FALSE(check_batch({}, 10, positions, 8).is_ok());
}

}  // namespace
}  // namespace gauntlet::engine::test
