// gpt-oss on the device against the host reference: Q/K/V and output biases, attention sinks, a
// window of 16 on the even layers, YaRN angles, the router's bias and softmax over the picked
// logits, the experts' bias rows and the clamped SwiGLU, in an MXFP4_MOE file (MXFP4 experts,
// Q8_0 elsewhere). Greedy tokens with their logits, then every token's logits of a prompt past
// the window fed in passes of 1, 32 and 512 tokens.
#include "device_fixture.h"
#include "engine/device/profile_check.h"
#include "engine/make_decoder.h"
#include "tests/engine_device/split_check.h"

namespace gauntlet::engine::test {
namespace {

using model::FileType;

model::ModelShape gpt_oss_shape() {
  auto s = model::parse_dims(
      "arch=gpt-oss,n_embd=64,n_layer=2,n_head=4,n_head_kv=2,head_dim=32,n_ff=64,n_expert=4,"
      "n_expert_used=2,n_ff_exp=64,n_vocab=128,context=640,window=16,yarn_factor=4,"
      "yarn_orig_ctx=64");
  EXPECT_TRUE(s.is_ok()) << s.error().describe();
  s->name = "tiny-gpt-oss";
  return *s;
}

class EngineGptOss : public DeviceTest {};

TEST_F(EngineGptOss, GreedyTokensAndLogitsAreTheReferences) {
  const auto shape = gpt_oss_shape();
  auto file = synthetic_file(shape, FileType::mxfp4_moe);
  ASSERT_NE(file, nullptr);
  auto config = device::default_config(device().info(), device().info().local_mem_size, shape,
                                       FileType::mxfp4_moe);
  config.weights = FileType::mxfp4_moe;
  expect_decode_check_matches(device(), *file, config, {1, 7, 42, 3}, 32);
}

TEST_F(EngineGptOss, PassesOf1And32And512TokensGiveTheReferenceLogitsPastTheWindow) {
  const auto shape = gpt_oss_shape();
  auto file = synthetic_file(shape, FileType::mxfp4_moe);
  ASSERT_NE(file, nullptr);
  expect_passes_of_1_32_512_match_reference(device(), *file, shape.n_layer);
}

}  // namespace
}  // namespace gauntlet::engine::test
