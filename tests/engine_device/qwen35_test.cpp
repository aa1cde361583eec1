// Qwen3.5's gated-DeltaNet hybrid (qwen35) and its mixture of experts (qwen35moe) on the device
// against the host reference: the conv1d and delta rule on each sequence's state (three recurrent
// layers and one attention layer in four; head_dim 256, gated, IMROPE sections on a quarter of it),
// 32 greedy tokens with their logits in F32, Q8_0 and Q4_K_M; every token's logits of a prompt fed
// in passes of 1, 65 and 512 tokens (the state carried across pass boundaries); and 4
// sequences decoded together, each against its own decode; one step over a directly filled cache;
// the layers split between the host and the device.
#include "device_fixture.h"
#include "engine/device/profile_check.h"
#include "engine/make_decoder.h"
#include "tests/engine_device/split_check.h"

namespace gauntlet::engine::test {
namespace {

using model::FileType;

// Rows of 256 so that every k-quant runs: n_embd, the value heads' width (ssm_inner) and the
// conv's channels (ssm_inner + 2 key heads of 64). Four layers (three recurrent, one attention)
// as Qwen3.5 has them, or two (interval 2) where a test feeds hundreds of tokens.
model::ModelShape hybrid_shape(const std::string& arch, uint32_t layers = 4) {
  auto s = model::parse_dims(arch + ",n_layer=" + std::to_string(layers) +
                             ",full_attention_interval=" + std::to_string(std::min(layers, 4u)) +
                             ",n_embd=256,n_head=2,n_head_kv=1,head_dim=256,rope_dim=64,"
                             "n_ff=256,n_vocab=256,context=640,ssm_state=64,ssm_groups=2,"
                             "ssm_heads=4,ssm_inner=256");
  EXPECT_TRUE(s.is_ok()) << s.error().describe();
  s->name = "hybrid-" + std::string(s->traits().name);
  return *s;
}

model::ModelShape qwen35(uint32_t layers = 4) { return hybrid_shape("arch=qwen35", layers); }
model::ModelShape qwen35moe(uint32_t layers = 4) {
  return hybrid_shape("arch=qwen35moe,n_expert=4,n_expert_used=2,n_ff_exp=256,n_ff_shexp=256",
                      layers);
}

class EngineQwen35 : public DeviceAndHostTest {
 protected:
  void expect_decode(const model::ModelShape& shape, FileType format) {
    SCOPED_TRACE(shape.name + " " + model::to_string(format));
    auto file = synthetic_file(shape, format);
    ASSERT_NE(file, nullptr);
    expect_greedy_decode_matches(device(), *file, shape, format);
  }
  void expect_passes(const model::ModelShape& shape, FileType format,
                     std::initializer_list<uint32_t> micro_batches) {
    auto file = synthetic_file(shape, format);
    ASSERT_NE(file, nullptr);
    for (uint32_t micro_batch : micro_batches) {
      SCOPED_TRACE(shape.name + " " + model::to_string(format) + " ub " +
                   std::to_string(micro_batch));
      expect_split_matches_reference(placement::whole(shape.n_layer, device().name()), {&device()},
                                     *file, micro_batch);
    }
  }
};

TEST_F(EngineQwen35, GreedyTokensAndLogitsAreTheReferencesInEveryFormat) {
  for (FileType format : {FileType::f32, FileType::q8_0, FileType::q4_K_M}) {
    expect_decode(qwen35(), format);
  }
}

// 70 tokens in passes of 1 and 65 (65 + 5: the delta rule's dispatches of 64 and then 1); 520 in
// passes of 512 (512 + 8: eight whole dispatches, then a part), the size at which llama.cpp's
// Vulkan backend once gave garbage for Qwen3.5.
TEST_F(EngineQwen35, PassesOf1And65And512TokensGiveTheReferenceLogits) {
  expect_passes(qwen35(2), FileType::f32, {1, 65, 512});
  expect_passes(qwen35(2), FileType::q4_K_M, {65});
}

TEST_F(EngineQwen35, FourSequencesKeepTheirOwnState) {
  const auto shape = qwen35();
  auto file = synthetic_file(shape, FileType::q8_0);
  ASSERT_NE(file, nullptr);
  expect_sequences_match_reference(placement::whole(shape.n_layer, device().name()), {&device()},
                                   *file, 4);
}

// A step at position 639 over a KV cache filled directly (the attention layer's), the recurrent
// state zeroed on both sides: the harness's long-context check runs on a hybrid too.
TEST_F(EngineQwen35, LongContextStepOverAFilledCacheGivesTheReference) {
  const auto shape = qwen35();
  auto file = synthetic_file(shape, FileType::q8_0);
  ASSERT_NE(file, nullptr);
  expect_filled_cache_step_matches(device(), *file, shape, FileType::q8_0, 640);
}

// -ngl 3: layers 0 and 1 (recurrent) on the host, 2 (recurrent) and 3 (attention) and the output
// on the device; each side keeps the state of its own recurrent layers.
TEST_F(EngineQwen35, HostThenDeviceSplitGivesTheReference) {
  const auto shape = qwen35();
  auto file = synthetic_file(shape, FileType::q8_0);
  ASSERT_NE(file, nullptr);
  expect_host_then_device_split_matches(device(), *host_, *file, shape.n_layer, 3, 65);
}

TEST_F(EngineQwen35, MoeGivesTheReferenceTokensLogitsAndSequences) {
  expect_decode(qwen35moe(), FileType::q4_K_M);
  expect_passes(qwen35moe(2), FileType::q8_0, {65});
  const auto shape = qwen35moe(2);
  auto file = synthetic_file(shape, FileType::f32);
  ASSERT_NE(file, nullptr);
  expect_sequences_match_reference(placement::whole(shape.n_layer, device().name()), {&device()},
                                   *file, 4);
}

}  // namespace
}  // namespace gauntlet::engine::test
