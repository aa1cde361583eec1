// Poolside's Laguna on the host reference (llama.cpp's src/models/laguna.cpp): which layers slide
// and how each turns RoPE, the per-head gate's rows, the published XS.2's parameter
// counts, the greedy tokens llama.cpp decodes from the same file, passes that give the
// token-by-token logits, the cpu device's products within their bound, and bad keys named.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "engine/model/layer_plan.h"
#include "engine/model/rope.h"
#include "engine/reference/decoder.h"
#include "reference_checks.h"
#include "test_models.h"

namespace gauntlet::engine::test {
namespace {

using model::FileType;

// Layer 0 global (4 heads, YaRN by 4 over 64 positions, 32 of 64 dimensions turned), layers 1-3
// sliding over 8 positions (8 heads, plain RoPE of base 10000 over the whole head); layer 0 dense,
// the others 8 sigmoid-routed experts (2 a token, renormalised, times 2.5) and a shared expert.
const std::string kLaguna =
    "arch=laguna,n_embd=256,n_layer=4,n_head=4,n_head_swa=8,n_head_kv=2,head_dim=64,rope_dim=32,"
    "n_ff=512,n_vocab=512,context=256,window=8,n_expert=8,n_expert_used=2,n_ff_exp=256,"
    "n_ff_shexp=256,dense_lead=1,expert_norm=1,expert_scale=2.5,yarn_factor=4,yarn_orig_ctx=64,"
    "rope_freq_base_swa=10000,rope_dim_swa=64";

TEST(LagunaShape, GlobalLayerFirstAndPlainRopeOnTheSlidingOnes) {
  const auto s = shape_of(kLaguna, true);
  const auto plan = model::plan_layers(s);
  EXPECT_EQ(plan[0].attention.window, 0u);
  EXPECT_EQ(plan[0].attention.heads, 4u);
  EXPECT_EQ(plan[0].attention.rope_dims, 32u);
  EXPECT_EQ(plan[0].attention.rope_table, 0u);
  EXPECT_EQ(plan[0].ffn, model::FeedForward::gated);
  for (uint32_t l = 1; l < 4; ++l) {
    EXPECT_EQ(plan[l].attention.window, 8u);
    EXPECT_EQ(plan[l].attention.heads, 8u);
    EXPECT_EQ(plan[l].attention.rope_dims, 64u);
    EXPECT_EQ(plan[l].attention.rope_table, 1u);
    EXPECT_TRUE(plan[l].attention.head_gate);
    EXPECT_EQ(plan[l].ffn, model::FeedForward::experts);
  }
  EXPECT_EQ(s.rope_base(1), 10000.0f);
  EXPECT_EQ(s.rope_scale(1), 1.0f);
  EXPECT_EQ(s.rope_scale(0), 0.25f);
  // Position 0: the global layer's cos is YaRN's magnitude 1 + 0.1 ln 4; the sliding layer's is 1
  // (llama_model_laguna::graph passes attn_factor 1 and ext_factor 0 there).
  std::vector<float> table(64);
  model::rope_table(s, 0, {}, 0, table);
  EXPECT_NEAR(table[0], 1.0f + 0.1f * std::log(4.0f), 1e-6f);
  model::rope_table(s, 1, {}, 0, table);
  EXPECT_EQ(table[0], 1.0f);
  // Position 5, pair 1 of the sliding layer: 5 * 10000^(-2/64), unscaled.
  model::rope_table(s, 1, {}, 5, table);
  EXPECT_NEAR(table[3], std::sin(5 * std::pow(10000.0, -2.0 / 64)), 1e-6);
}

// poolside/Laguna-XS.2 (33B total, 3B active by Poolside's card): two 100352 x 2048 tables; 10
// global layers of 48 query heads and 30 sliding ones of 64 (heads of 128, 8 KV heads), each with
// its per-head gate; a dense layer of 3 x 2048 x 8192; 39 layers of a router, its bias, 256
// experts of 3 x 2048 x 512 and a shared one of the same.
TEST(LagunaShape, PublishedXs2Counts) {
  const auto s = model::preset_shape("laguna-xs.2").value();
  EXPECT_EQ(model::parameter_count(s), 33442617088ull);
  EXPECT_EQ(model::active_parameter_count(s), 33442617088ull - 39ull * 248 * 3 * 2048 * 512);
  const auto t = model::model_tensors(s, FileType::q4_K_M);
  ASSERT_NE(find(t, "blk.0.attn_gate.weight"), nullptr);
  EXPECT_EQ(find(t, "blk.0.attn_gate.weight")->ne, (std::vector<uint64_t>{2048, 48}));
  EXPECT_EQ(find(t, "blk.1.attn_q.weight")->ne, (std::vector<uint64_t>{2048, 64 * 128}));
  EXPECT_EQ(find(t, "blk.1.attn_output.weight")->ne, (std::vector<uint64_t>{64 * 128, 2048}));
  EXPECT_NE(find(t, "blk.0.ffn_down.weight"), nullptr);
  EXPECT_NE(find(t, "blk.1.exp_probs_b.bias"), nullptr);
  EXPECT_NE(find(t, "blk.1.ffn_gate_shexp.weight"), nullptr);
  EXPECT_EQ(find(t, "blk.1.ffn_gate_inp_shexp.weight"), nullptr);
}

// attn_gate holds one row per query head of its layer (llama_model_laguna's per-head gate).
TEST(LagunaLoad, TheGateHasOneRowPerHead) {
  const auto bytes = synthetic_bytes(shape_of(kLaguna, true), FileType::f32, 3);
  const auto m = load(bytes);
  const auto& gate = m.weights.layers[1].attn_gate;
  ASSERT_NE(gate.data, nullptr);
  EXPECT_EQ(gate.n_in, 256u);
  EXPECT_EQ(gate.n_out, 8u);
  EXPECT_EQ(m.weights.layers[0].attn_gate.n_out, 4u);
}

// The tokens llama.cpp 3.22.1 (node-llama-cpp, CPU) decoded from `model make --dims <kLaguna>
// --format F32 --seed 4` after the prompt 1..12: 52 positions, past the window and through
// YaRN's blend.
TEST(LagunaDecode, GreedyTokensAreLlamaCpps) {
  const auto bytes = synthetic_bytes(shape_of(kLaguna, true), FileType::f32, 4);
  const auto m = load(bytes);  // its weights point into the bytes
  std::vector<int32_t> prompt;
  for (int32_t i = 1; i <= 12; ++i) prompt.push_back(i);
  auto d = reference::Decoder::create(m, {});
  ASSERT_TRUE(d.is_ok());
  auto out = reference::greedy_decode([&](int32_t t) { return (*d)->step(t); }, prompt, 40);
  ASSERT_TRUE(out.is_ok());
  EXPECT_EQ(*out, (std::vector<int32_t>{8,   305, 4,   316, 143, 181, 284, 369, 328, 316,
                                        224, 306, 3,   180, 433, 259, 311, 136, 466, 177,
                                        178, 217, 319, 411, 316, 277, 298, 197, 462, 182,
                                        94,  500, 268, 430, 265, 95,  55,  174, 267, 137}));
}

TEST(LagunaReference, PassesGiveTheTokenByTokenLogits) {
  const auto bytes = synthetic_bytes(shape_of(kLaguna, true), FileType::f32);
  expect_passes_give_token_by_token_logits(load(bytes), {5, 16});
}

TEST(LagunaReference, CpuDeviceGivesTheReferenceTokensWithinItsBound) {
  for (FileType format : {FileType::q8_0, FileType::q4_K_M}) {
    SCOPED_TRACE(model::to_string(format));
    const auto bytes = synthetic_bytes(shape_of(kLaguna, true), format, 11);
    expect_fast_products_within_bound(load(bytes));
  }
}

TEST(LagunaShape, SlidingHeadsOfAnotherArchitectureAreRefused) {
  auto s = model::parse_dims(
      "arch=gemma2,n_embd=64,n_layer=2,n_head=2,n_ff=64,n_vocab=64,context=8,window=4,"
      "n_head_swa=4");
  ASSERT_FALSE(s.is_ok());
  EXPECT_NE(s.error().message.find("gemma2 has one query head count for every layer"),
            std::string::npos)
      << s.error().message;
}

TEST(LagunaLoad, BadKeysAreRefusedByName) {
  const auto s = shape_of(kLaguna, true);
  auto refused = [&](const std::string& key, uint32_t value, const std::string& what) {
    expect_load_refused(
        s, [&](auto& w) { w.set_u32(key, value); }, what);
  };
  // More experts than the stacks hold.
  refused("laguna.expert_count", 16, "blk.1.ffn_gate_inp.weight");
  // A scalar head count: the sliding layers' Q is then wider than the file's.
  refused("laguna.attention.head_count", 4, "blk.1.attn_q.weight");
  refused("laguna.leading_dense_block_count", 4, "leading_dense_block_count 4");
}

}  // namespace
}  // namespace gauntlet::engine::test
