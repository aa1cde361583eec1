// Gemma 4 (llama.cpp's src/models/gemma4.cpp) on the device against the host reference: per-layer
// head sizes and head counts (32-wide sliding heads with 2 KV heads, 64-wide global heads with 1,
// K as V), a window of 8, RoPE of its own on the sliding layers and proportional RoPE on the
// global ones, attention scale 1 with Q/K norm and the unweighted V norm, two shared-KV layers
// (one sliding, one global) reading an earlier layer's cache, layer_output_scale and the final
// soft-cap: greedy tokens and their logits past the window in F32, Q8_0 and Q4_K_M, every token's
// logits of a prompt fed in passes of 1, 32 and 512 tokens, sequences decoded together, a step
// over a filled cache, and flash attention over a quantized cache.
#include "device_fixture.h"
#include "engine/device/profile_check.h"
#include "engine/make_decoder.h"
#include "tests/engine_device/split_check.h"

namespace gauntlet::engine::test {
namespace {

using model::FileType;

// Layers 0 and 2 slide, 1 and 3 are global (swa_pattern 2); layers 2 and 3 store no KV: 2 reads
// layer 0's ring, 3 reads layer 1's cache (llama.cpp's layer_reuse_cb).
model::ModelShape gemma4_shape() {
  auto s = model::parse_dims(
      "arch=gemma4,n_embd=128,n_layer=4,n_head=4,n_head_kv=2,head_dim=64,head_dim_swa=32,"
      "n_head_kv_global=1,swa_pattern=2,n_ff=256,n_vocab=256,context=640,window=8,shared_kv=2,"
      "k_as_v=1,tied=1");
  EXPECT_TRUE(s.is_ok()) << s.error().describe();
  s->name = "device-gemma4";
  return *s;
}

class EngineGemma4 : public DeviceTest {
 protected:
  void expect_decode(FileType format, bool flash = false,
                     planner::KvPrecision kv = planner::KvPrecision::f32) {
    const auto shape = gemma4_shape();
    SCOPED_TRACE(std::string(model::to_string(format)) + (flash ? " -fa" : ""));
    auto file = synthetic_file(shape, format);
    ASSERT_NE(file, nullptr);
    auto config =
        device::default_config(device().info(), device().info().local_mem_size, shape, format);
    config.weights = format;
    config.flash_attention = flash;
    config.kv = kv;
    ASSERT_TRUE(device::check_config(device().info(), device().info().local_mem_size, shape, config)
                    .is_ok());
    // 4 prompt tokens and 24 generated: 20 positions past the window.
    auto r = device::check_decode(device(), *file, config, {1, 7, 42, 3}, 24);
    ASSERT_TRUE(r.is_ok()) << r.error().describe();
    EXPECT_EQ(r->device_tokens, r->host_tokens);
    EXPECT_LE(r->logits_nmse, r->nmse_bound);
    std::set<int32_t> distinct(r->host_tokens.begin(), r->host_tokens.end());
    EXPECT_GT(distinct.size(), 3u);
  }
};

TEST_F(EngineGemma4, GreedyTokensAndLogitsPastTheWindowAreTheReferencesInEveryFormat) {
  for (FileType format : {FileType::f32, FileType::q8_0, FileType::q4_K_M}) expect_decode(format);
}

// Teacher-forced: every token's logits of a prompt past the window, fed in passes of the
// micro-batch (70 tokens at 1 and 32, 520 at 512), then 8 greedy tokens. One format per
// micro-batch; Q4_K_M's 256-element blocks do not divide this model's 128-wide rows, which a pass
// of several tokens needs, so it runs token by token.
TEST_F(EngineGemma4, PassesOf1And32And512TokensGiveTheReferenceLogits) {
  const auto shape = gemma4_shape();
  const std::pair<FileType, uint32_t> runs[] = {
      {FileType::q4_K_M, 1}, {FileType::q8_0, 32}, {FileType::f32, 512}};
  for (const auto& [format, micro_batch] : runs) {
    SCOPED_TRACE(std::string(model::to_string(format)) + " ub " + std::to_string(micro_batch));
    auto file = synthetic_file(shape, format);
    ASSERT_NE(file, nullptr);
    expect_split_matches_reference(placement::whole(shape.n_layer, device().name()), {&device()},
                                   *file, micro_batch);
  }
}

TEST_F(EngineGemma4, FourSequencesKeepTheirOwnCaches) {
  const auto shape = gemma4_shape();
  auto file = synthetic_file(shape, FileType::q8_0);
  ASSERT_NE(file, nullptr);
  expect_sequences_match_reference(placement::whole(shape.n_layer, device().name()), {&device()},
                                   *file, 4);
}

// A step at position 639 over a cache filled directly: rows of each layer's own width, none for
// the shared layers.
TEST_F(EngineGemma4, LongContextStepOverAFilledCacheGivesTheReference) {
  const auto shape = gemma4_shape();
  auto file = synthetic_file(shape, FileType::q8_0);
  ASSERT_NE(file, nullptr);
  auto c = device::default_config(device().info(), device().info().local_mem_size, shape,
                                  FileType::q8_0);
  c.weights = FileType::q8_0;
  auto r = device::check_context(device(), *file, c, 640);
  ASSERT_TRUE(r.is_ok()) << r.error().describe();
  EXPECT_TRUE(r->tokens_match) << r->reason;
  EXPECT_LE(r->logits_nmse, r->nmse_bound);
}

// Flash attention over q8_0 K and V: the global layers' 64-wide heads are turned by the
// Walsh-Hadamard rotation, the sliding layers' 32-wide ones are not, and the shared layers round
// their Q against the quantized K they read.
TEST_F(EngineGemma4, FlashAttentionOverAQuantizedCacheGivesTheReference) {
  expect_decode(FileType::q8_0, true, {model::TensorType::q8_0, model::TensorType::q8_0});
}

}  // namespace
}  // namespace gauntlet::engine::test
