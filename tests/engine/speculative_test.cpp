// Greedy speculative decoding on the host reference: whatever the draft proposes, the tokens are
// the target's own greedy tokens; a draft that is the target is always accepted, one of another
// seed rarely; drafts of 1 and of more than the tokens left; a draft-min above what is left makes
// the target step alone; rewinding a decoder takes its next position back, and a model with
// recurrent layers refuses it.
#include "engine/speculative.h"

#include <gtest/gtest.h>

#include <vector>

#include "engine/reference/decoder.h"
#include "test_models.h"

namespace gauntlet::engine::test {
namespace {

using model::FileType;

const std::string kTarget =
    "n_embd=128,n_layer=3,n_head=4,n_head_kv=2,n_ff=256,n_vocab=256,context=128";

std::unique_ptr<reference::Decoder> decoder_of(const model::LoadedModel& m, uint32_t micro_batch) {
  reference::DecodeOptions o{1, planner::KvPrecision::f32, m.shape.context};
  o.micro_batch = micro_batch;
  return reference::Decoder::create(m, o).value();
}

std::vector<int32_t> plain(const model::LoadedModel& m, const std::vector<int32_t>& prompt,
                           uint32_t n) {
  auto d = decoder_of(m, 1);
  return reference::greedy_decode([&](int32_t t) { return d->step(t); }, prompt, n).value();
}

TEST(Speculative, TokensAreTheTargetsWhateverTheDraft) {
  const auto target_bytes = synthetic_bytes(shape_of(kTarget, true), FileType::f32, 1);
  const auto other_bytes = synthetic_bytes(shape_of(kTarget, true), FileType::f32, 9);
  const auto target = load(target_bytes), other = load(other_bytes);
  const std::vector<int32_t> prompt = {1, 7, 42, 3};
  const auto want = plain(target, prompt, 40);
  struct Case {
    const model::LoadedModel* draft;
    SpeculativeOptions options;
  };
  const Case cases[] = {
      {&target, {8, 0}}, {&other, {8, 0}}, {&target, {1, 0}}, {&other, {64, 0}}, {&target, {8, 8}}};
  for (const auto& c : cases) {
    SCOPED_TRACE(std::to_string(c.options.draft_max) + "/" + std::to_string(c.options.draft_min) +
                 (c.draft == &target ? " self" : " other"));
    auto t = decoder_of(target, c.options.draft_max + 1);
    auto d = decoder_of(*c.draft, 1);
    SpeculativeStats stats;
    auto got = speculative_greedy(*t, *d, prompt, 40, 256, c.options, stats);
    ASSERT_TRUE(got.is_ok()) << got.error().describe();
    EXPECT_EQ(*got, want);
    EXPECT_GT(stats.drafted, 0u);
    if (c.draft == &target) {
      EXPECT_EQ(stats.accepted, stats.drafted);  // the target agrees with itself
    } else {
      EXPECT_LT(stats.acceptance(), 0.5);  // another model's weights rarely pick the same
    }
  }
}

TEST(Speculative, RewindTakesThePositionBackAndRecurrentModelsRefuse) {
  const auto bytes = synthetic_bytes(shape_of(kTarget, true), FileType::f32, 1);
  const auto m = load(bytes);
  auto d = decoder_of(m, 1);
  for (int32_t t : {1, 2, 3, 4}) ASSERT_TRUE(d->step(t).is_ok());
  ASSERT_TRUE(d->rewind(0, 2).is_ok());
  EXPECT_EQ(d->position(), 2u);
  ASSERT_TRUE(d->rewind(0, 3).is_ok());  // never forward
  EXPECT_EQ(d->position(), 2u);
  EXPECT_FALSE(d->rewind(1, 0).is_ok());  // a sequence it does not have
  const auto hybrid = synthetic_bytes(
      shape_of("arch=nemotron_h,n_embd=64,n_layer=3,n_head=4,n_head_kv=2,n_ff=128,n_vocab=64,"
               "context=64,layers=M*-",
               true),
      FileType::f32);
  const auto hm = load(hybrid);
  auto h = decoder_of(hm, 1);
  ASSERT_TRUE(h->step(1).is_ok());
  ASSERT_TRUE(h->step(2).is_ok());
  auto refused = h->rewind(0, 1);
  ASSERT_FALSE(refused.is_ok());
  EXPECT_NE(refused.error().message.find("recurrent"), std::string::npos);
}

}  // namespace
}  // namespace gauntlet::engine::test
