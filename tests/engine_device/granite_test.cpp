// Granite 3.x (granite) on the device against the host reference: attention layers with Granite's
// multipliers (the embedding times 12, each branch times 0.22 before its residual add, the
// attention's own scale, the logits over 16), dense and with experts beside a shared one: greedy
// tokens and logits in F32, Q8_0 and Q4_K_M, and every token's logits in passes of 1, 32 and 512.
#include "device_fixture.h"

namespace gauntlet::engine::test {
namespace {

using model::FileType;

model::ModelShape granite(const std::string& extra = "") {
  auto s = model::parse_dims(
      "arch=granite,n_embd=256,n_layer=2,n_head=4,n_head_kv=2,n_ff=256,n_vocab=256,context=640,"
      "embedding_scale=12,residual_scale=0.22,attention_scale=0.0078125,logit_scale=16" +
      extra);
  EXPECT_TRUE(s.is_ok()) << s.error().describe();
  s->name = "granite";
  return *s;
}

class EngineGranite : public DeviceAndHostTest {};

TEST_F(EngineGranite, GreedyTokensAndLogitsAreTheReferencesInEveryFormat) {
  for (const std::string extra : {"", ",n_expert=8,n_expert_used=2,n_ff_exp=128,n_ff_shexp=128"}) {
    for (FileType format : {FileType::f32, FileType::q8_0, FileType::q4_K_M}) {
      SCOPED_TRACE(model::to_string(format) + extra);
      auto file = synthetic_file(granite(extra), format);
      ASSERT_NE(file, nullptr);
      expect_greedy_decode_matches(device(), *file, granite(extra), format);
    }
  }
}

TEST_F(EngineGranite, PassesOf1And32And512TokensGiveTheReferenceLogits) {
  auto file = synthetic_file(granite(), FileType::f32);
  ASSERT_NE(file, nullptr);
  expect_passes_of_1_32_512_match_reference(device(), *file, 2);
}

}  // namespace
}  // namespace gauntlet::engine::test
