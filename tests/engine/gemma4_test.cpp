// Gemma 4 on the host reference (llama.cpp's src/models/gemma4.cpp): per-layer head counts and
// head sizes, the sliding pattern and window, shared KV layers reading an earlier layer's cache,
// K as V, the planner counting only the layers that store KV, the published 31B's KV bytes, and
// the refusals naming the key of a bad per-layer array or shared-KV count.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "engine/planner/planner.h"
#include "engine/reference/decoder.h"
#include "engine/reference/kv_rows.h"
#include "engine/reference/layer_ops.h"
#include "test_models.h"

namespace gauntlet::engine::test {
namespace {

using model::FileType;

// Six layers, every third global (2 and 5): sliding heads of 64 (2 KV heads), global heads of 128
// (1 KV head, K as V); the last three layers share KV: 3 and 4 read layer 1's, 5 reads layer 2's.
constexpr const char* kDims =
    "arch=gemma4,n_embd=256,n_layer=6,n_head=4,n_head_kv=2,head_dim=128,head_dim_swa=64,"
    "n_head_kv_global=1,swa_pattern=3,n_ff=512,n_vocab=256,context=64,window=8,shared_kv=3,"
    "k_as_v=1,tied=1";

model::ModelShape gemma4_shape(const std::string& dims = kDims) { return shape_of(dims, true); }

TEST(Gemma4Shape, PerLayerHeadsPatternAndSharedKvFromTheDims) {
  const auto s = gemma4_shape();
  const std::vector<uint8_t> pattern = {1, 1, 0, 1, 1, 0};
  EXPECT_EQ(s.swa_layers, pattern);
  EXPECT_EQ(s.head_dim(0), 64u);
  EXPECT_EQ(s.head_dim(2), 128u);
  EXPECT_EQ(s.heads_kv(0), 2u);
  EXPECT_EQ(s.heads_kv(2), 1u);
  EXPECT_EQ(s.n_embd_q(0), 256u);
  EXPECT_EQ(s.n_embd_q(2), 512u);
  EXPECT_EQ(s.n_embd_kv(0), 128u);
  EXPECT_EQ(s.n_embd_kv(2), 128u);
  EXPECT_EQ(s.rope_base(0), 10000.0f);  // rope.freq_base_swa's default
  EXPECT_EQ(s.final_softcap, 30.0f);
  // llama.cpp's layer_reuse_cb: n_layer_kv_from_start (3) - 2 for sliding, - 1 for global.
  const uint32_t reads[] = {0, 1, 2, 1, 1, 2};
  for (uint32_t l = 0; l < 6; ++l) {
    EXPECT_EQ(s.has_kv(l), l < 3) << l;
    EXPECT_EQ(s.kv_layer(l), reads[l]) << l;
  }
  const auto t = model::model_tensors(s, FileType::f32);
  EXPECT_EQ(find(t, "blk.0.attn_q.weight")->ne, (std::vector<uint64_t>{256, 256}));
  EXPECT_EQ(find(t, "blk.2.attn_q.weight")->ne, (std::vector<uint64_t>{256, 512}));
  EXPECT_EQ(find(t, "blk.2.attn_output.weight")->ne, (std::vector<uint64_t>{512, 256}));
  EXPECT_EQ(find(t, "blk.2.attn_k.weight")->ne, (std::vector<uint64_t>{256, 128}));
  EXPECT_EQ(find(t, "blk.2.attn_q_norm.weight")->ne, (std::vector<uint64_t>{128}));
  EXPECT_NE(find(t, "blk.0.attn_v.weight"), nullptr);
  EXPECT_EQ(find(t, "blk.2.attn_v.weight"), nullptr);  // K as V on the global layers
  EXPECT_EQ(find(t, "blk.3.attn_k.weight"), nullptr);  // shared: no K, V or K norm
  EXPECT_EQ(find(t, "blk.3.attn_k_norm.weight"), nullptr);
  EXPECT_NE(find(t, "blk.3.attn_q_norm.weight"), nullptr);
  EXPECT_EQ(find(t, "blk.5.layer_output_scale.weight")->ne, (std::vector<uint64_t>{1}));
  // Proportional RoPE: n_embd_head / 2 factors of the global layers' heads.
  EXPECT_EQ(find(t, "rope_freqs.weight")->ne, (std::vector<uint64_t>{64}));
  EXPECT_EQ(find(t, "output.weight"), nullptr);
}

TEST(Gemma4Plan, OnlyTheLayersThatStoreKvAreCountedEachWithItsRing) {
  const auto s = gemma4_shape();
  // Layers 0 and 1 slide (8 slots of 128), layer 2 keeps all 64 positions (rows of 128); 3-5 none.
  const auto k = planner::kv_layout(s, 64);
  EXPECT_EQ(k.slots, (std::vector<uint32_t>{8, 8, 64, 0, 0, 0}));
  EXPECT_EQ(k.per_sequence, (8ull + 8 + 64) * 128);
  EXPECT_EQ(planner::kv_cache_bytes(s, 64, 1, planner::KvPrecision::f32), 2ull * 4 * 80 * 128);
  EXPECT_EQ(planner::kv_cache_bytes_without_window(s, 64, 1, planner::KvPrecision::f32),
            2ull * 4 * 3 * 64 * 128);
}

// gemma-4-31b (google/gemma-4-31B's text_config): 50 sliding layers of 16 KV heads of 256 over a
// window of 1024, 10 global layers of 4 KV heads of 512; f16 K and V.
TEST(Gemma4Plan, Gemma4_31bKvBytesAt32768FromItsPublishedDimensions) {
  const auto s = model::preset_shape("gemma-4-31b").value();
  uint32_t global = 0;
  for (uint32_t l = 0; l < s.n_layer; ++l) global += s.sliding(l) ? 0 : 1;
  EXPECT_EQ(global, 10u);
  EXPECT_FALSE(s.sliding(5));
  EXPECT_EQ(s.n_embd_kv(0), 16u * 256);
  EXPECT_EQ(s.n_embd_kv(5), 4u * 512);
  EXPECT_EQ(planner::kv_cache_bytes(s, 32768, 1, planner::KvPrecision::f16),
            2ull * 2 * (50ull * 1024 * 4096 + 10ull * 32768 * 2048));
  EXPECT_EQ(planner::kv_cache_bytes_without_window(s, 32768, 1, planner::KvPrecision::f16),
            2ull * 2 * 32768 * (50ull * 4096 + 10ull * 2048));
  // 30.7B parameters, as published.
  EXPECT_NEAR(static_cast<double>(model::parameter_count(s)), 30.7e9, 0.05e9);
}

// gemma-4-12b: 40 sliding layers of 8 KV heads of 256 over a window of 1024 and 8 global layers
// (every sixth, the last among them) of 2 KV heads of 512, K as V; f16 K and V.
TEST(Gemma4Plan, Gemma4_12bKvBytesAt32768AndItsParameterCount) {
  const auto s = model::preset_shape("gemma-4-12b").value();
  ASSERT_TRUE(model::validate_shape(s).is_ok());
  uint32_t global = 0;
  for (uint32_t l = 0; l < s.n_layer; ++l) global += s.sliding(l) ? 0 : 1;
  EXPECT_EQ(global, 8u);
  EXPECT_FALSE(s.sliding(47));
  EXPECT_TRUE(s.sliding(46));
  EXPECT_EQ(s.n_embd_kv(0), 8u * 256);
  EXPECT_EQ(s.n_embd_kv(5), 2u * 512);
  EXPECT_EQ(planner::kv_cache_bytes(s, 32768, 1, planner::KvPrecision::f16),
            2ull * 2 * (40ull * 1024 * 2048 + 8ull * 32768 * 1024));
  EXPECT_NEAR(static_cast<double>(model::parameter_count(s)), 11.92e9, 0.02e9);
}

TEST(Gemma4Models, WrittenAndReadBackWithTheirPerLayerShapes) {
  const auto shape = gemma4_shape();
  const auto bytes = synthetic_bytes(shape, FileType::q8_0);
  auto info = model::parse_gguf(bytes);
  ASSERT_TRUE(info.is_ok());
  auto m = model::load_model(*info, bytes);
  ASSERT_TRUE(m.is_ok()) << m.error().describe();
  const auto& s = m->shape;
  EXPECT_EQ(s.arch, model::Arch::gemma4);
  EXPECT_EQ(s.swa_layers, shape.swa_layers);
  EXPECT_EQ(s.layer_heads_kv, shape.layer_heads_kv);
  EXPECT_EQ(s.key_length, 128u);
  EXPECT_EQ(s.key_length_swa, 64u);
  EXPECT_EQ(s.shared_kv_layers, 3u);
  EXPECT_TRUE(s.k_as_v);
  EXPECT_EQ(s.sliding_window, 8u);
  EXPECT_EQ(s.rope_freq_base_swa, 10000.0f);
  EXPECT_TRUE(s.rope_freqs);
  // The proportional factors: a quarter of the 64 pairs turn, the rest keep still.
  const float* factors = reinterpret_cast<const float*>(m->weights.rope_freqs.data);
  EXPECT_EQ(factors[15], 1.0f);
  EXPECT_EQ(factors[16], 1e30f);
  EXPECT_NE(m->weights.layers[5].out_scale.data, nullptr);
}

// A file changed by `change` after synthesis, loaded.
core::Result<model::LoadedModel> load_changed(const std::function<void(model::GgufWriter&)>& change,
                                              std::vector<std::byte>& bytes) {
  auto w = model::synthetic_writer(gemma4_shape(), FileType::f32, 3);
  EXPECT_TRUE(w.is_ok());
  change(*w);
  bytes = w->to_bytes().value();
  auto info = model::parse_gguf(bytes);
  if (!info) return info.error();
  return model::load_model(*info, bytes);
}

TEST(Gemma4Models, BadPerLayerArraysAndSharedKvCountsAreRefusedByKey) {
  auto u32_array = [](std::vector<uint32_t> values) {
    model::MetaValue a;
    a.type = model::MetaType::array;
    a.array_type = model::MetaType::u32;
    for (uint32_t v : values) {
      model::MetaValue e;
      e.type = model::MetaType::u32;
      e.u = v;
      a.array.push_back(e);
    }
    a.array_count = a.array.size();
    return a;
  };
  const std::pair<std::function<void(model::GgufWriter&)>, std::string> cases[] = {
      {[&](auto& w) {
         w.set_meta("gemma4.attention.head_count_kv", u32_array({2, 2, 1, 2, 2}));
       },
       "'gemma4.attention.head_count_kv' has 5 values for 6 layers"},
      {[&](auto& w) {
         w.set_meta("gemma4.attention.head_count", u32_array({4, 4, 4}));
       },
       "'gemma4.attention.head_count' has 3 values for 6 layers"},
      {[&](auto& w) { w.set_meta("gemma4.attention.sliding_window_pattern", u32_array({1})); },
       "'gemma4.attention.sliding_window_pattern' has 1 values for 6 layers"},
      {[&](auto& w) { w.set_u32("gemma4.attention.shared_kv_layers", 7); },
       "'gemma4.attention.shared_kv_layers' = 7 exceeds the 6 layers"},
      {[&](auto& w) { w.set_u32("gemma4.attention.shared_kv_layers", 5); },
       "attention.shared_kv_layers 5 leaves fewer than 2"}};
  for (const auto& [change, named] : cases) {
    SCOPED_TRACE(named);
    std::vector<std::byte> bytes;
    auto m = load_changed(change, bytes);
    ASSERT_FALSE(m.is_ok());
    EXPECT_EQ(m.error().kind, core::ErrorKind::invalid_argument);
    EXPECT_NE(m.error().message.find(named), std::string::npos) << m.error().message;
  }
  std::vector<std::byte> bytes;
  EXPECT_TRUE(load_changed([](auto&) {}, bytes).is_ok());
}

// The host reference's greedy tokens on files `model make` writes (seed 1), past the window of 8:
// the tokens llama.cpp 3.22.1 (node-llama-cpp, CPU) decoded from the same files, F32 with a tied
// output and Q8_0 with an output.weight.
std::vector<int32_t> host_greedy(const std::string& dims, FileType format,
                                 const std::vector<int32_t>& prompt, uint32_t n) {
  const auto bytes = synthetic_bytes(gemma4_shape(dims), format, 1);
  auto info = model::parse_gguf(bytes);
  EXPECT_TRUE(info.is_ok());
  auto m = model::load_model(*info, bytes);
  EXPECT_TRUE(m.is_ok()) << m.error().describe();
  auto d = reference::Decoder::create(*m, {});
  EXPECT_TRUE(d.is_ok());
  auto out = reference::greedy_decode([&](int32_t t) { return (*d)->step(t); }, prompt, n);
  EXPECT_TRUE(out.is_ok());
  return *out;
}

TEST(Gemma4Decode, GreedyTokensAreLlamaCppsPastTheWindow) {
  EXPECT_EQ(host_greedy(kDims, FileType::f32, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, 20),
            (std::vector<int32_t>{191, 145, 188, 186, 209, 199, 77,  75,  29,  131,
                                  179, 13,  48,  57,  175, 192, 217, 160, 235, 111}));
  std::string untied = kDims;
  untied.replace(untied.find("tied=1"), 6, "tied=0");
  EXPECT_EQ(host_greedy(untied, FileType::q8_0, {5, 9, 2, 7, 1, 3, 8, 4, 6, 10, 11, 12, 13}, 16),
            (std::vector<int32_t>{101, 65, 193, 244, 135, 23, 236, 175, 254, 151, 217, 106, 167,
                                  109, 129, 210}));
}

// llama.cpp's loader takes layer_output_scale as optional (gemma4.cpp, TENSOR_NOT_REQUIRED): a
// file without it loads, its layers unscaled. The tokens are llama.cpp 3.22.1's (node-llama-cpp,
// CPU) on the same file, written by this test's writer (seed 1, F32).
TEST(Gemma4Models, AFileWithoutLayerOutputScaleLoadsAndDecodesAsLlamaCpp) {
  const auto shape = gemma4_shape();
  auto w = *model::synthetic_writer(shape, FileType::f32, 1);
  for (uint32_t l = 0; l < shape.n_layer; ++l) {
    w.remove_tensor("blk." + std::to_string(l) + ".layer_output_scale.weight");
  }
  const auto bytes = *w.to_bytes();
  const auto m = load(bytes);
  for (const auto& layer : m.weights.layers) EXPECT_EQ(layer.out_scale.data, nullptr);
  auto d = reference::Decoder::create(m, {});
  ASSERT_TRUE(d.is_ok());
  auto out = reference::greedy_decode([&](int32_t t) { return (*d)->step(t); },
                                      std::vector<int32_t>{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 16);
  ASSERT_TRUE(out.is_ok());
  EXPECT_EQ(*out, (std::vector<int32_t>{173, 80, 58, 90, 164, 36, 164, 106, 77, 137, 254, 106, 103,
                                        103, 103, 151}));
}

// V without attn_v is the K projection normed per head without a weight: [3, 4] / rms 3.5355.
TEST(Gemma4Ops, AnUnweightedRmsNormIsTheNormAlone) {
  std::vector<float> v = {3, 4, 1, 1};
  reference::rmsnorm_heads(v.data(), 2, 2, nullptr, 0.0f);
  EXPECT_NEAR(v[0], 0.8485281f, 1e-6f);
  EXPECT_NEAR(v[1], 1.1313708f, 1e-6f);
  EXPECT_NEAR(v[2], 1.0f, 1e-6f);
  EXPECT_NEAR(v[3], 1.0f, 1e-6f);
}

// A quantized cache needs whole blocks in every layer's head: sliding heads of 16 refuse q8_0
// even though the global heads of 128 would hold it.
TEST(Gemma4Plan, AQuantizedCacheNeedsWholeBlocksInTheNarrowestHead) {
  const auto ok = gemma4_shape();
  const planner::KvPrecision q8{model::TensorType::q8_0, model::TensorType::q8_0};
  EXPECT_TRUE(reference::check_kv_cache(ok, q8).is_ok());
  auto narrow = ok;
  narrow.key_length_swa = 16;
  auto s = reference::check_kv_cache(narrow, q8);
  ASSERT_FALSE(s.is_ok());
  EXPECT_EQ(s.error().message, "a KV cache of q8_0 needs head_dim a multiple of 32; it is 16");
}

}  // namespace
}  // namespace gauntlet::engine::test
