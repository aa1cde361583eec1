// Qwen3-VL's text decoder (qwen3vl) on the host reference: the presets' published dimensions; the
// pairs IMROPE's sections turn for a text token (those they do not reach stay unturned); sections
// that reach every pair give a qwen3 file's logits from the same weights (the deepstack slices
// being zero for text); the keys written and read back; a projector file and bad keys refused by
// name.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "engine/model/rope.h"
#include "engine/reference/decoder.h"
#include "test_models.h"

namespace gauntlet::engine::test {
namespace {

using model::FileType;

model::ModelShape vl_shape(const std::string& extra = "") {
  auto s = model::parse_dims(
      "arch=qwen3vl,n_embd=128,n_layer=2,n_head=2,n_head_kv=1,head_dim=64,n_ff=256,n_vocab=64,"
      "context=64,rope_sections=12:10:10:0,deepstack=1" +
      extra);
  EXPECT_TRUE(s.is_ok()) << s.error().describe();
  auto valid = model::validate_shape(*s);
  EXPECT_TRUE(valid.is_ok()) << valid.error().describe();
  return *s;
}

core::Error refusal(const std::vector<std::byte>& bytes) {
  auto info = model::parse_gguf(bytes);
  EXPECT_TRUE(info.is_ok());
  auto m = model::load_model(*info, bytes);
  EXPECT_FALSE(m.is_ok());
  return m.is_ok() ? core::make_error(core::ErrorKind::internal, "loaded") : m.error();
}

// Qwen/Qwen3-VL-2B-Instruct and -8B-Instruct's text_config. Parameters by hand: per layer the two
// norms, Q and O (n_embd x n_embd), K and V (n_embd x 8 x 128), the Q/K norms (128 each) and three
// feed-forward matrices; then the embedding (twice when untied) and the output norm. llama.cpp
// types them 1.7B and 8B by their layer count (llama_model_qwen3vl::load_arch_hparams).
TEST(Qwen3VlShape, PresetsHaveThePublishedDimensions) {
  const auto s2 = model::preset_shape("qwen3-vl-2b").value();
  EXPECT_EQ(s2.arch, model::Arch::qwen3vl);
  EXPECT_EQ(s2.n_embd, 2048u);
  EXPECT_EQ(s2.n_layer, 28u);
  EXPECT_EQ(s2.head_dim(), 128u);
  EXPECT_EQ(s2.rope_dims(), 128u);
  EXPECT_EQ(s2.rope_sections, (std::array<uint32_t, 4>{24, 20, 20, 0}));
  EXPECT_EQ(s2.n_deepstack_layers, 3u);
  EXPECT_TRUE(s2.tied_output);
  EXPECT_EQ(s2.rope_freq_base, 5000000.0f);
  EXPECT_TRUE(model::validate_shape(s2).is_ok());
  const uint64_t layer2 =
      2 * 2048 + 2 * 2048ull * 2048 + 2 * 2048ull * 1024 + 2 * 128 + 3 * 2048ull * 6144;
  EXPECT_EQ(model::parameter_count(s2), 28 * layer2 + 151936ull * 2048 + 2048);  // 1.72B

  const auto s8 = model::preset_shape("qwen3-vl-8b").value();
  EXPECT_EQ(s8.n_head, 32u);
  EXPECT_EQ(s8.n_head_kv, 8u);
  EXPECT_FALSE(s8.tied_output);
  EXPECT_TRUE(model::validate_shape(s8).is_ok());
  const uint64_t layer8 =
      2 * 4096 + 2 * 4096ull * 4096 + 2 * 4096ull * 1024 + 2 * 128 + 3 * 4096ull * 12288;
  EXPECT_EQ(model::parameter_count(s8), 36 * layer8 + 2 * 151936ull * 4096 + 4096);  // 8.19B
}

// IMROPE for text (ggml-cpu's ggml_mrope_cache_init with is_imrope): pair i is sector i % 32 of
// sections 12:10:10; sector % 3 picks time, height or width while the sector is below 3x that
// section, else the extra component, position 0 for text. Pairs 0-30 turn at NEOX's angle; pair 31
// is height's (31 % 3 = 1) but 31 >= 3 x 10, so it does not turn. Qwen3-VL's own [24, 20, 20] of
// 64 pairs leaves pairs 61 and 62 unturned the same way (pair 63 is time's: 63 < 72).
TEST(Qwen3VlShape, ImropeTurnsThePairsItsSectionsReach) {
  auto s = vl_shape();
  std::vector<float> table(64);
  model::rope_table(s, 1, {}, 9, table);
  for (uint32_t i = 0; i < 31; ++i) {
    const double theta = 9 * std::pow(10000.0, -2.0 * i / 64);
    EXPECT_NEAR(table[2 * i], std::cos(theta), 1e-6) << i;
    EXPECT_NEAR(table[2 * i + 1], std::sin(theta), 1e-6) << i;
  }
  EXPECT_EQ(table[62], 1.0f);
  EXPECT_EQ(table[63], 0.0f);
  const auto vl2b = model::preset_shape("qwen3-vl-2b").value();
  std::vector<float> wide(128);
  model::rope_table(vl2b, 0, {}, 5, wide);
  EXPECT_EQ(wide[2 * 61 + 1], 0.0f);
  EXPECT_EQ(wide[2 * 62 + 1], 0.0f);
  EXPECT_NEAR(wide[2 * 63 + 1], std::sin(5 * std::pow(5e6, -126.0 / 128)), 1e-9);
  EXPECT_NEAR(wide[2 * 60 + 1], std::sin(5 * std::pow(5e6, -120.0 / 128)), 1e-9);
}

// Sections 11:11:10 reach every one of the 32 pairs (sector 31 < 33, 30 < 33, 29 < 30), so the
// same weights under qwen3 (ggml_rope_ext, NEOX) and qwen3vl (ggml_rope_multi, IMROPE; the
// deepstack slices zero for text) give the same logits, bit for bit.
TEST(Qwen3VlReference, SectionsReachingEveryPairDecodeAsQwen3OverTheSameWeights) {
  auto vl = vl_shape();
  vl.rope_sections = {11, 11, 10, 0};
  auto q3 = vl;
  q3.arch = model::Arch::qwen3;
  q3.rope_sections = {};
  q3.n_deepstack_layers = 0;
  ASSERT_TRUE(model::validate_shape(q3).is_ok());
  const auto vl_bytes = synthetic_bytes(vl, FileType::q8_0);
  const auto q3_bytes = synthetic_bytes(q3, FileType::q8_0);
  const auto vl_model = load(vl_bytes);
  const auto q3_model = load(q3_bytes);
  auto a = reference::Decoder::create(vl_model, {{.threads = 1}});
  auto b = reference::Decoder::create(q3_model, {{.threads = 1}});
  ASSERT_TRUE(a.is_ok() && b.is_ok());
  for (int32_t id : {1, 7, 42, 3, 9, 11}) {
    auto la = (*a)->step(id);
    ASSERT_TRUE(la.is_ok());
    const std::vector<float> va(la->begin(), la->end());
    auto lb = (*b)->step(id);
    ASSERT_TRUE(lb.is_ok());
    ASSERT_EQ(va, std::vector<float>(lb->begin(), lb->end())) << id;
  }
}

TEST(Qwen3VlLoad, KeysAreWrittenAndReadBack) {
  const auto m = load(synthetic_bytes(vl_shape(), FileType::f32));
  EXPECT_EQ(m.shape.arch, model::Arch::qwen3vl);
  EXPECT_EQ(m.shape.rope_sections, (std::array<uint32_t, 4>{12, 10, 10, 0}));
  EXPECT_EQ(m.shape.n_deepstack_layers, 1u);
  EXPECT_EQ(m.shape.rope_dims(), 64u);
  // Left out, the sections split the rotated pairs nearly evenly.
  auto s = model::parse_dims(
      "arch=qwen3vl,n_embd=128,n_layer=2,n_head=2,n_head_kv=1,head_dim=64,n_ff=256,n_vocab=64,"
      "context=64");
  ASSERT_TRUE(s.is_ok());
  EXPECT_EQ(s->rope_sections, (std::array<uint32_t, 4>{11, 11, 10, 0}));
}

// A projector (mmproj: general.architecture "clip"), missing or empty sections, a rotary dimension
// below the head's (llama.cpp asserts n_embd_head == n_rot), deepstack after the last layer (where
// llama.cpp's graph asserts) and deepstack on another architecture are refused by name.
TEST(Qwen3VlLoad, AProjectorAndBadKeysAreRefusedByName) {
  {
    model::GgufWriter w;
    w.set_string("general.architecture", "clip");
    w.set_u32("clip.vision.embedding_length", 1024);
    auto bytes = w.to_bytes();
    ASSERT_TRUE(bytes.is_ok());
    const auto e = refusal(*bytes);
    EXPECT_NE(e.message.find("architecture 'clip' is a vision projector (mmproj)"),
              std::string::npos)
        << e.message;
  }
  {
    auto w = *model::synthetic_writer(vl_shape(), FileType::f32, 7);
    w.set_u32("qwen3vl.rope.dimension_sections", 24);
    const auto e = refusal(*w.to_bytes());
    EXPECT_NE(e.message.find("'qwen3vl.rope.dimension_sections' is missing"), std::string::npos)
        << e.message;
  }
  {
    auto w = *model::synthetic_writer(vl_shape(), FileType::f32, 7);
    model::MetaValue zeros;
    zeros.type = model::MetaType::array;
    zeros.array_type = model::MetaType::i32;
    model::MetaValue zero;
    zero.type = model::MetaType::i32;
    zeros.array.assign(4, zero);
    zeros.array_count = 4;
    w.set_meta("qwen3vl.rope.dimension_sections", zeros);
    const auto e = refusal(*w.to_bytes());
    EXPECT_NE(e.message.find("rope.dimension_sections [0, 0, 0, 0] must name rotary pairs"),
              std::string::npos)
        << e.message;
  }
  auto rope16 = model::parse_dims(
      "arch=qwen3vl,n_embd=128,n_layer=2,n_head=2,n_head_kv=1,head_dim=64,rope_dim=16,n_ff=256,"
      "n_vocab=64,context=64");
  ASSERT_TRUE(rope16.is_ok());
  auto valid = model::validate_shape(*rope16);
  ASSERT_FALSE(valid.is_ok());
  EXPECT_NE(valid.error().message.find("qwen3vl's rope_dim 16 must be the head dimension 64"),
            std::string::npos)
      << valid.error().message;
  auto last = model::parse_dims(
      "arch=qwen3vl,n_embd=128,n_layer=2,n_head=2,n_head_kv=1,head_dim=64,n_ff=256,n_vocab=64,"
      "context=64,deepstack=2");
  ASSERT_TRUE(last.is_ok());
  valid = model::validate_shape(*last);
  ASSERT_FALSE(valid.is_ok());
  EXPECT_NE(valid.error().message.find("n_deepstack_layers 2 must be below n_layer 2"),
            std::string::npos)
      << valid.error().message;
  auto llama =
      model::parse_dims("n_embd=128,n_layer=2,n_head=2,n_ff=256,n_vocab=64,context=64,deepstack=3");
  ASSERT_TRUE(llama.is_ok());
  valid = model::validate_shape(*llama);
  ASSERT_FALSE(valid.is_ok());
  EXPECT_NE(valid.error().message.find("llama has no deepstack layers"), std::string::npos)
      << valid.error().message;
}

}  // namespace
}  // namespace gauntlet::engine::test
