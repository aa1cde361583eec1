// LFM2's short-convolution hybrid (lfm2) on the device against the host reference: the gated conv
// on each sequence's state (two conv layers and two attention layers), 32 greedy tokens with their
// logits in F32, Q8_0 and Q4_K_M; every token's logits of a prompt fed in passes of 1, 32 and 512
// tokens (the state carried across pass boundaries); 4 sequences decoded together, each against
// its own decode; the layers split between the host and the device; lfm2moe (sigmoid-routed experts
// picked with their selection bias after a leading dense layer) in F32, Q4_K_M and passes of 32.
#include "device_fixture.h"
#include "engine/make_decoder.h"
#include "tests/engine_device/split_check.h"

namespace gauntlet::engine::test {
namespace {

using model::FileType;

// Rows of 256 so that every k-quant runs; layers 1 and 3 attend, 0 and 2 convolve (two layers,
// the second attending, where a test feeds hundreds of tokens).
model::ModelShape lfm2(uint32_t layers = 4) {
  auto s = model::parse_dims("arch=lfm2,n_layer=" + std::to_string(layers) +
                             ",attn_layers=" + (layers == 4 ? "1:3" : "1") +
                             ",n_embd=256,n_head=4,n_head_kv=2,n_ff=256,n_vocab=256,context=640");
  EXPECT_TRUE(s.is_ok()) << s.error().describe();
  s->name = "hybrid-lfm2";
  return *s;
}

class EngineLfm2 : public DeviceAndHostTest {};

// lfm2moe: layer 0 dense, the others sigmoid-routed experts picked with their selection bias.
model::ModelShape lfm2moe() {
  auto s = model::parse_dims(
      "arch=lfm2moe,n_layer=4,attn_layers=1:3,dense_lead=1,n_embd=256,n_head=4,n_head_kv=2,"
      "n_ff=256,n_vocab=256,context=640,n_expert=8,n_expert_used=2,n_ff_exp=256");
  EXPECT_TRUE(s.is_ok()) << s.error().describe();
  s->name = "hybrid-lfm2moe";
  return *s;
}

TEST_F(EngineLfm2, GreedyTokensAndLogitsAreTheReferencesInEveryFormat) {
  for (FileType format : {FileType::f32, FileType::q8_0, FileType::q4_K_M}) {
    SCOPED_TRACE(model::to_string(format));
    auto file = synthetic_file(lfm2(), format);
    ASSERT_NE(file, nullptr);
    expect_greedy_decode_matches(device(), *file, lfm2(), format);
  }
}

TEST_F(EngineLfm2, MoeGivesTheReferenceTokensLogitsAndPasses) {
  for (FileType format : {FileType::f32, FileType::q4_K_M}) {
    SCOPED_TRACE(model::to_string(format));
    auto file = synthetic_file(lfm2moe(), format);
    ASSERT_NE(file, nullptr);
    expect_greedy_decode_matches(device(), *file, lfm2moe(), format);
  }
  auto file = synthetic_file(lfm2moe(), FileType::q8_0);
  ASSERT_NE(file, nullptr);
  expect_split_matches_reference(placement::whole(4, device().name()), {&device()}, *file, 32);
}

TEST_F(EngineLfm2, PassesOf1And32And512TokensGiveTheReferenceLogits) {
  auto file = synthetic_file(lfm2(2), FileType::f32);
  ASSERT_NE(file, nullptr);
  expect_passes_of_1_32_512_match_reference(device(), *file, 2);
}

TEST_F(EngineLfm2, FourSequencesKeepTheirOwnState) {
  const auto shape = lfm2();
  auto file = synthetic_file(shape, FileType::q8_0);
  ASSERT_NE(file, nullptr);
  expect_sequences_match_reference(placement::whole(shape.n_layer, device().name()), {&device()},
                                   *file, 4);
}

// -ngl 3: layers 0 (conv) and 1 (attention) on the host, 2 (conv), 3 (attention) and the output
// on the device; each side keeps the state of its own conv layers.
TEST_F(EngineLfm2, HostThenDeviceSplitGivesTheReference) {
  const auto shape = lfm2();
  auto file = synthetic_file(shape, FileType::q8_0);
  ASSERT_NE(file, nullptr);
  expect_host_then_device_split_matches(device(), *host_, *file, shape.n_layer, 3);
}

}  // namespace
}  // namespace gauntlet::engine::test
