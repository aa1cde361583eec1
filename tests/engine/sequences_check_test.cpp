// A profile check of sequences decoded together feeds their prompts position by position, so that
// a micro-batch of one still gives passes that hold a token of every sequence; a check's greedy
// tokens may part from the reference's only at a near tie, and logits beyond the bound fail it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "engine/device/profile_check.h"
#include "engine/loader/loader.h"
#include "engine/model/synthetic.h"
#include "engine/reference/decoder.h"
#include "tests/support/temp_dir.h"

namespace gauntlet::engine::test {
namespace {

// The host reference, recording the sequence of every token each forward is given.
class RecordingDecoder : public Decoder {
 public:
  explicit RecordingDecoder(std::unique_ptr<reference::Decoder> inner) : inner_(std::move(inner)) {}
  core::Result<std::span<const float>> forward(std::span<const BatchToken> batch) override {
    auto& seqs = batches.emplace_back();
    for (const auto& t : batch) seqs.push_back(t.seq);
    return inner_->forward(batch);
  }
  void reset() override { inner_->reset(); }
  uint32_t position(uint32_t seq) const override { return inner_->position(seq); }
  std::vector<std::vector<uint32_t>> batches;

 private:
  std::unique_ptr<reference::Decoder> inner_;
};

// A one-layer Q8_0 model of 64 tokens written at `path` and opened, its weights loaded for the
// host reference.
void make_tiny_model(const std::filesystem::path& path, std::unique_ptr<model::GgufFile>& file,
                     model::LoadedModel& host) {
  auto shape = model::parse_dims("n_embd=64,n_layer=1,n_head=2,n_ff=128,n_vocab=64,context=32");
  ASSERT_TRUE(shape.is_ok());
  ASSERT_TRUE(model::write_synthetic_model(*shape, model::FileType::q8_0, 3, path, true).is_ok());
  auto opened = model::GgufFile::open(path);
  ASSERT_TRUE(opened.is_ok());
  file = std::move(*opened);
  auto loaded = model::load_model(file->info(), file->bytes());
  ASSERT_TRUE(loaded.is_ok());
  host = std::move(*loaded);
}

TEST(SequencesCheck, FeedsThePromptsPositionByPosition) {
  gauntlet::testing::TempDir dir("sequences-check");
  std::unique_ptr<model::GgufFile> file;
  model::LoadedModel host;
  ASSERT_NO_FATAL_FAILURE(make_tiny_model(dir.path() / "m.gguf", file, host));
  const uint32_t sequences = 3, prompt = 4, steps = 3;
  auto inner = reference::Decoder::create(
      host, {{.kv = planner::KvPrecision::f32, .context = 32, .sequences = sequences}});
  ASSERT_TRUE(inner.is_ok());
  RecordingDecoder tested(std::move(*inner));
  auto r = device::compare_with_reference(
      tested, *file,
      {planner::KvPrecision::f32, planner::ActivationType::f32, 32, 1, sequences, prompt, steps});
  ASSERT_TRUE(r.is_ok()) << r.error().describe();
  EXPECT_TRUE(r->reason.empty()) << r->reason;
  EXPECT_EQ(r->device_tokens, r->host_tokens);
  EXPECT_EQ(r->device_tokens.size(), size_t{sequences * steps});

  // The prompts' forward: 0 1 2 0 1 2 ..., then each step one token of each sequence.
  std::vector<uint32_t> position_major;
  for (uint32_t i = 0; i < prompt; ++i) {
    for (uint32_t s = 0; s < sequences; ++s) position_major.push_back(s);
  }
  auto at = std::find(tested.batches.begin(), tested.batches.end(), position_major);
  ASSERT_NE(at, tested.batches.end()) << "no forward held the prompts position by position";
  ASSERT_EQ(tested.batches.end() - at, steps);  // the prompts, then steps - 1 passes
  for (++at; at != tested.batches.end(); ++at) {
    EXPECT_EQ(*at, (std::vector<uint32_t>{0, 1, 2}));
  }
}

// The host reference with the logits of each one-token pass handed to alter() first.
class AlteredDecoder : public Decoder {
 public:
  explicit AlteredDecoder(std::unique_ptr<reference::Decoder> inner) : inner_(std::move(inner)) {}
  core::Result<std::span<const float>> forward(std::span<const BatchToken> batch) override {
    auto logits = inner_->forward(batch);
    if (!logits || batch.size() != 1) return logits;
    own_.assign(logits->begin(), logits->end());
    const auto best =
        static_cast<size_t>(std::max_element(own_.begin(), own_.end()) - own_.begin());
    double sum = 0;
    for (float x : own_) sum += static_cast<double>(x) * x;
    const double rms = std::sqrt(sum / static_cast<double>(own_.size()));
    if (!alter(own_, best, rms)) return logits;
    return std::span<const float>(own_);
  }
  void reset() override { inner_->reset(); }
  uint32_t position(uint32_t seq) const override { return inner_->position(seq); }

 protected:
  // Changes one pass's logits (`best`: the greedy token, `rms`: the logits' RMS); false keeps
  // the pass as it was.
  virtual bool alter(std::vector<float>& logits, size_t best, double rms) = 0;

