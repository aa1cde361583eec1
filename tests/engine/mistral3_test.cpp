// Ministral 3 (llama.cpp's src/models/mistral3.cpp) on the host reference: Llama 4's attention
// temperature by hand, YaRN's magnitude with the file's log multiplier, the published 8B's
// parameter count, and the greedy tokens llama.cpp decodes from the same file.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "engine/model/rope.h"
#include "engine/reference/decoder.h"
#include "test_models.h"

namespace gauntlet::engine::test {
namespace {

using model::FileType;

// YaRN by 4 over 8 original positions (beta_fast 16, log multiplier 1) and a temperature of 0.1:
// a 20-token prompt and 30 more tokens reach floor(pos / 8) = 6.
constexpr const char* kMistral3 =
    "arch=mistral3,n_embd=64,n_layer=2,n_head=4,n_head_kv=2,n_ff=128,n_vocab=256,context=128,"
    "yarn_factor=4,yarn_orig_ctx=8,yarn_log_mul=1,yarn_beta_fast=16,attn_temp_scale=0.1";

TEST(Mistral3Rope, TemperatureGrowsEveryOriginalContext) {
  const auto s = shape_of(kMistral3, true);
  EXPECT_EQ(model::attention_temperature(s, 0), 1.0f);
  EXPECT_EQ(model::attention_temperature(s, 7), 1.0f);
  EXPECT_EQ(model::attention_temperature(s, 8), static_cast<float>(1 + 0.1 * std::log(2.0)));
  EXPECT_EQ(model::attention_temperature(s, 50), static_cast<float>(1 + 0.1 * std::log(7.0)));
  auto none = s;
  none.attn_temp_scale = 0;
  EXPECT_EQ(model::attention_temperature(none, 50), 1.0f);
}

// With the log multiplier 1, llama.cpp's attn_factor is get_mscale(4, 1) / get_mscale(4, 1) = 1,
// divided by 1 + 0.1 ln 4, which rope_yarn multiplies back in: position 0's cos is exactly 1.
// Without it, the magnitude is 1 + 0.1 ln 4.
TEST(Mistral3Rope, YarnMagnitudeFollowsTheLogMultiplier) {
  auto s = shape_of(kMistral3, true);
  std::vector<float> table(s.rope_dims());
  model::rope_table(s, 0, {}, 0, table);
  EXPECT_NEAR(table[0], 1.0f, 1e-6f);
  s.yarn_log_mul = 0;
  model::rope_table(s, 0, {}, 0, table);
  EXPECT_NEAR(table[0], 1.0f + 0.1f * std::log(4.0f), 1e-6f);
}

// mistralai/Ministral-3-8B-Instruct-2512: two 131072 x 4096 tables, 34 layers of Q and O
// (4096^2), K and V (4096 x 1024), SwiGLU 3 x 4096 x 14336 and two norms, the final norm.
TEST(Mistral3Shape, PublishedParameterCount) {
  const auto s = model::preset_shape("ministral-3-8b").value();
  EXPECT_EQ(model::parameter_count(s), 8489553920ull);
  EXPECT_EQ(s.attn_temp_scale, 0.1f);
  EXPECT_EQ(s.yarn_orig_context, 16384u);
}

// The tokens llama.cpp 3.22.1 (node-llama-cpp, CPU) decoded from `model make --dims <kMistral3>
// --format F32` (seed 1) after the prompt below; without the temperature and the log multiplier
// the host's tokens part from these at the eighth.
TEST(Mistral3Decode, GreedyTokensAreLlamaCpps) {
  const auto bytes = synthetic_bytes(shape_of(kMistral3, true), FileType::f32, 1);
  const auto m = load(bytes);  // its weights point into the bytes
  std::vector<int32_t> prompt;
  for (int32_t i = 0; i < 20; ++i) prompt.push_back((i * 37) % 250 + 1);
  auto d = reference::Decoder::create(m, {});
  ASSERT_TRUE(d.is_ok());
  auto out = reference::greedy_decode([&](int32_t t) { return (*d)->step(t); }, prompt, 30);
  ASSERT_TRUE(out.is_ok());
  EXPECT_EQ(*out, (std::vector<int32_t>{94,  143, 123, 211, 107, 222, 228, 185, 89,  7,
                                        110, 60,  210, 85,  23,  95,  209, 218, 213, 245,
                                        73,  173, 174, 119, 163, 154, 111, 243, 80,  209}));
}

TEST(Mistral3Shape, KeysOfAnotherArchitectureAreRefused) {
  auto s = model::parse_dims(
      "n_embd=64,n_layer=1,n_head=2,n_ff=64,n_vocab=64,context=8,"
      "attn_temp_scale=0.1");
  ASSERT_TRUE(s.is_ok());
  auto valid = model::validate_shape(*s);
  ASSERT_FALSE(valid.is_ok());
  EXPECT_NE(valid.error().message.find("llama has no attention temperature"), std::string::npos)
      << valid.error().message;
}

}  // namespace
}  // namespace gauntlet::engine::test
