// Speculative decoding's verdict on a profile (run -md) and the line every renderer prints of it.
#include "harness/speculation.h"

#include <gtest/gtest.h>

#include "reports/speculation_lines.h"

namespace gauntlet::harness {
namespace {

constexpr const char* kProfile = "Q8_0/f32/kv-f32/wg64-whole/ctx256/b1";

std::vector<Candidate> two_safe_profiles() {
  std::vector<Candidate> candidates(2);
  candidates[0].profile.name = kProfile;
  candidates[1].profile.name = "Q8_0/f32/kv-f16/wg64-whole/ctx256/b1";
  for (auto& c : candidates) c.profile.verdict = reports::ProfileVerdict::safe;
  return candidates;
}

reports::SpeculationResult checked(bool tokens_match) {
  reports::SpeculationResult r;
  r.draft = "/models/draft.gguf";
  r.profile = kProfile;
  r.tokens = 64;
  r.tokens_match = tokens_match;
  r.first_difference = tokens_match ? 64 : 12;
  r.drafted = 60;
  r.accepted = 41;
  r.plain_tok_s = 40.3;
  r.speculative_tok_s = 52.1;
  return r;
}

TEST(Speculation, TokensThatDifferMakeTheProfileUnsafeNamingWhere) {
  auto candidates = two_safe_profiles();
  apply_speculation(checked(false), candidates);
  const auto& p = candidates[0].profile;
  EXPECT_EQ(p.verdict, reports::ProfileVerdict::unsafe);
  EXPECT_EQ(
      p.reason,
      "speculative decoding with the draft draft.gguf changed the greedy tokens from token 12");
  ASSERT_TRUE(p.cause.has_value());
  EXPECT_EQ(p.cause->key, "mismatch");
  EXPECT_EQ(p.cause->subject, "speculative");
  EXPECT_EQ(p.cause->figures.at("first_difference"), 12.0);
  EXPECT_EQ(candidates[1].profile.verdict, reports::ProfileVerdict::safe);
  EXPECT_EQ(reports::detail::speculation_lines(checked(false)).at(0),
            "speculative: draft draft.gguf on Q8_0/f32/kv-f32/wg64-whole/ctx256/b1: greedy tokens "
            "differ from token 12 of 64: the profile is unsafe");
}

TEST(Speculation, TheSameTokensLeaveTheVerdictsAndTheLineSaysAcceptanceAndSpeedUp) {
  auto candidates = two_safe_profiles();
  apply_speculation(checked(true), candidates);
  EXPECT_EQ(candidates[0].profile.verdict, reports::ProfileVerdict::safe);
  EXPECT_EQ(reports::detail::speculation_lines(checked(true)).at(0),
            "speculative: draft draft.gguf on Q8_0/f32/kv-f32/wg64-whole/ctx256/b1: 64 greedy "
            "tokens the same as without it; 41 of 60 drafted accepted (68 %); 52.1 tok/s against "
            "40.3 (1.29x)");

  auto not_run = checked(false);
  not_run.error = "no safe profile of the whole model on the device to decode with";
  apply_speculation(not_run, candidates);
  EXPECT_EQ(candidates[0].profile.verdict, reports::ProfileVerdict::safe);
  EXPECT_EQ(reports::detail::speculation_lines(not_run).at(0),
            "speculative: not run: no safe profile of the whole model on the device to decode "
            "with");
  EXPECT_TRUE(reports::detail::speculation_lines(std::nullopt).empty());
}

}  // namespace
}  // namespace gauntlet::harness
