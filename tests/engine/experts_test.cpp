// Mixtures of experts on the host: the router on hand-worked values (softmax, top-k with ties to
// the lower id, the weights normalised or not as each graph passes norm_w), the tensors each
// architecture has, the expert counts refused, and a file's experts read back and decoded.
#include "engine/reference/experts.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "engine/reference/decoder.h"
#include "test_models.h"

namespace gauntlet::engine::test {
namespace {

using model::FileType;
using model::TensorType;

const std::string kDims =
    ",n_embd=64,n_layer=2,n_head=4,n_head_kv=2,n_ff=128,n_vocab=64,context=32";

TEST(ExpertRouter, TopKTakesTheLargestFirstAndBreaksTiesToTheLowerId) {
  uint32_t ids[2] = {};
  const std::vector<float> tied = {0.1f, 0.4f, 0.4f, 0.1f};
  reference::top_k(tied, 2, ids);
  EXPECT_EQ(ids[0], 1u);
  EXPECT_EQ(ids[1], 2u);
  const std::vector<float> ordered = {0.1f, 0.2f, 0.3f, 0.4f};
  reference::top_k(ordered, 2, ids);
  EXPECT_EQ(ids[0], 3u);
  EXPECT_EQ(ids[1], 2u);
  const std::vector<float> all_equal = {0.25f, 0.25f, 0.25f, 0.25f};
  reference::top_k(all_equal, 2, ids);
  EXPECT_EQ(ids[0], 0u);
  EXPECT_EQ(ids[1], 1u);
}

// Logits 0, 1, 2, 3: softmax e^i / (1 + e + e^2 + e^3); experts 3 and 2 picked.
TEST(ExpertRouter, Qwen3moeNormalisesThePickedWeightsAndQwen2moeDoesNot) {
  const double sum = 1 + std::exp(1.0) + std::exp(2.0) + std::exp(3.0);
  for (const char* arch : {"arch=qwen3moe", "arch=qwen2moe"}) {
    SCOPED_TRACE(arch);
    const auto s = shape_of(std::string(arch) + ",n_expert=4,n_expert_used=2,n_ff_exp=32" + kDims);
    std::vector<float> router = {0, 1, 2, 3}, selected(4);
    reference::route_token(s, router.data(), selected.data());
    EXPECT_NEAR(router[0], 1 / sum, 1e-7);
    EXPECT_NEAR(router[3], std::exp(3.0) / sum, 1e-6);
    EXPECT_EQ(selected[0], 3.0f);
    EXPECT_EQ(selected[1], 2.0f);
    if (s.arch == model::Arch::qwen3moe) {
      EXPECT_NEAR(selected[2], 1 / (1 + std::exp(-1.0)), 1e-6);  // e^3 / (e^3 + e^2)
      EXPECT_NEAR(selected[3], 1 / (1 + std::exp(1.0)), 1e-6);
    } else {
      EXPECT_NEAR(selected[2], std::exp(3.0) / sum, 1e-6);
      EXPECT_NEAR(selected[3], std::exp(2.0) / sum, 1e-6);
    }
  }
}

TEST(Experts, EachArchitectureHasLlamaCppsExpertTensors) {
  auto qwen3moe = model::model_tensors(
      shape_of("arch=qwen3moe,n_expert=8,n_expert_used=2,n_ff_exp=32" + kDims), FileType::q4_K_M);
  EXPECT_EQ(find(qwen3moe, "blk.1.ffn_gate_exps.weight")->ne, (std::vector<uint64_t>{64, 32, 8}));
  EXPECT_EQ(find(qwen3moe, "blk.1.ffn_down_exps.weight")->ne, (std::vector<uint64_t>{32, 64, 8}));
  EXPECT_EQ(find(qwen3moe, "blk.1.ffn_gate_inp.weight")->ne, (std::vector<uint64_t>{64, 8}));
  EXPECT_EQ(find(qwen3moe, "blk.1.ffn_gate_inp.weight")->type, TensorType::f32);  // never quantized
  EXPECT_EQ(find(qwen3moe, "blk.1.ffn_gate.weight"), nullptr);
  EXPECT_EQ(find(qwen3moe, "blk.1.ffn_down.weight"), nullptr);
  EXPECT_EQ(find(qwen3moe, "blk.1.ffn_up_shexp.weight"), nullptr);

  // qwen2moe: the experts default to n_ff / n_expert_used wide; the shared expert to n_ff.
  auto qwen2moe = model::model_tensors(shape_of("arch=qwen2moe,n_expert=4,n_expert_used=2" + kDims),
                                       FileType::f16);
  EXPECT_EQ(find(qwen2moe, "blk.0.ffn_up_exps.weight")->ne, (std::vector<uint64_t>{64, 64, 4}));
  EXPECT_EQ(find(qwen2moe, "blk.0.ffn_gate_inp_shexp.weight")->ne, (std::vector<uint64_t>{64}));
  EXPECT_EQ(find(qwen2moe, "blk.0.ffn_down_shexp.weight")->ne, (std::vector<uint64_t>{128, 64}));
  EXPECT_EQ(find(qwen2moe, "blk.0.attn_q.bias")->ne, (std::vector<uint64_t>{64}));

  // llama with experts (Mixtral): n_ff wide, no expert_feed_forward_length.
  auto mixtral = model::model_tensors(shape_of("arch=llama,n_expert=4,n_expert_used=2" + kDims),
                                      FileType::f32);
  EXPECT_EQ(find(mixtral, "blk.0.ffn_up_exps.weight")->ne, (std::vector<uint64_t>{64, 128, 4}));
}

// llama-quant.cpp: with exactly 8 experts, attn_k and attn_v take Q8_0 and attn_output Q5_K in a
// Q4_K_M file; ffn_down's rules reach ffn_down_exps by substring (Q6_K where use_more_bits).
TEST(Experts, EightExpertsTakeLlamaCppsQuantizerRules) {
  // Rows of 256, so that no k-quant falls back.
  const std::string dims =
      ",n_embd=256,n_layer=2,n_head=4,n_head_kv=2,n_ff=512,n_vocab=64,context=32";
  const auto s = shape_of("arch=qwen3moe,n_expert=8,n_expert_used=2,n_ff_exp=256" + dims);
  auto t = model::model_tensors(s, FileType::q4_K_M);
  EXPECT_EQ(find(t, "blk.0.attn_k.weight")->type, TensorType::q8_0);
  EXPECT_EQ(find(t, "blk.0.attn_v.weight")->type, TensorType::q8_0);
  EXPECT_EQ(find(t, "blk.1.attn_output.weight")->type, TensorType::q5_K);
  EXPECT_EQ(find(t, "blk.0.ffn_down_exps.weight")->type, TensorType::q4_K);
  EXPECT_EQ(find(t, "blk.1.ffn_down_exps.weight")->type, TensorType::q6_K);  // the last eighth
  EXPECT_EQ(find(t, "blk.0.ffn_gate_exps.weight")->type, TensorType::q4_K);
  EXPECT_EQ(find(t, "blk.0.ffn_gate_inp.weight")->type, TensorType::f32);
  const auto four = shape_of("arch=qwen3moe,n_expert=4,n_expert_used=2,n_ff_exp=256" + dims);
  EXPECT_EQ(find(model::model_tensors(four, FileType::q4_K_M), "blk.1.attn_output.weight")->type,
            TensorType::q4_K);
}

TEST(Experts, ParametersCountEveryExpertAndActiveOnlyThePickedOnes) {
  const auto s = shape_of("arch=qwen3moe,n_expert=8,n_expert_used=2,n_ff_exp=32" + kDims);
  const uint64_t per_expert = 3 * 64 * 32;
  EXPECT_EQ(model::parameter_count(s) - model::active_parameter_count(s), 2 * 6 * per_expert);
}

TEST(Experts, CountsLlamaCppOrTheKernelsCannotTakeAreRefusedByName) {
  const std::pair<const char*, const char*> bad[] = {
      {"arch=qwen3moe", "qwen3moe needs experts"},
      {"arch=qwen3moe,n_expert=8,n_expert_used=0", "n_expert_used 0 must be within 1..8"},
      {"arch=qwen3moe,n_expert=8,n_expert_used=9", "n_expert_used 9 must be within 1..8"},
      {"arch=qwen3moe,n_expert=512,n_expert_used=8", "above the 256 experts"},
      {"arch=qwen3moe,n_expert=64,n_expert_used=32", "above the 16 experts per token"},
      {"arch=qwen3,n_expert=8,n_expert_used=2", "qwen3 has no mixture of experts"},
      {"arch=qwen3moe,n_expert=8,n_expert_used=2,n_ff_exp=40", "multiples of 32"}};
  for (const auto& [dims, named] : bad) {
    SCOPED_TRACE(dims);
    auto s = model::parse_dims(std::string(dims) + kDims);
    ASSERT_TRUE(s.is_ok());
    auto valid = model::validate_shape(*s);
    ASSERT_FALSE(valid.is_ok());
    EXPECT_NE(valid.error().message.find(named), std::string::npos) << valid.error().message;
  }
}

// A file whose expert_count disagrees with its tensors' third dimension names the tensor.
TEST(Experts, AFileWhoseExpertCountDisagreesWithItsTensorsIsRefused) {
  const auto s = shape_of("arch=qwen3moe,n_expert=4,n_expert_used=2,n_ff_exp=32" + kDims);
  auto w = model::synthetic_writer(s, FileType::f32, 5);
  ASSERT_TRUE(w.is_ok());
  w->set_u32("qwen3moe.expert_count", 8);
  auto bytes = w->to_bytes().value();
  auto info = model::parse_gguf(bytes);
  ASSERT_TRUE(info.is_ok());
  auto m = model::load_model(*info, bytes);
  ASSERT_FALSE(m.is_ok());
  EXPECT_NE(m.error().message.find("blk.0.ffn_gate_inp.weight' has dimensions [64, 4]"),
            std::string::npos)
      << m.error().message;
}

// Each MoE architecture reads back as written, and its decode depends on the router: the same
// file gives other logits when every token is sent to one expert.
TEST(Experts, SyntheticMixturesReadBackAndDecode) {
  for (const char* arch :
       {"arch=qwen3moe,n_ff_exp=32", "arch=qwen2moe,n_ff_shexp=96", "arch=llama"}) {
    SCOPED_TRACE(arch);
    const auto shape = shape_of(std::string(arch) + ",n_expert=4,n_expert_used=2" + kDims);
    const auto bytes = synthetic_bytes(shape, FileType::q8_0);
    auto info = model::parse_gguf(bytes);
    ASSERT_TRUE(info.is_ok());
    auto m = model::load_model(*info, bytes);
    ASSERT_TRUE(m.is_ok()) << m.error().describe();
    EXPECT_EQ(m->shape.n_expert, 4u);
    EXPECT_EQ(m->shape.n_expert_used, 2u);
    EXPECT_EQ(m->shape.expert_ff(), shape.expert_ff());
    EXPECT_EQ(m->shape.shared_expert_ff(), shape.shared_expert_ff());
    const int32_t prompt[] = {1, 2, 3};
    auto decode = [&](const model::LoadedModel& model) {
      auto decoder = reference::Decoder::create(model, {});
      EXPECT_TRUE(decoder.is_ok()) << decoder.error().describe();
      auto tokens =
          reference::greedy_decode([&](int32_t t) { return (*decoder)->step(t); }, prompt, 8);
      EXPECT_TRUE(tokens.is_ok()) << tokens.error().describe();
      return *tokens;
    };
    // The first step's logits: greedy tokens of a tiny random model can settle on one repeated
    // token either way.
    auto first_logits = [&](const model::LoadedModel& model) {
      auto decoder = reference::Decoder::create(model, {});
      EXPECT_TRUE(decoder.is_ok()) << decoder.error().describe();
      auto logits = (*decoder)->step(prompt[0]);
      EXPECT_TRUE(logits.is_ok()) << logits.error().describe();
      return std::vector<float>(logits->begin(), logits->end());
    };
    EXPECT_EQ(decode(*m).size(), 8u);
    auto one_expert = *m;
    one_expert.shape.n_expert_used = 1;
    EXPECT_NE(first_logits(one_expert), first_logits(*m));
  }
}

// A fused ffn_gate_up_exps stack holds each expert's gate rows, then its up rows (llama.cpp's
// build_moe_ffn views the first n_ff of the product as the gate): built from separate stacks, it
// gives the same output.
TEST(Experts, AFusedGateUpStackIsEachExpertsGateThenUp) {
  auto s = shape_of("arch=qwen3moe,n_expert=4,n_expert_used=2,n_ff_exp=32" + kDims);
  const uint64_t embd = s.n_embd, ff = s.expert_ff(), n = s.n_expert;
  std::vector<float> router(embd * n), gate(n * ff * embd), up(n * ff * embd), down(n * embd * ff);
  uint32_t state = 7;
  auto next = [&state] {
    state = state * 1664525u + 1013904223u;
    return static_cast<float>(state >> 8) / 16777216.0f - 0.5f;
  };
  for (auto* v : {&router, &gate, &up, &down}) {
    for (float& x : *v) x = next();
  }
  std::vector<float> fused;
  for (uint64_t e = 0; e < n; ++e) {
    fused.insert(fused.end(), gate.begin() + e * ff * embd, gate.begin() + (e + 1) * ff * embd);
    fused.insert(fused.end(), up.begin() + e * ff * embd, up.begin() + (e + 1) * ff * embd);
  }
  auto view = [](const std::vector<float>& v, uint64_t n_in, uint64_t n_out, uint64_t m) {
    return model::TensorView{TensorType::f32, n_in, n_out,
                             reinterpret_cast<const std::byte*>(v.data()), m};
  };
  model::LayerWeights separate;
  separate.router = view(router, embd, n, 1);
  separate.gate_exps = view(gate, embd, ff, n);
  separate.up_exps = view(up, embd, ff, n);
  separate.down_exps = view(down, ff, embd, n);
  model::LayerWeights together = separate;
  together.gate_exps = together.up_exps = {};
  together.gate_up_exps = view(fused, embd, 2 * ff, n);

  const auto layout = planner::experts_layout(s);
  const size_t tokens = 3;
  std::vector<float> a(layout.total * tokens), b;
  for (size_t t = 0; t < tokens; ++t) {
    for (uint64_t i = 0; i < embd; ++i) a[t * layout.total + layout.xb + i] = next();
  }
  b = a;
  reference::ThreadPool pool(2);
  reference::experts_ffn(s, separate, a.data(), tokens, layout, pool);
  auto fused_shape = s;
  fused_shape.fused_expert_gate_up = true;
  reference::experts_ffn(fused_shape, together, b.data(), tokens, layout, pool);
  for (size_t t = 0; t < tokens; ++t) {
    for (uint64_t i = 0; i < embd; ++i) {
      const size_t at = t * layout.total + layout.xb + i;
      ASSERT_EQ(a[at], b[at]) << "token " << t << " element " << i;
    }
  }
  EXPECT_NE(a[layout.xb], 0.0f);
}

}  // namespace
}  // namespace gauntlet::engine::test
