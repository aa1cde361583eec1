// Gemma 4's E2B/E4B per-layer embeddings and its 26B-A4B layer (experts beside the dense
// feed-forward) on the host reference (llama.cpp's src/models/gemma4.cpp): the tensors llama.cpp's
// loader creates, read back from the files `model make` writes, and the greedy tokens llama.cpp
// decoded from the same files.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "engine/planner/planner.h"
#include "engine/reference/decoder.h"
#include "test_models.h"

namespace gauntlet::engine::test {
namespace {

using model::FileType;

// gemma4_test.cpp's six layers (two sliding then one global, the last three sharing KV, K as V).
constexpr const char* kBase =
    "arch=gemma4,n_embd=256,n_layer=6,n_head=4,n_head_kv=2,head_dim=128,head_dim_swa=64,"
    "n_head_kv_global=1,swa_pattern=3,n_vocab=256,context=64,window=8,shared_kv=3,k_as_v=1,";
const std::string kPerLayer = std::string(kBase) + "n_ff=512,n_embd_per_layer=64,";
const std::string kExperts =
    std::string(kBase) + "n_ff=256,n_expert=8,n_expert_used=2,n_ff_exp=128,";

void expect_tensor(const std::vector<model::TensorDesc>& t, const std::string& name,
                   std::vector<uint64_t> ne, model::TensorType type) {
  const auto* d = find(t, name);
  ASSERT_NE(d, nullptr) << name;
  EXPECT_EQ(d->ne, ne) << name;
  EXPECT_EQ(d->type, type) << name;
}

// llama_model_gemma4::load_arch_tensors' per-layer tensors; per_layer_model_proj is never
// quantized (llama-quant.cpp), the per-layer table follows token_embd.
TEST(Gemma4PerLayerEmbedding, TensorsAsLlamaCppsLoaderCreatesThem) {
  const auto t = model::model_tensors(shape_of(kPerLayer + "tied=1", true), FileType::q8_0);
  using model::TensorType;
  expect_tensor(t, "per_layer_token_embd.weight", {64 * 6, 256}, TensorType::q8_0);
  expect_tensor(t, "per_layer_model_proj.weight", {256, 64 * 6}, TensorType::f32);
  expect_tensor(t, "per_layer_proj_norm.weight", {64}, TensorType::f32);
  for (uint32_t l = 0; l < 6; ++l) {
    const std::string p = "blk." + std::to_string(l) + ".";
    expect_tensor(t, p + "inp_gate.weight", {256, 64}, TensorType::q8_0);
    expect_tensor(t, p + "proj.weight", {64, 256}, TensorType::q8_0);
    expect_tensor(t, p + "post_norm.weight", {256}, TensorType::f32);
  }
  EXPECT_EQ(find(t, "blk.0.ffn_gate_inp.weight"), nullptr);
}

TEST(Gemma4Experts, TensorsAsLlamaCppsLoaderCreatesThem) {
  const auto s = shape_of(kExperts + "tied=1", true);
  const auto t = model::model_tensors(s, FileType::q8_0);
  using model::TensorType;
  for (uint32_t l = 0; l < 6; ++l) {
    const std::string p = "blk." + std::to_string(l) + ".";
    // The dense feed-forward stays beside the experts.
    expect_tensor(t, p + "ffn_gate.weight", {256, 256}, TensorType::q8_0);
    expect_tensor(t, p + "ffn_gate_inp.weight", {256, 8}, TensorType::f32);
    expect_tensor(t, p + "ffn_gate_inp.scale", {256}, TensorType::f32);
    expect_tensor(t, p + "ffn_gate_exps.weight", {256, 128, 8}, TensorType::q8_0);
    expect_tensor(t, p + "ffn_up_exps.weight", {256, 128, 8}, TensorType::q8_0);
    expect_tensor(t, p + "ffn_down_exps.weight", {128, 256, 8}, TensorType::q8_0);
    expect_tensor(t, p + "ffn_down_exps.scale", {8}, TensorType::f32);
    expect_tensor(t, p + "pre_ffw_norm_2.weight", {256}, TensorType::f32);
    expect_tensor(t, p + "post_ffw_norm_1.weight", {256}, TensorType::f32);
    expect_tensor(t, p + "post_ffw_norm_2.weight", {256}, TensorType::f32);
  }
  // Every expert counted; a token uses 2 of the 8.
  const uint64_t idle = 6ull * 6 * 3 * 256 * 128;
  EXPECT_EQ(model::parameter_count(s) - model::active_parameter_count(s), idle);
}

model::LoadedModel loaded(const std::vector<std::byte>& bytes) {
  auto info = model::parse_gguf(bytes);
  EXPECT_TRUE(info.is_ok());
  auto m = model::load_model(*info, bytes);
  EXPECT_TRUE(m.is_ok()) << m.error().describe();
  return std::move(*m);
}

TEST(Gemma4Variants, WrittenAndReadBack) {
  const auto per_layer = synthetic_bytes(shape_of(kPerLayer + "tied=1", true), FileType::q8_0);
  const auto a = loaded(per_layer);
  EXPECT_EQ(a.shape.n_embd_per_layer, 64u);
  EXPECT_FALSE(a.shape.moe());
  EXPECT_NE(a.weights.per_layer_token_embd.data, nullptr);
  EXPECT_NE(a.weights.layers[5].ple_proj.data, nullptr);
  const auto experts = synthetic_bytes(shape_of(kExperts + "tied=1", true), FileType::q8_0);
  const auto b = loaded(experts);
  EXPECT_EQ(b.shape.n_embd_per_layer, 0u);
  EXPECT_TRUE(b.shape.dense_beside_experts());
  EXPECT_EQ(b.shape.n_expert, 8u);
  EXPECT_EQ(b.shape.n_expert_used, 2u);
  EXPECT_EQ(b.shape.expert_ff(), 128u);
  EXPECT_NE(b.weights.layers[0].down_exps_scale.data, nullptr);
  EXPECT_NE(b.weights.layers[0].router_scale.data, nullptr);
}

TEST(Gemma4Variants, PerLayerWidthOffBlocksIsRefused) {
  auto s = model::parse_dims(kPerLayer + "tied=1");
  ASSERT_TRUE(s.is_ok());
  s->n_embd_per_layer = 48;
  auto valid = model::validate_shape(*s);
  ASSERT_FALSE(valid.is_ok());
  EXPECT_NE(valid.error().message.find("embedding_length_per_layer_input 48"), std::string::npos);
}

std::vector<int32_t> variant_greedy(const std::string& dims, FileType format,
                                    const std::vector<int32_t>& prompt, uint32_t n) {
  const auto bytes = synthetic_bytes(shape_of(dims, true), format, 1);
  const auto m = loaded(bytes);
  auto d = reference::Decoder::create(m, {});
  EXPECT_TRUE(d.is_ok());
  auto out = reference::greedy_decode([&](int32_t t) { return (*d)->step(t); }, prompt, n);
  EXPECT_TRUE(out.is_ok());
  return *out;
}

// The tokens llama.cpp 3.22.1 (node-llama-cpp, CPU, temperature 0) decoded from the files
// `model make --seed 1` writes, past the window of 8: F32 with a tied output, Q8_0 with an
// output.weight.
TEST(Gemma4PerLayerEmbedding, GreedyTokensAreLlamaCpps) {
  EXPECT_EQ(variant_greedy(kPerLayer + "tied=1", FileType::f32,
                           {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, 20),
            (std::vector<int32_t>{6,   11,  141, 164, 131, 109, 188, 146, 72,  226,
                                  224, 254, 138, 241, 154, 214, 245, 134, 162, 39}));
  EXPECT_EQ(variant_greedy(kPerLayer + "tied=0", FileType::q8_0,
                           {5, 9, 2, 7, 1, 3, 8, 4, 6, 10, 11, 12, 13}, 16),
            (std::vector<int32_t>{101, 65, 66, 83, 144, 80, 34, 159, 104, 243, 107, 191, 124, 5, 36,
                                  23}));
}

TEST(Gemma4Experts, GreedyTokensAreLlamaCpps) {
  EXPECT_EQ(variant_greedy(kExperts + "tied=1", FileType::f32,
                           {5, 9, 2, 7, 1, 3, 8, 4, 6, 10, 11, 12, 13}, 20),
            (std::vector<int32_t>{13,  119, 157, 104, 28, 84, 123, 138, 184, 246,
                                  157, 46,  211, 115, 82, 50, 83,  125, 103, 0}));
  EXPECT_EQ(variant_greedy(kExperts + "tied=0", FileType::q8_0,
                           {5, 9, 2, 7, 1, 3, 8, 4, 6, 10, 11, 12, 13}, 20),
            (std::vector<int32_t>{101, 65,  218, 242, 85, 219, 102, 66,  53,  221,
                                  22,  105, 101, 65,  66, 68,  166, 179, 187, 27}));
}

}  // namespace
}  // namespace gauntlet::engine::test

namespace gauntlet::engine::test {
namespace {

// use_double_wide_mlp (the E2B): the shared-KV layers' feed-forward is 2 n_ff wide, written as a
// feed_forward_length array; llama.cpp 3.22.1 loads such a file and decodes the host's tokens.
TEST(Gemma4PerLayerEmbedding, DoubleWideFeedForwardOnTheSharedLayers) {
  const std::string dims =
      std::string(kBase) + "n_ff=256,n_embd_per_layer=64,double_wide_mlp=1,tied=0";
  const auto s = shape_of(dims, true);
  const std::vector<uint32_t> widths = {256, 256, 256, 512, 512, 512};
  EXPECT_EQ(s.layer_ff, widths);
  const auto t = model::model_tensors(s, FileType::q8_0);
  expect_tensor(t, "blk.3.ffn_up.weight", {256, 512}, model::TensorType::q8_0);
  const auto m = loaded(synthetic_bytes(s, FileType::q8_0));
  EXPECT_EQ(m.shape.layer_ff, widths);
  EXPECT_EQ(m.shape.n_ff, 256u);
  EXPECT_EQ(variant_greedy(dims, FileType::q8_0, {3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7}, 20),
            (std::vector<int32_t>{125, 148, 253, 55, 221, 13,  232, 179, 131, 68,
                                  226, 213, 174, 59, 217, 106, 167, 11,  92,  134}));
}

// The presets from the published configurations: the 26B-A4B counts every expert (25.2B
// parameters, 3.8B active) and its KV is the sliding layers' windows and the global layers' whole
// context; the E2B's 15 layers that store KV, its per-layer table and double-wide shared layers.
TEST(Gemma4Presets, TwentySixBA4bCountsEveryExpert) {
  auto s = model::preset_shape("gemma-4-26b-a4b");
  ASSERT_TRUE(s.is_ok());
  ASSERT_TRUE(model::validate_shape(*s).is_ok());
  EXPECT_TRUE(s->dense_beside_experts());
  EXPECT_NEAR(static_cast<double>(model::parameter_count(*s)), 25.2e9, 0.05e9);
  EXPECT_NEAR(static_cast<double>(model::active_parameter_count(*s)), 3.8e9, 0.05e9);
  uint64_t expert_elements = 0;
  for (const auto& t : model::model_tensors(*s, FileType::f32)) {
    if (t.name.ends_with("_exps.weight")) expert_elements += t.n_elements();
  }
  EXPECT_EQ(expert_elements, 30ull * 128 * 3 * 2816 * 704);
  EXPECT_EQ(planner::kv_cache_bytes(*s, 32768, 1, planner::KvPrecision::f16),
            2ull * 2 * (25ull * 1024 * 2048 + 5ull * 32768 * 1024));
}

TEST(Gemma4Presets, E2bAndE4bFromTheirPublishedDimensions) {
  auto e2b = model::preset_shape("gemma-4-e2b");
  ASSERT_TRUE(e2b.is_ok());
  ASSERT_TRUE(model::validate_shape(*e2b).is_ok()) << model::validate_shape(*e2b).error().message;
  EXPECT_EQ(e2b->n_embd_per_layer, 256u);
  EXPECT_EQ(e2b->ff(14), 6144u);
  EXPECT_EQ(e2b->ff(15), 12288u);
  EXPECT_FALSE(e2b->swa_layer(4));
  EXPECT_EQ(e2b->kv_layer(34), 14u);
  EXPECT_EQ(e2b->kv_layer(33), 13u);
  // 12 sliding layers of one 256-wide KV head and 3 global of one 512-wide store KV.
  EXPECT_EQ(planner::kv_cache_bytes(*e2b, 32768, 1, planner::KvPrecision::f16),
            2ull * 2 * (12ull * 512 * 256 + 3ull * 32768 * 512));
  // 4.63B text parameters, 2.35B of them the per-layer table (the card's 2.3B effective).
  const uint64_t table = 262144ull * 35 * 256;
  EXPECT_NEAR(static_cast<double>(model::parameter_count(*e2b) - table), 2.28e9, 0.02e9);
  auto e4b = model::preset_shape("gemma-4-e4b");
  ASSERT_TRUE(e4b.is_ok());
  ASSERT_TRUE(model::validate_shape(*e4b).is_ok());
  EXPECT_EQ(e4b->kv_layer(41), 23u);
  EXPECT_EQ(e4b->kv_layer(40), 22u);
  EXPECT_NEAR(static_cast<double>(model::parameter_count(*e4b) - 262144ull * 42 * 256), 4.64e9,
              0.02e9);
}

}  // namespace
}  // namespace gauntlet::engine::test
