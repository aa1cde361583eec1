// A qwen35 file's own MTP head (engine/mtp_head.h): its logits are llama.cpp's draft-mtp logits
// for the same pairs; drafting with it, and with a draft model, over a hybrid target (whose
// recurrent state is saved and restored around each check) gives the plain greedy tokens; a
// restored checkpoint gives the same logits again; a file without a head is refused by name.
#include "engine/mtp_head.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <string>
#include <vector>

#include "engine/reference/decoder.h"
#include "engine/speculative.h"
#include "test_models.h"

namespace gauntlet::engine::test {
namespace {

using model::FileType;

const std::string kMtpHybrid =
    "arch=qwen35,n_embd=64,n_layer=4,n_head=2,n_head_kv=1,head_dim=32,rope_dim=8,n_ff=96,"
    "n_vocab=64,context=64,ssm_state=16,ssm_groups=2,ssm_heads=4,ssm_inner=64";

std::unique_ptr<reference::Decoder> hybrid_decoder(const model::LoadedModel& m,
                                                   uint32_t micro_batch) {
  reference::DecodeOptions o{1, planner::KvPrecision::f32, m.shape.context};
  o.micro_batch = micro_batch;
  return reference::Decoder::create(m, o).value();
}

std::unique_ptr<MtpHead> head_of(const std::vector<std::byte>& bytes, const model::LoadedModel& m) {
  auto info = model::parse_gguf(bytes).value();
  auto head = MtpHead::create(info, bytes, m, m.shape.context, 1);
  EXPECT_TRUE(head.is_ok()) << head.error().describe();
  return std::move(*head);
}

std::vector<int32_t> plain_tokens(const model::LoadedModel& m, const std::vector<int32_t>& prompt,
                                  uint32_t n) {
  auto d = hybrid_decoder(m, 1);
  return reference::greedy_decode([&](int32_t t) { return d->step(t); }, prompt, n).value();
}

// llama.cpp 3.22.1 (fixtures/llama_cpp_logits/README.md) ran its MTP context over the prompt's
// pairs: token p beside the target's t_h_nextn of p - 1 (zeros for the first). The head, fed the
// same pairs one at a time beside the reference's hiddens, gives its logits.
TEST(MtpHead, LogitsAreLlamaCppsDraftMtp) {
  const auto bytes = synthetic_bytes(shape_of(kMtpHybrid + ",nextn=1", true), FileType::f32, 7);
  const auto m = load(bytes);
  const std::vector<int32_t> prompt = {1, 7, 42, 3, 9, 60, 2, 5};
  auto target = hybrid_decoder(m, 8);
  ASSERT_TRUE(target->keep_final_residuals(true));
  std::vector<BatchToken> batch;
  for (int32_t t : prompt) batch.push_back({t, 0, false});
  ASSERT_TRUE(target->forward(batch).is_ok());
  auto head = head_of(bytes, m);
  const auto hidden = head->target_hidden(target->final_residuals());
  ASSERT_EQ(hidden.size(), prompt.size() * 64);

  std::ifstream in(std::string(GAUNTLET_SOURCE_DIR) +
                       "/tests/engine/fixtures/llama_cpp_logits/mtp_head_pairs.f32",
                   std::ios::binary);
  std::vector<float> want(prompt.size() * 64);
  in.read(reinterpret_cast<char*>(want.data()), static_cast<std::streamsize>(want.size() * 4));
  ASSERT_EQ(in.gcount(), static_cast<std::streamsize>(want.size() * 4));
  for (size_t p = 0; p < prompt.size(); ++p) {
    SCOPED_TRACE("position " + std::to_string(p));
    std::vector<float> h(64, 0.0f);
    if (p > 0) h.assign(hidden.begin() + (p - 1) * 64, hidden.begin() + p * 64);
    auto logits = head->run({&prompt[p], 1}, h, static_cast<uint32_t>(p));
    ASSERT_TRUE(logits.is_ok()) << logits.error().describe();
    ASSERT_EQ(logits->size(), 64u);
    double err = 0, norm = 0;
    for (size_t i = 0; i < 64; ++i) {
      const double d = double{(*logits)[i]} - want[p * 64 + i];
      err += d * d;
      norm += double{want[p * 64 + i]} * want[p * 64 + i];
    }
    EXPECT_LT(err / norm, 1e-11);  // 6.6e-13 at most when written
  }
}

TEST(MtpHead, DraftsOverAHybridTargetGiveThePlainGreedyTokens) {
  const auto bytes = synthetic_bytes(shape_of(kMtpHybrid + ",nextn=1", true), FileType::f32, 7);
  const auto m = load(bytes);
  const std::vector<int32_t> prompt = {1, 7, 42, 3};
  const auto want = plain_tokens(m, prompt, 56);  // 59 of the context's 64 positions
  for (uint32_t draft_max : {1u, 4u}) {
    SCOPED_TRACE("draft-max " + std::to_string(draft_max));
    auto target = hybrid_decoder(m, draft_max + 1);
    auto head = head_of(bytes, m);
    SpeculativeStats stats;
    auto got = speculative_mtp(*target, *head, prompt, 56, 64, {draft_max, 0}, stats);
    ASSERT_TRUE(got.is_ok()) << got.error().describe();
    EXPECT_EQ(*got, want);
    EXPECT_GT(stats.drafted, stats.accepted);  // some drafts rejected: the state went back
    EXPECT_GT(stats.checks, 0u);
  }
  // A draft model over the same hybrid target: one that rewinds (the same vocabulary without
  // recurrent layers), of other weights, so that most drafts are rejected.
  const auto draft_bytes = synthetic_bytes(
      shape_of("n_embd=64,n_layer=2,n_head=2,n_head_kv=1,n_ff=96,n_vocab=64,context=64", true),
      FileType::f32, 3);
  const auto draft = load(draft_bytes);
  auto target = hybrid_decoder(m, 5);
  auto d = hybrid_decoder(draft, 1);
  SpeculativeStats stats;
  auto got = speculative_greedy(*target, *d, prompt, 56, 64, {4, 0}, stats);
  ASSERT_TRUE(got.is_ok()) << got.error().describe();
  EXPECT_EQ(*got, want);
  EXPECT_GT(stats.drafted, stats.accepted);
}

TEST(MtpHead, ARestoredCheckpointGivesTheSameLogitsAgain) {
  const auto bytes = synthetic_bytes(shape_of(kMtpHybrid, true), FileType::f32, 7);
  const auto m = load(bytes);
  auto d = hybrid_decoder(m, 4);
  for (int32_t t : {1, 7, 42}) ASSERT_TRUE(d->step(t).is_ok());
  auto saved = d->checkpoint();
  ASSERT_TRUE(saved.is_ok()) << saved.error().describe();
  EXPECT_EQ(saved->positions, std::vector<uint32_t>{3});
  EXPECT_FALSE(saved->state.empty());
  const auto first = d->step(3).value();
  const std::vector<float> want(first.begin(), first.end());
  for (int32_t t : {11, 12, 13}) ASSERT_TRUE(d->step(t).is_ok());
  ASSERT_TRUE(d->restore(*saved).is_ok());
  EXPECT_EQ(d->position(), 3u);
  const auto again = d->step(3).value();
  EXPECT_EQ(std::vector<float>(again.begin(), again.end()), want);
  DecoderCheckpoint other{{0, 0}, {}};
  EXPECT_FALSE(d->restore(other).is_ok());
}

TEST(MtpHead, AFileWithoutAHeadIsRefusedByName) {
  const auto bytes = synthetic_bytes(shape_of(kMtpHybrid, true), FileType::f32, 7);
  const auto m = load(bytes);
  auto info = model::parse_gguf(bytes).value();
  auto refused = MtpHead::create(info, bytes, m, 64, 1);
  ASSERT_FALSE(refused.is_ok());
  EXPECT_NE(refused.error().message.find("no MTP head"), std::string::npos)
      << refused.error().message;
  EXPECT_NE(refused.error().message.find("nextn_predict_layers 0"), std::string::npos);

  // A head whose optional shared output is not {n_embd, n_vocab}: refused by the tensor's name,
  // where reading it as the head's output would run past its rows.
  auto w = *model::synthetic_writer(shape_of(kMtpHybrid + ",nextn=1", true), FileType::f32, 7);
  w.add_tensor("blk.4.nextn.shared_head_head.weight", {64, 8}, model::TensorType::f32,
               [](uint64_t, float* out) { std::fill_n(out, 64, 0.5f); });
  const auto bad = w.to_bytes().value();
  const auto bad_model = load(bad);
  auto bad_info = model::parse_gguf(bad).value();
  auto wrong = MtpHead::create(bad_info, bad, bad_model, 64, 1);
  ASSERT_FALSE(wrong.is_ok());
  EXPECT_NE(wrong.error().message.find("nextn tensor 'nextn.shared_head_head.weight'"),
            std::string::npos)
      << wrong.error().message;
}

}  // namespace
}  // namespace gauntlet::engine::test
