// Gemma 2 and Gemma 3 on the host reference: hand-worked values of what they add (soft-caps, the
// GELU of the gated feed-forward, the embedding scale), the sliding-window boundary, and the
// planner's KV bytes with the window.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "engine/planner/planner.h"
#include "engine/reference/decoder.h"
#include "engine/reference/layer_ops.h"
#include "test_models.h"

namespace gauntlet::engine::test {
namespace {

using model::FileType;

model::ModelShape gemma_shape(const std::string& dims) {
  auto s = model::parse_dims(dims);
  EXPECT_TRUE(s.is_ok()) << s.error().describe();
  EXPECT_TRUE(model::validate_shape(*s).is_ok());
  return *s;
}

TEST(GemmaOps, SoftCapAndGeluValues) {
  // gemma2's final-logit cap 30: 30 tanh(45 / 30) = 30 tanh(1.5).
  EXPECT_NEAR(reference::softcap(45.0f, 30.0f), 27.1544476f, 1e-5f);
  // The attention-logit cap 50 on a score of 25: 50 tanh(0.5).
  EXPECT_NEAR(reference::softcap(25.0f, 50.0f), 23.1058579f, 1e-5f);
  // A small score passes nearly unchanged.
  EXPECT_NEAR(reference::softcap(0.3f, 50.0f), 0.3f, 1e-5f);
  // GELU, tanh approximation: 0.5 (1 + tanh(0.79788456 * 1.044715)) at 1.
  EXPECT_NEAR(reference::gelu(1.0f), 0.8411920f, 1e-6f);
  EXPECT_NEAR(reference::gelu(-2.0f), -0.0454023f, 1e-6f);
  std::vector<float> gate = {1.0f, -2.0f};
  const float up[] = {2.0f, 3.0f};
  reference::gated_activation(model::Activation::gelu, gate.data(), up, 2);
  EXPECT_NEAR(gate[0], 1.6823840f, 1e-6f);
  EXPECT_NEAR(gate[1], -0.1362069f, 1e-6f);
}

TEST(GemmaOps, TheEmbeddingIsScaledBySqrtNEmbd) {
  const auto shape = gemma_shape(
      "arch=gemma2,n_embd=64,n_layer=1,n_head=2,n_head_kv=1,n_ff=64,n_vocab=32,context=16,tied=1");
  const auto bytes = synthetic_bytes(shape, FileType::f32);
  auto info = model::parse_gguf(bytes);
  auto m = model::load_model(*info, bytes);
  ASSERT_TRUE(m.is_ok()) << m.error().describe();
  std::vector<float> x(64), row(64);
  reference::embed_token(m->shape, m->weights.token_embd, 5, x.data());
  model::dequantize_row(model::TensorType::f32, m->weights.token_embd.row(5), row.data(), 64);
  for (uint32_t i = 0; i < 64; ++i) EXPECT_FLOAT_EQ(x[i], 8.0f * row[i]) << i;  // sqrt(64)
}

// Logits at position `at` after feeding `tokens` (one model, a fresh cache each time).
std::vector<float> logits_after(const model::LoadedModel& m, const std::vector<int32_t>& tokens) {
  auto decoder = reference::Decoder::create(m, {});
  EXPECT_TRUE(decoder.is_ok());
  std::vector<float> out;
  for (int32_t t : tokens) {
    auto l = (*decoder)->step(t);
    EXPECT_TRUE(l.is_ok());
    out.assign(l->begin(), l->end());
  }
  return out;
}

// One gemma2 layer, which slides (even layers do), with a window of 4: at position 9 the token
// at position 5 is out of the window (9 - 5 >= 4) and cannot change the logits; the token at
// position 6 is inside and does.
TEST(GemmaWindow, ThePositionThatLeavesTheWindowNoLongerChangesTheOutput) {
  const auto shape = gemma_shape(
      "arch=gemma2,n_embd=64,n_layer=1,n_head=2,n_head_kv=1,n_ff=64,n_vocab=32,context=16,"
      "window=4,tied=1");
  ASSERT_TRUE(shape.sliding(0));
  const auto bytes = synthetic_bytes(shape, FileType::f32);
  auto info = model::parse_gguf(bytes);
  auto m = model::load_model(*info, bytes);
  ASSERT_TRUE(m.is_ok()) << m.error().describe();
  ASSERT_EQ(m->shape.sliding_window, 4u);
  const std::vector<int32_t> base = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  auto changed_at = [&](uint32_t pos) {
    auto t = base;
    t[pos] = 20;
    return logits_after(*m, t);
  };
  const auto reference = logits_after(*m, base);
  EXPECT_EQ(changed_at(5), reference);  // out of the window: bit for bit the same
  EXPECT_NE(changed_at(6), reference);  // the oldest position inside the window
  // The same model with every position in the window would see position 5.
  auto wide = *m;
  wide.shape.sliding_window = 16;
  auto t = base;
  t[5] = 20;
  EXPECT_NE(logits_after(wide, t), logits_after(wide, base));
}

TEST(GemmaPlan, Gemma3KvCacheKeepsTheWindowOnItsSlidingLayers) {
  const auto s = model::preset_shape("gemma-3-4b").value();
  // 34 layers, every sixth global (5, 11, 17, 23, 29), the other 29 sliding over 1024 positions;
  // 4 KV heads of 256, f16.
  uint32_t global = 0;
  for (uint32_t l = 0; l < s.n_layer; ++l) global += s.sliding(l) ? 0 : 1;
  EXPECT_EQ(global, 5u);
  const uint64_t per_position = 2ull * 4 * 256 * 2;  // K and V of one layer, f16
  EXPECT_EQ(planner::kv_cache_bytes(s, 32768, 1, planner::KvPrecision::f16),
            (29ull * 1024 + 5ull * 32768) * per_position);
  EXPECT_EQ(planner::kv_cache_bytes_without_window(s, 32768, 1, planner::KvPrecision::f16),
            34ull * 32768 * per_position);
  // Below the window every layer keeps the whole context.
  EXPECT_EQ(planner::kv_cache_bytes(s, 512, 1, planner::KvPrecision::f16),
            34ull * 512 * per_position);
  // Gemma 2: even layers slide over 4096.
  const auto g2 = model::preset_shape("gemma-2-2b").value();
  EXPECT_TRUE(g2.sliding(0));
  EXPECT_FALSE(g2.sliding(1));
  EXPECT_EQ(g2.attn_softcap, 50.0f);
  EXPECT_EQ(g2.final_softcap, 30.0f);
}

TEST(GemmaModels, WrittenAndReadBackWithTheirHyperParameters) {
  const auto shape = gemma_shape(
      "arch=gemma3,n_embd=256,n_layer=6,n_head=4,n_head_kv=2,head_dim=64,n_ff=512,n_vocab=64,"
      "context=64,window=16,tied=1");
  const auto bytes = synthetic_bytes(shape, FileType::q8_0);
  auto info = model::parse_gguf(bytes);
  auto m = model::load_model(*info, bytes);
  ASSERT_TRUE(m.is_ok()) << m.error().describe();
  EXPECT_EQ(m->shape.arch, model::Arch::gemma3);
  EXPECT_EQ(m->shape.sliding_window, 16u);
  EXPECT_EQ(m->shape.attn_softcap, 0.0f);
  EXPECT_TRUE(m->shape.sliding(4));
  EXPECT_FALSE(m->shape.sliding(5));
  EXPECT_EQ(m->shape.rope_base(0), 10000.0f);  // sliding layers' base
  EXPECT_NE(m->weights.layers[0].post_ffn_norm.data, nullptr);
  EXPECT_NE(m->weights.layers[0].q_norm.data, nullptr);
}

}  // namespace
}  // namespace gauntlet::engine::test
