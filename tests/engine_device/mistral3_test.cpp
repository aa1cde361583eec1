// Ministral 3 (mistral3) on the device against the host reference: YaRN with the file's keys and
// Llama 4's attention temperature, which changes every 8 positions here, so that a pass holds runs
// of tokens with different factors: greedy tokens and logits in F32, Q8_0 and Q4_K_M, and every
// token's logits in passes of 1, 32 and 512.
#include "device_fixture.h"
#include "tests/engine_device/split_check.h"

namespace gauntlet::engine::test {
namespace {

using model::FileType;

model::ModelShape mistral3() {
  auto s = model::parse_dims(
      "arch=mistral3,n_embd=256,n_layer=2,n_head=4,n_head_kv=2,n_ff=256,n_vocab=256,context=640,"
      "yarn_factor=4,yarn_orig_ctx=8,yarn_log_mul=1,yarn_beta_fast=16,attn_temp_scale=0.1");
  EXPECT_TRUE(s.is_ok()) << s.error().describe();
  s->name = "mistral3";
  return *s;
}

class EngineMistral3 : public DeviceAndHostTest {};

TEST_F(EngineMistral3, GreedyTokensAndLogitsAreTheReferencesInEveryFormat) {
  for (FileType format : {FileType::f32, FileType::q8_0, FileType::q4_K_M}) {
    SCOPED_TRACE(model::to_string(format));
    auto file = synthetic_file(mistral3(), format);
    ASSERT_NE(file, nullptr);
    expect_greedy_decode_matches(device(), *file, mistral3(), format);
  }
}

TEST_F(EngineMistral3, PassesOf1And32And512TokensGiveTheReferenceLogits) {
  auto file = synthetic_file(mistral3(), FileType::f32);
  ASSERT_NE(file, nullptr);
  expect_passes_of_1_32_512_match_reference(device(), *file, 2);
}

}  // namespace
}  // namespace gauntlet::engine::test
