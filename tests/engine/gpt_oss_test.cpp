// gpt-oss on the host: the router's softmax over the picked logits, the clamped SwiGLU and YaRN's
// angles on hand-worked values, the tensors (biases, sinks, post_attention_norm before the
// experts) with their MXFP4_MOE types, and a file's metadata read back and decoded, where the
// sinks, biases and YaRN each change the tokens.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <set>
#include <vector>

#include "engine/model/rope.h"
#include "engine/reference/decoder.h"
#include "engine/reference/experts.h"
#include "engine/reference/layer_ops.h"
#include "test_models.h"

namespace gauntlet::engine::test {
namespace {

using model::FileType;
using model::TensorType;

const std::string kGptOssDims =
    "arch=gpt-oss,n_embd=64,n_layer=2,n_head=4,n_head_kv=2,head_dim=32,n_ff=64,n_expert=4,"
    "n_expert_used=2,n_ff_exp=32,n_vocab=64,context=64,window=8";

// Logits 0, 1, 2, 3: experts 3 and 2 picked by their logits, weights softmax(3, 2); the logits
// themselves are left as they were (no softmax over every expert).
TEST(GptOss, TheRouterSoftmaxesThePickedLogitsOnly) {
  const auto s = shape_of(kGptOssDims);
  std::vector<float> router = {0, 1, 2, 3}, selected(4);
  reference::route_token(s, router.data(), selected.data());
  EXPECT_EQ(router, (std::vector<float>{0, 1, 2, 3}));
  EXPECT_EQ(selected[0], 3.0f);
  EXPECT_EQ(selected[1], 2.0f);
  EXPECT_NEAR(selected[2], 1 / (1 + std::exp(-1.0)), 1e-6);
  EXPECT_NEAR(selected[3], 1 / (1 + std::exp(1.0)), 1e-6);
}

// ggml_swiglu_oai with alpha 1.702, limit 7: the gate clamped above only, the up on both sides,
// and the up shifted by one.
TEST(GptOss, TheClampedSwigluIsGgmlsSwigluOai) {
  std::vector<float> gate = {10.0f, -2.0f, 0.5f}, up = {8.0f, -9.0f, 0.25f};
  reference::swiglu_oai(gate.data(), up.data(), 3, 1.702f, 7.0f);
  auto glu = [](double x) { return x / (1 + std::exp(-1.702 * x)); };
  EXPECT_NEAR(gate[0], glu(7) * 8, 1e-5);
  EXPECT_NEAR(gate[1], glu(-2) * -6, 1e-5);
  EXPECT_NEAR(gate[2], glu(0.5) * 1.25, 1e-6);
}

// 16 rotary dimensions, base 10000, factor 4 over an original context of 32: ggml's correction
// dimensions are 0 (beta_fast 32: floor(16 ln(32 / 64 pi) / 2 ln 10000) < 0) and 2 (beta_slow 1:
// ceil(16 ln(32 / 2 pi) / 2 ln 10000) = ceil(1.41)), so pair 0 keeps its unscaled angle, pair 1
// takes the mean of both and pairs 2 on the interpolated one; every cos/sin is scaled by
// 1 + 0.1 ln 4.
TEST(GptOss, YarnBlendsTheAnglesByGgmlsRampAndScalesTheMagnitude) {
  auto s = shape_of(
      "arch=gpt-oss,n_embd=64,n_layer=2,n_head=4,n_head_kv=2,head_dim=16,n_ff=64,"
      "n_expert=4,n_expert_used=2,n_ff_exp=32,n_vocab=64,context=128,"
      "rope_freq_base=10000,yarn_factor=4,yarn_orig_ctx=32");
  ASSERT_TRUE(s.yarn);
  std::vector<float> table(16);
  model::rope_table(s, 1, {}, 10, table);
  const double mscale = 1 + 0.1 * std::log(4.0), pos = 10;
  auto freq = [](int i) { return std::pow(10000.0, -2.0 * i / 16); };
  EXPECT_NEAR(table[0], std::cos(pos) * mscale, 1e-5);
  EXPECT_NEAR(table[1], std::sin(pos) * mscale, 1e-5);
  EXPECT_NEAR(table[2], std::cos(pos * freq(1) * (0.5 + 0.5 / 4)) * mscale, 1e-5);
  EXPECT_NEAR(table[6], std::cos(pos * freq(3) / 4) * mscale, 1e-5);
  EXPECT_NEAR(table[15], std::sin(pos * freq(7) / 4) * mscale, 1e-5);
}

// src/models/openai-moe.cpp's tensors; llama-quant.cpp's MXFP4_MOE: the expert stacks MXFP4, the
// other matrices Q8_0, biases (also the 2-D expert bias rows) and sinks F32.
TEST(GptOss, TheTensorsAreLlamaCppsWithMxfp4Experts) {
  const auto t = model::model_tensors(shape_of(kGptOssDims), FileType::mxfp4_moe);
  const std::pair<const char*, TensorType> want[] = {
      {"blk.1.attn_q.bias", TensorType::f32},
      {"blk.1.attn_output.bias", TensorType::f32},
      {"blk.1.attn_sinks.weight", TensorType::f32},
      {"blk.1.post_attention_norm.weight", TensorType::f32},
      {"blk.1.ffn_gate_inp.bias", TensorType::f32},
      {"blk.1.ffn_gate_exps.bias", TensorType::f32},
      {"blk.1.ffn_down_exps.bias", TensorType::f32},
      {"blk.1.ffn_up_exps.weight", TensorType::mxfp4},
      {"blk.1.ffn_down_exps.weight", TensorType::mxfp4},
      {"blk.1.attn_q.weight", TensorType::q8_0},
      {"output.weight", TensorType::q8_0}};
  for (const auto& [name, type] : want) {
    const auto* d = find(t, name);
    ASSERT_NE(d, nullptr) << name;
    EXPECT_EQ(d->type, type) << name;
  }
  EXPECT_EQ(find(t, "blk.1.attn_sinks.weight")->ne, (std::vector<uint64_t>{4}));
  EXPECT_EQ(find(t, "blk.1.ffn_down_exps.bias")->ne, (std::vector<uint64_t>{64, 4}));
  EXPECT_EQ(find(t, "blk.1.ffn_norm.weight"), nullptr);
  auto fused = shape_of(kGptOssDims + ",fused_gate_up=1");
  EXPECT_FALSE(model::validate_shape(fused).is_ok());
}

std::vector<int32_t> decode(const model::LoadedModel& m, uint32_t steps) {
  auto d = reference::Decoder::create(m, {});
  EXPECT_TRUE(d.is_ok()) << d.error().describe();
  const int32_t prompt[] = {1, 7, 42, 3};
  auto tokens = reference::greedy_decode([&](int32_t t) { return (*d)->step(t); }, prompt, steps);
  EXPECT_TRUE(tokens.is_ok()) << tokens.error().describe();
  return tokens.is_ok() ? *tokens : std::vector<int32_t>{};
}

// Past the window of 8 on a YaRN file: the metadata reads back, and zeroing the sinks, the expert
// biases or the YaRN factor each change what it decodes.
TEST(GptOss, AFileReadsBackAndEachFeatureChangesTheDecode) {
  const auto shape = shape_of(kGptOssDims + ",yarn_factor=8,yarn_orig_ctx=16");
  auto bytes = synthetic_bytes(shape, FileType::mxfp4_moe);
  auto info = model::parse_gguf(bytes);
  ASSERT_TRUE(info.is_ok());
  auto m = model::load_model(*info, bytes);
  ASSERT_TRUE(m.is_ok()) << m.error().describe();
  EXPECT_EQ(m->shape.arch, model::Arch::gpt_oss);
  EXPECT_TRUE(m->shape.yarn);
  EXPECT_FLOAT_EQ(m->shape.rope_freq_scale, 0.125f);
  EXPECT_EQ(m->shape.yarn_orig_context, 16u);
  EXPECT_EQ(m->shape.sliding_window, 8u);
  EXPECT_TRUE(m->shape.sliding(0));
  EXPECT_FALSE(m->shape.sliding(1));
  const auto tokens = decode(*m, 16);
  ASSERT_EQ(tokens.size(), 16u);
  std::set<int32_t> distinct(tokens.begin(), tokens.end());
  EXPECT_GT(distinct.size(), 3u);

  auto zero = [&](const std::string& suffix) {
    auto copy = bytes;
    for (const auto& t : info->tensors) {
      if (!t.name.ends_with(suffix)) continue;
      std::memset(copy.data() + info->data_offset + t.offset, 0, t.bytes);
    }
    return copy;
  };
  for (const char* suffix : {"attn_sinks.weight", "_exps.bias", "attn_output.bias"}) {
    SCOPED_TRACE(suffix);
    auto changed = zero(suffix);
    auto changed_info = model::parse_gguf(changed);
    ASSERT_TRUE(changed_info.is_ok());
    auto cm = model::load_model(*changed_info, changed);
    ASSERT_TRUE(cm.is_ok());
    EXPECT_NE(decode(*cm, 16), tokens);
  }
  auto no_yarn = *m;
  no_yarn.shape.yarn = false;
  no_yarn.shape.rope_freq_scale = 1.0f;
  EXPECT_NE(decode(no_yarn, 16), tokens);
}

// The host reference's passes of 32 and 512 tokens give its token-by-token logits bit for bit,
// over a prompt of 520 positions (the window of 8 passed many times over).
TEST(GptOss, HostPassesOf32And512TokensGiveTheTokenByTokenLogits) {
  const auto shape = shape_of(kGptOssDims + ",context=640,yarn_factor=4,yarn_orig_ctx=16");
  auto bytes = synthetic_bytes(shape, FileType::mxfp4_moe);
  auto info = model::parse_gguf(bytes);
  ASSERT_TRUE(info.is_ok());
  auto m = model::load_model(*info, bytes);
  ASSERT_TRUE(m.is_ok()) << m.error().describe();
  const uint32_t n = 520;
  std::vector<BatchToken> prompt;
  for (uint32_t i = 0; i < n; ++i) prompt.push_back({static_cast<int32_t>((i * 37 + 1) % 64), 0});
  auto logits = [&](uint32_t micro_batch) {
    auto d = reference::Decoder::create(
        *m, {{.kv = planner::KvPrecision::f32, .context = n, .micro_batch = micro_batch}});
    EXPECT_TRUE(d.is_ok()) << d.error().describe();
    std::vector<float> out;
    for (uint32_t begin = 0; begin < n; begin += micro_batch) {
      std::vector<BatchToken> pass(prompt.begin() + begin,
                                   prompt.begin() + std::min(n, begin + micro_batch));
      for (auto& t : pass) t.logits = true;
      auto l = (*d)->forward(pass);
      EXPECT_TRUE(l.is_ok()) << l.error().describe();
      if (l.is_ok()) out.insert(out.end(), l->begin(), l->end());
    }
    return out;
  };
  const auto one = logits(1);
  ASSERT_EQ(one.size(), size_t{n} * shape.n_vocab);
  EXPECT_EQ(logits(32), one);
  EXPECT_EQ(logits(512), one);
}

}  // namespace
}  // namespace gauntlet::engine::test