 private:
  std::unique_ptr<reference::Decoder> inner_;
  std::vector<float> own_;
};

// The host reference, but at one generated step another token is made the greedy one (its logit
// raised just past the best): the first step whose runner-up lies within `near` times the logits'
// RMS of the best (a near tie), or with `near` 0 the first step, the worst token (a far parting).
class PartingDecoder : public AlteredDecoder {
 public:
  PartingDecoder(std::unique_ptr<reference::Decoder> inner, double near)
      : AlteredDecoder(std::move(inner)), near_(near) {}
  void reset() override {
    AlteredDecoder::reset();
    parted_at = -1;
    steps_ = 0;
  }
  int parted_at = -1;

 private:
  bool alter(std::vector<float>& logits, size_t best, double rms) override {
    if (parted_at >= 0) return false;
    std::vector<float> others = logits;
    others[best] = -INFINITY;
    auto target =
        static_cast<size_t>(std::max_element(others.begin(), others.end()) - others.begin());
    if (near_ == 0) {
      target = static_cast<size_t>(std::min_element(logits.begin(), logits.end()) - logits.begin());
    } else if (logits[best] - logits[target] > near_ * rms) {
      ++steps_;
      return false;
    }
    logits[target] = logits[best] + 1e-4f * static_cast<float>(rms);
    parted_at = steps_++;
    return true;
  }
  double near_;
  int steps_ = 0;
};

// The host reference, but every logit of a one-token pass but the best lowered by `shift` times
// the logits' RMS: the greedy tokens stay the reference's, the logits move by about `shift`^2 in
// NMSE.
class ShiftingDecoder : public AlteredDecoder {
 public:
  ShiftingDecoder(std::unique_ptr<reference::Decoder> inner, double shift)
      : AlteredDecoder(std::move(inner)), shift_(shift) {}

 private:
  bool alter(std::vector<float>& logits, size_t best, double rms) override {
    const auto by = static_cast<float>(shift_ * rms);
    for (size_t i = 0; i < logits.size(); ++i) {
      if (i != best) logits[i] -= by;
    }
    return true;
  }
  double shift_;
};

TEST(ProfileCheck, GreedyTokensMayPartOnlyAtANearTie) {
  gauntlet::testing::TempDir dir("near-tie");
  std::unique_ptr<model::GgufFile> file;
  model::LoadedModel host;
  ASSERT_NO_FATAL_FAILURE(make_tiny_model(dir.path() / "m.gguf", file, host));
  // The cpu device's bound (8-bit activations, NMSE 1e-2): the error scale is 0.1 of the RMS.
  const device::PassSpec spec{
      planner::KvPrecision::f32, planner::ActivationType::f32, 32, 1, 1, 4, 24, true};
  for (const double near : {0.1, 0.0}) {
    auto inner = reference::Decoder::create(
        host, {{.kv = planner::KvPrecision::f32, .context = 32, .micro_batch = 4}});
    ASSERT_TRUE(inner.is_ok());
    PartingDecoder tested(std::move(*inner), near);
    auto r = device::compare_with_reference(tested, *file, spec);
    ASSERT_TRUE(r.is_ok()) << r.error().describe();
    ASSERT_GE(tested.parted_at, 0) << "no step parted (near " << near << ")";
    EXPECT_FALSE(r->tokens_match);
    if (near > 0) {
      EXPECT_TRUE(r->reason.empty()) << r->reason;
      EXPECT_NE(r->note.find("near tie"), std::string::npos) << r->note;
    } else {
      EXPECT_NE(r->reason.find("greedy tokens differ"), std::string::npos) << r->reason;
      EXPECT_TRUE(r->note.empty()) << r->note;
    }
  }
}

// Greedy tokens that agree are not enough: logits beyond the configuration's bound (f32: 1e-6)
// fail the check, and the same shift far inside it passes.
TEST(ProfileCheck, LogitsBeyondTheBoundFailWhereTheTokensAgree) {
  gauntlet::testing::TempDir dir("logits-bound");
  std::unique_ptr<model::GgufFile> file;
  model::LoadedModel host;
  ASSERT_NO_FATAL_FAILURE(make_tiny_model(dir.path() / "m.gguf", file, host));
  const device::PassSpec spec{
      planner::KvPrecision::f32, planner::ActivationType::f32, 32, 1, 1, 4, 8};
  for (const double shift : {1e-2, 1e-5}) {
    SCOPED_TRACE(shift);
    auto inner = reference::Decoder::create(
        host, {{.kv = planner::KvPrecision::f32, .context = 32, .micro_batch = 4}});
    ASSERT_TRUE(inner.is_ok());
    ShiftingDecoder tested(std::move(*inner), shift);
    auto r = device::compare_with_reference(tested, *file, spec);
    ASSERT_TRUE(r.is_ok()) << r.error().describe();
    EXPECT_TRUE(r->tokens_match);
    EXPECT_DOUBLE_EQ(r->nmse_bound, 1e-6);
    if (shift > 1e-3) {
      EXPECT_GT(r->logits_nmse, 1e-5);
      EXPECT_NE(r->reason.find("> bound 1.00e-06"), std::string::npos) << r->reason;
    } else {
      EXPECT_LT(r->logits_nmse, 1e-8);
      EXPECT_TRUE(r->reason.empty()) << r->reason;
    }
  }
}

}  // namespace
}  // namespace gauntlet::engine::test
