// The architectures the engine runs: hand-worked values of each feature (NEOX and NORM rotation,
// rope_freqs factors, a bias add, a per-head Q norm) as llama.cpp's graphs compute them, the
// tensor lists per architecture, and the refusals of what the engine does not run.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "engine/model/rope.h"
#include "engine/reference/decoder.h"
#include "engine/reference/layer_ops.h"
#include "test_models.h"

namespace gauntlet::engine::test {
namespace {

using model::FileType;
using model::RopeStyle;

model::ModelShape shape_of(const std::string& dims) {
  auto s = model::parse_dims(dims);
  EXPECT_TRUE(s.is_ok()) << s.error().describe();
  return *s;
}

// One head of 4 at position 1, base 10000: pair 0 turns by 1 rad, pair 1 by 10000^(-1/2) = 0.01.
std::vector<float> table_at_position_one(std::span<const float> factors = {}) {
  auto shape = shape_of("n_embd=32,n_layer=1,n_head=8,n_ff=32,n_vocab=16,context=8");
  EXPECT_EQ(shape.head_dim(), 4u);
  std::vector<float> table(4);
  model::rope_table(shape, 0, factors, 1, table);
  return table;
}

TEST(ArchitectureOps, NeoxTurnsTheTwoHalvesOfAHeadAndNormTurnsAdjacentPairs) {
  const auto table = table_at_position_one();
  EXPECT_NEAR(table[0], 0.5403023f, 1e-6f);  // cos 1
  EXPECT_NEAR(table[3], 0.0099998f, 1e-6f);  // sin 0.01
  // NEOX (qwen2, qwen3, phi3): pairs (x0, x2) by 1 rad and (x1, x3) by 0.01 rad.
  std::vector<float> neox = {1, 2, 3, 4};
  reference::rope_heads(neox.data(), 1, 4, 4, RopeStyle::neox, table);
  EXPECT_NEAR(neox[0], -1.9841106f, 1e-5f);  // 1 cos 1 - 3 sin 1
  EXPECT_NEAR(neox[2], 2.4623779f, 1e-5f);   // 1 sin 1 + 3 cos 1
  EXPECT_NEAR(neox[1], 1.9599007f, 1e-5f);   // 2 cos .01 - 4 sin .01
  EXPECT_NEAR(neox[3], 4.0197997f, 1e-5f);   // 2 sin .01 + 4 cos .01
  // NORM (llama): pairs (x0, x1) by 1 rad and (x2, x3) by 0.01 rad.
  std::vector<float> norm = {1, 2, 3, 4};
  reference::rope_heads(norm.data(), 1, 4, 4, RopeStyle::norm, table);
  EXPECT_NEAR(norm[0], -1.1426397f, 1e-5f);  // 1 cos 1 - 2 sin 1
  EXPECT_NEAR(norm[1], 1.9220756f, 1e-5f);   // 1 sin 1 + 2 cos 1
  EXPECT_NEAR(norm[2], 2.9598507f, 1e-5f);   // 3 cos .01 - 4 sin .01
  EXPECT_NEAR(norm[3], 4.0297995f, 1e-5f);   // 3 sin .01 + 4 cos .01
}

TEST(ArchitectureOps, RopeFreqsFactorsAndLinearScalingDivideTheAngle) {
  // Llama 3.1's rope_freqs: theta_i / factor_i (ggml_rope_ext's freq_factors).
  const std::vector<float> factors = {2.0f, 1.0f};
  const auto table = table_at_position_one(factors);
  EXPECT_NEAR(table[0], std::cos(0.5f), 1e-6f);
  EXPECT_NEAR(table[1], std::sin(0.5f), 1e-6f);
  EXPECT_NEAR(table[2], std::cos(0.01f), 1e-6f);
  // Linear scaling (rope.scaling.factor 4): freq_scale 0.25 turns position 4 as position 1.
  auto shape = shape_of("n_embd=32,n_layer=1,n_head=8,n_ff=32,n_vocab=16,context=8");
  shape.rope_freq_scale = 0.25f;
  std::vector<float> scaled(4);
  model::rope_table(shape, 0, {}, 4, scaled);
  EXPECT_NEAR(scaled[0], std::cos(1.0f), 1e-6f);
  EXPECT_NEAR(scaled[3], std::sin(0.01f), 1e-6f);
}

TEST(ArchitectureOps, PerHeadQNormNormalizesEachHeadWithTheSharedWeight) {
  // qwen3: heads [3, 4] and [1, 1], weight [1, 2], eps 0. rms([3, 4]) = sqrt(12.5).
  std::vector<float> q = {3, 4, 1, 1};
  const float weight[] = {1, 2};
  reference::rmsnorm_heads(q.data(), 2, 2, weight, 0.0f);
  EXPECT_NEAR(q[0], 0.8485281f, 1e-6f);
  EXPECT_NEAR(q[1], 2.2627417f, 1e-6f);
  EXPECT_NEAR(q[2], 1.0f, 1e-6f);
  EXPECT_NEAR(q[3], 2.0f, 1e-6f);
}

TEST(ArchitectureOps, BiasAddsElementwise) {
  // qwen2: Qcur = wq * cur + bq.
  std::vector<float> x = {1, 2, 3};
  const float bias[] = {0.5f, -1.0f, 2.0f};
  reference::add_bias(x.data(), bias, 3);
  EXPECT_EQ(x, (std::vector<float>{1.5f, 1.0f, 5.0f}));
}

const model::TensorDesc* find(const std::vector<model::TensorDesc>& list, const std::string& n) {
  for (const auto& t : list) {
    if (t.name == n) return &t;
  }
  return nullptr;
}

TEST(Architectures, TensorListsAreLlamaCppsForEachArchitecture) {
  const std::string dims =
      ",n_embd=256,n_layer=2,n_head=8,n_head_kv=2,n_ff=512,n_vocab=64,context=64";
  auto qwen2 = model::model_tensors(shape_of("arch=qwen2,tied=1" + dims), FileType::q4_K_M);
  ASSERT_NE(find(qwen2, "blk.1.attn_k.bias"), nullptr);
  EXPECT_EQ(find(qwen2, "blk.1.attn_k.bias")->ne, (std::vector<uint64_t>{64}));
  EXPECT_EQ(find(qwen2, "blk.1.attn_k.bias")->type, model::TensorType::f32);
  EXPECT_EQ(find(qwen2, "output.weight"), nullptr);
  // Tied: the token embedding is the output matrix, so it takes the output's Q6_K.
  EXPECT_EQ(find(qwen2, "token_embd.weight")->type, model::TensorType::q6_K);

  auto qwen3 = model::model_tensors(shape_of("arch=qwen3,head_dim=64" + dims), FileType::f16);
  EXPECT_EQ(find(qwen3, "blk.0.attn_q_norm.weight")->ne, (std::vector<uint64_t>{64}));
  EXPECT_EQ(find(qwen3, "blk.0.attn_q.weight")->ne, (std::vector<uint64_t>{256, 512}));
  EXPECT_EQ(find(qwen3, "blk.0.attn_output.weight")->ne, (std::vector<uint64_t>{512, 256}));
  EXPECT_EQ(find(qwen3, "blk.0.attn_q.bias"), nullptr);

  auto phi3 = model::model_tensors(shape_of("arch=phi3" + dims), FileType::q4_K_M);
  EXPECT_EQ(find(phi3, "blk.0.attn_qkv.weight")->ne, (std::vector<uint64_t>{256, 256 + 2 * 64}));
  // llama-quant.cpp: attn_qkv takes attn_v's rules (category_is_attn_v); in a Q4_K_M file of two
  // layers, use_more_bits picks layer 1 only.
  EXPECT_EQ(find(phi3, "blk.0.attn_qkv.weight")->type, model::TensorType::q4_K);
  EXPECT_EQ(find(phi3, "blk.1.attn_qkv.weight")->type, model::TensorType::q6_K);
  EXPECT_EQ(find(phi3, "blk.0.ffn_up.weight")->ne, (std::vector<uint64_t>{256, 1024}));
  EXPECT_EQ(find(phi3, "blk.0.ffn_gate.weight"), nullptr);
  EXPECT_EQ(find(phi3, "blk.0.attn_q.weight"), nullptr);

  auto llama = model::model_tensors(shape_of("rope_freqs=1" + dims), FileType::q8_0);
  EXPECT_EQ(find(llama, "rope_freqs.weight")->ne, (std::vector<uint64_t>{16}));
  EXPECT_EQ(find(llama, "rope_freqs.weight")->type, model::TensorType::f32);
}

// Each architecture's default file holds exactly as many tensors as llama.cpp's loader creates for
// it (it refuses any other count: "done_getting_tensors: wrong number of tensors"): the counts
// below are of files of these dimensions that llama.cpp 3.22.1 loaded and decoded to gauntlet's
// greedy tokens. gemma2 never has an output.weight (its logits always use token_embd); asking for
// one is refused by name.
TEST(Architectures, EachDefaultFileHasTheTensorsLlamaCppCreates) {
  const std::string dims =
      ",n_embd=128,n_layer=2,n_head=4,n_head_kv=2,n_ff=256,n_vocab=256,"
      "context=256";
  const std::tuple<const char*, size_t, bool> expected[] = {
      {"arch=llama", 21, true},
      {"arch=qwen2", 27, true},
      {"arch=qwen3", 25, true},
      {"arch=phi3", 15, true},
      {"arch=gemma2", 24, false},
      {"arch=gemma3", 29, true},
      {"arch=qwen2moe,n_expert=4,n_expert_used=2,n_ff_exp=64,n_ff_shexp=128", 37, true},
      {"arch=qwen3moe,n_expert=4,n_expert_used=2,n_ff_exp=64", 27, true}};
  for (const auto& [arch, count, output] : expected) {
    SCOPED_TRACE(arch);
    const auto tensors = model::model_tensors(shape_of(arch + dims), FileType::f32);
    EXPECT_EQ(tensors.size(), count);
    EXPECT_EQ(find(tensors, "output.weight") != nullptr, output);
  }
  auto untied = model::parse_dims("arch=gemma2,tied=0" + dims);
  ASSERT_TRUE(untied.is_ok());
  auto valid = model::validate_shape(*untied);
  ASSERT_FALSE(valid.is_ok());
  EXPECT_NE(valid.error().message.find("gemma2 has no output.weight"), std::string::npos)
      << valid.error().message;
}

// A synthetic file with one thing changed in its metadata or tensors.
core::Result<model::LoadedModel> load_changed(const std::function<void(model::GgufWriter&)>& change,
                                              std::vector<std::byte>& bytes,
                                              const std::string& arch = "qwen2") {
  auto shape = shape_of("arch=" + arch +
                        ",n_embd=64,n_layer=1,n_head=4,n_head_kv=2,n_ff=128,n_vocab=32,context=16");
  auto w = model::synthetic_writer(shape, FileType::f32, 3);
  EXPECT_TRUE(w.is_ok());
  change(*w);
  bytes = w->to_bytes().value();
  auto info = model::parse_gguf(bytes);
  if (!info) return info.error();
  return model::load_model(*info, bytes);
}

void expect_refused(const std::function<void(model::GgufWriter&)>& change, const std::string& named,
                    const std::string& arch = "qwen2") {
  std::vector<std::byte> bytes;
  auto m = load_changed(change, bytes, arch);
  ASSERT_FALSE(m.is_ok()) << named;
  EXPECT_NE(m.error().message.find(named), std::string::npos) << m.error().message;
}

TEST(Architectures, WhatTheEngineDoesNotRunIsRefusedByName) {
  std::vector<std::byte> bytes;
  ASSERT_TRUE(load_changed([](model::GgufWriter&) {}, bytes).is_ok());
  expect_refused([](auto& w) { w.set_string("general.architecture", "mamba"); },
                 "architecture 'mamba'");
  expect_refused([](auto& w) { w.set_u32("qwen2.expert_count", 8); },
                 "qwen2 has no mixture of experts");
  expect_refused([](auto& w) { w.set_string("qwen2.rope.scaling.type", "longrope"); },
                 "RoPE scaling 'longrope'");
  expect_refused(
      [](auto& w) {
        w.add_tensor("rope_factors_long.weight", {8}, model::TensorType::f32,
                     [](uint64_t, float* out) { std::fill(out, out + 8, 1.0f); });
      },
      "LongRoPE", "phi3");
  expect_refused(
      [](auto& w) {
        w.add_tensor("v.blk.0.attn_q.weight", {64, 64}, model::TensorType::f32,
                     [](uint64_t, float* out) { std::fill(out, out + 64, 0.0f); });
      },
      "vision tower");
  expect_refused([](auto& w) { w.set_u32("qwen2.attention.value_length", 8); }, "value_length");
}

// YaRN is read for any architecture that declares it (src/llama-model.cpp load_hparams): the
// factor, the original context and rope.scaling.attn_factor; a yarn file without a factor keeps
// freq_scale 1, as llama.cpp does.
TEST(Architectures, YarnIsReadForEveryArchitectureThatDeclaresIt) {
  std::vector<std::byte> bytes;
  auto m = load_changed(
      [](auto& w) {
        w.set_string("qwen2.rope.scaling.type", "yarn");
        w.set_f32("qwen2.rope.scaling.factor", 4.0f);
        w.set_u32("qwen2.rope.scaling.original_context_length", 8);
        w.set_f32("qwen2.rope.scaling.attn_factor", 0.5f);
      },
      bytes);
  ASSERT_TRUE(m.is_ok()) << m.error().describe();
  EXPECT_TRUE(m->shape.yarn);
  EXPECT_FLOAT_EQ(m->shape.rope_freq_scale, 0.25f);
  EXPECT_EQ(m->shape.yarn_orig_context, 8u);
  EXPECT_FLOAT_EQ(m->shape.rope_attn_factor, 0.5f);
  auto bare = load_changed([](auto& w) { w.set_string("qwen2.rope.scaling.type", "yarn"); }, bytes);
  ASSERT_TRUE(bare.is_ok()) << bare.error().describe();
  EXPECT_TRUE(bare->shape.yarn);
  EXPECT_FLOAT_EQ(bare->shape.rope_freq_scale, 1.0f);
}

TEST(Architectures, AFileWithoutATensorItsArchitectureNeedsNamesIt) {
  // A llama-shaped file that calls itself qwen2 has no Q/K/V biases.
  std::vector<std::byte> bytes;
  auto m = load_changed(
      [](auto& w) {
        w.set_string("general.architecture", "qwen2");
        const std::pair<const char*, uint32_t> keys[] = {
            {"qwen2.embedding_length", 64},       {"qwen2.block_count", 1},
            {"qwen2.feed_forward_length", 128},   {"qwen2.attention.head_count", 4},
            {"qwen2.attention.head_count_kv", 2}, {"qwen2.context_length", 16}};
        for (const auto& [key, value] : keys) w.set_u32(key, value);
      },
      bytes, "llama");
  ASSERT_FALSE(m.is_ok());
  EXPECT_NE(m.error().message.find("'blk.0.attn_q.bias' is missing (architecture qwen2"),
            std::string::npos)
      << m.error().message;
}

// Every architecture reads back as written and decodes on the host; the tokens vary with the
// features (the same weights decode differently as llama and as qwen2).
TEST(Architectures, SyntheticModelsReadBackAndDecode) {
  const std::string dims =
      ",n_embd=64,n_layer=2,n_head=4,n_head_kv=2,n_ff=128,n_vocab=64,context=32";
  for (const char* arch :
       {"arch=llama,rope_freqs=1", "arch=qwen2,tied=1", "arch=qwen3,head_dim=32", "arch=phi3"}) {
    SCOPED_TRACE(arch);
    const auto shape = shape_of(std::string(arch) + dims);
    const auto bytes = synthetic_bytes(shape, FileType::q8_0);
    auto info = model::parse_gguf(bytes);
    ASSERT_TRUE(info.is_ok());
    auto m = model::load_model(*info, bytes);
    ASSERT_TRUE(m.is_ok()) << m.error().describe();
    EXPECT_EQ(m->shape.arch, shape.arch);
    EXPECT_EQ(m->shape.head_dim(), shape.head_dim());
    EXPECT_EQ(m->shape.tied_output, shape.tied_output);
    EXPECT_EQ(m->shape.rope_freqs, shape.rope_freqs);
    auto decoder = reference::Decoder::create(*m, {});
    ASSERT_TRUE(decoder.is_ok()) << decoder.error().describe();
    const int32_t prompt[] = {1, 2, 3};
    auto tokens =
        reference::greedy_decode([&](int32_t t) { return (*decoder)->step(t); }, prompt, 8);
    ASSERT_TRUE(tokens.is_ok()) << tokens.error().describe();
    EXPECT_EQ(tokens->size(), 8u);
  }
}

}  // namespace
}  // namespace gauntlet::engine::test
