// A profile check of sequences decoded together feeds their prompts position by position, so that
// a micro-batch of one still gives passes that hold a token of every sequence.
#include <gtest/gtest.h>

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

TEST(SequencesCheck, FeedsThePromptsPositionByPosition) {
  gauntlet::testing::TempDir dir("sequences-check");
  auto shape = model::parse_dims("n_embd=64,n_layer=1,n_head=2,n_ff=128,n_vocab=64,context=32");
  ASSERT_TRUE(shape.is_ok());
  const auto path = dir.path() / "m.gguf";
  ASSERT_TRUE(model::write_synthetic_model(*shape, model::FileType::q8_0, 3, path, true).is_ok());
  auto file = model::GgufFile::open(path);
  ASSERT_TRUE(file.is_ok());
  auto host = model::load_model((*file)->info(), (*file)->bytes());
  ASSERT_TRUE(host.is_ok());
  const uint32_t sequences = 3, prompt = 4, steps = 3;
  auto inner = reference::Decoder::create(*host, {0, planner::KvPrecision::f32, 32, sequences, 1});
  ASSERT_TRUE(inner.is_ok());
  RecordingDecoder tested(std::move(*inner));
  auto r = device::compare_with_reference(
      tested, **file,
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

}  // namespace
}  // namespace gauntlet::engine::test
