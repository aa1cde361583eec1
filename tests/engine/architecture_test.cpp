// The architectures the engine runs: hand-worked values of each feature (NEOX and NORM rotation,
// rope_freqs factors, a bias add, a per-head Q norm) as llama.cpp's graphs compute them, the
// tensor lists per architecture, and the refusals of what the engine does not run.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <sstream>
#include <vector>

#include "engine/model/rope.h"
#include "engine/reference/decoder.h"
#include "engine/reference/layer_ops.h"
#include "test_models.h"

namespace gauntlet::engine::test {
namespace {

using model::FileType;
using model::RopeStyle;

model::ModelShape arch_shape(const std::string& dims) {
  auto s = model::parse_dims(dims);
  EXPECT_TRUE(s.is_ok()) << s.error().describe();
  return *s;
}

// One head of 4 at position 1, base 10000: pair 0 turns by 1 rad, pair 1 by 10000^(-1/2) = 0.01.
std::vector<float> table_at_position_one(std::span<const float> factors = {}) {
  auto shape = arch_shape("n_embd=32,n_layer=1,n_head=8,n_ff=32,n_vocab=16,context=8");
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
  auto shape = arch_shape("n_embd=32,n_layer=1,n_head=8,n_ff=32,n_vocab=16,context=8");
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
  auto qwen2 = model::model_tensors(arch_shape("arch=qwen2,tied=1" + dims), FileType::q4_K_M);
  ASSERT_NE(find(qwen2, "blk.1.attn_k.bias"), nullptr);
  EXPECT_EQ(find(qwen2, "blk.1.attn_k.bias")->ne, (std::vector<uint64_t>{64}));
  EXPECT_EQ(find(qwen2, "blk.1.attn_k.bias")->type, model::TensorType::f32);
  EXPECT_EQ(find(qwen2, "output.weight"), nullptr);
  // Tied: the token embedding is the output matrix, so it takes the output's Q6_K.
  EXPECT_EQ(find(qwen2, "token_embd.weight")->type, model::TensorType::q6_K);

  auto qwen3 = model::model_tensors(arch_shape("arch=qwen3,head_dim=64" + dims), FileType::f16);
  EXPECT_EQ(find(qwen3, "blk.0.attn_q_norm.weight")->ne, (std::vector<uint64_t>{64}));
  EXPECT_EQ(find(qwen3, "blk.0.attn_q.weight")->ne, (std::vector<uint64_t>{256, 512}));
  EXPECT_EQ(find(qwen3, "blk.0.attn_output.weight")->ne, (std::vector<uint64_t>{512, 256}));
  EXPECT_EQ(find(qwen3, "blk.0.attn_q.bias"), nullptr);

  auto phi3 = model::model_tensors(arch_shape("arch=phi3" + dims), FileType::q4_K_M);
  EXPECT_EQ(find(phi3, "blk.0.attn_qkv.weight")->ne, (std::vector<uint64_t>{256, 256 + 2 * 64}));
  // llama-quant.cpp: attn_qkv takes attn_v's rules (category_is_attn_v); in a Q4_K_M file of two
  // layers, use_more_bits picks layer 1 only.
  EXPECT_EQ(find(phi3, "blk.0.attn_qkv.weight")->type, model::TensorType::q4_K);
  EXPECT_EQ(find(phi3, "blk.1.attn_qkv.weight")->type, model::TensorType::q6_K);
  EXPECT_EQ(find(phi3, "blk.0.ffn_up.weight")->ne, (std::vector<uint64_t>{256, 1024}));
  EXPECT_EQ(find(phi3, "blk.0.ffn_gate.weight"), nullptr);
  EXPECT_EQ(find(phi3, "blk.0.attn_q.weight"), nullptr);

  auto llama = model::model_tensors(arch_shape("rope_freqs=1" + dims), FileType::q8_0);
  EXPECT_EQ(find(llama, "rope_freqs.weight")->ne, (std::vector<uint64_t>{16}));
  EXPECT_EQ(find(llama, "rope_freqs.weight")->type, model::TensorType::f32);
}

// Each architecture's default file holds exactly the tensors llama.cpp's loader creates for it
// (it refuses any other set: "done_getting_tensors: wrong number of tensors", or "missing tensor"):
// the lists below are written from each architecture's load_arch_tensors in llama.cpp's
// src/models/<arch>.cpp (create_tensor, create_tensor_qkv and create_tensor_gate_up_exps in
// src/llama-model.cpp), taking the optional (TENSOR_NOT_REQUIRED) tensors gauntlet writes: the
// output where the architecture may have one (gemma2 never: it always uses token_embd), the Q/K/V
// biases of qwen2 and gpt-oss. Every architecture the engine runs has a list.
struct LoaderTensors {
  const char* dims;
  std::vector<std::string> top;
  std::vector<std::vector<std::string>> layers;  // per layer, without the "blk.N." prefix
};

std::vector<std::string> names_of(const LoaderTensors& e) {
  std::vector<std::string> names = e.top;
  for (size_t l = 0; l < e.layers.size(); ++l) {
    for (const auto& n : e.layers[l]) names.push_back("blk." + std::to_string(l) + "." + n);
  }
  std::sort(names.begin(), names.end());
  return names;
}

TEST(Architectures, EachDefaultFileHasExactlyTheTensorsLlamaCppsLoaderCreates) {
  const std::string dims =
      ",n_embd=128,n_layer=2,n_head=4,n_head_kv=2,n_ff=256,n_vocab=256,context=256";
  const std::vector<std::string> top = {"token_embd.weight", "output_norm.weight", "output.weight"};
  const std::vector<std::string> qkv = {"attn_q.weight", "attn_k.weight", "attn_v.weight"};
  const std::vector<std::string> qkv_bias = {"attn_q.bias", "attn_k.bias", "attn_v.bias"};
  const std::vector<std::string> qk_norm = {"attn_q_norm.weight", "attn_k_norm.weight"};
  const std::vector<std::string> ffn = {"ffn_gate.weight", "ffn_down.weight", "ffn_up.weight"};
  const std::vector<std::string> exps = {"ffn_gate_inp.weight", "ffn_gate_exps.weight",
                                         "ffn_down_exps.weight", "ffn_up_exps.weight"};
  const std::vector<std::string> shexp = {"ffn_gate_inp_shexp.weight", "ffn_gate_shexp.weight",
                                          "ffn_down_shexp.weight", "ffn_up_shexp.weight"};
  // qwen35.cpp's load_block_trunk, recurrent branch (attn_qkv and attn_gate are optional there
  // but are the layer's projections).
  const std::vector<std::string> delta_net = {
      "attn_qkv.weight", "attn_gate.weight", "ssm_conv1d.weight", "ssm_dt.bias",   "ssm_a",
      "ssm_beta.weight", "ssm_alpha.weight", "ssm_norm.weight",   "ssm_out.weight"};
  const std::vector<std::string> mamba2 = {
      "ssm_in.weight", "ssm_conv1d.weight", "ssm_conv1d.bias", "ssm_dt.bias", "ssm_a",
      "ssm_d",         "ssm_norm.weight",   "ssm_out.weight"};
  auto cat = [](std::initializer_list<std::vector<std::string>> parts) {
    std::vector<std::string> all;
    for (const auto& p : parts) all.insert(all.end(), p.begin(), p.end());
    return all;
  };
  auto same = [](const std::vector<std::string>& layer) {
    return std::vector<std::vector<std::string>>{layer, layer};
  };
  const std::vector<std::string> norm = {"attn_norm.weight"}, out = {"attn_output.weight"};
  const std::vector<std::string> ffn_norm = {"ffn_norm.weight"};
  const std::vector<std::string> post = {"post_attention_norm.weight"};
  const std::vector<std::string> post_ffw = {"post_ffw_norm.weight"};
  const LoaderTensors expected[] = {
      // llama.cpp: output optional; wo_b, rope_freqs and the MLP biases optional (not written).
      {"arch=llama", top, same(cat({norm, qkv, out, ffn_norm, ffn}))},
      {"arch=qwen2", top, same(cat({norm, qkv, qkv_bias, out, ffn_norm, ffn}))},
      {"arch=qwen3", top, same(cat({norm, qkv, out, qk_norm, ffn_norm, ffn}))},
      // phi3.cpp: create_tensor_qkv finds the fused attn_qkv; ffn_up is gate and up.
      {"arch=phi3", top,
       same(cat({norm, {"attn_qkv.weight"}, out, ffn_norm, {"ffn_down.weight", "ffn_up.weight"}}))},
      // gemma2.cpp: the output is token_embd (TENSOR_DUPLICATED), never output.weight.
      {"arch=gemma2",
       {"token_embd.weight", "output_norm.weight"},
       same(cat({norm, qkv, out, post, ffn_norm, ffn, post_ffw}))},
      {"arch=gemma3", top, same(cat({norm, qkv, out, post, qk_norm, ffn_norm, ffn, post_ffw}))},
      // qwen2moe.cpp: output required; routed experts and the shared expert.
      {"arch=qwen2moe,n_expert=4,n_expert_used=2,n_ff_exp=64,n_ff_shexp=128", top,
       same(cat({norm, qkv, qkv_bias, out, ffn_norm, exps, shexp}))},
      {"arch=qwen3moe,n_expert=4,n_expert_used=2,n_ff_exp=64", top,
       same(cat({norm, qkv, out, qk_norm, ffn_norm, exps}))},
      // openai-moe.cpp: output required; sinks, the output bias, router and expert biases.
      {"arch=gpt-oss,n_expert=4,n_expert_used=2,n_ff_exp=64", top,
       same(cat({norm,
                 post,
                 qkv,
                 qkv_bias,
                 out,
                 {"attn_sinks.weight"},
                 exps,
                 {"attn_output.bias", "ffn_gate_inp.bias", "ffn_gate_exps.bias",
                  "ffn_down_exps.bias", "ffn_up_exps.bias"}}))},
      // qwen35.cpp: layer 0 a gated DeltaNet, layer 1 (the interval's last) attention.
      {"arch=qwen35,full_attention_interval=2",
       top,
       {cat({norm, post, delta_net, ffn}), cat({norm, post, qkv, out, qk_norm, ffn})}},
      // qwen35moe.cpp: as qwen35 with routed and shared experts.
      {"arch=qwen35moe,full_attention_interval=2,n_expert=4,n_expert_used=2,n_ff_exp=64,"
       "n_ff_shexp=128",
       top,
       {cat({norm, post, delta_net, exps, shexp}),
        cat({norm, post, qkv, out, qk_norm, exps, shexp})}},
      // qwen3vl.cpp: qwen3's layer; the deepstack features are no tensors of the text model.
      {"arch=qwen3vl,deepstack=1", top, same(cat({norm, qkv, out, qk_norm, ffn_norm, ffn}))},
      // lfm2.cpp: layer 0 a short convolution (head_count_kv 0), layer 1 attention; the final
      // norm is token_embd_norm; output optional.
      {"arch=lfm2,attn_layers=1",
       {"token_embd.weight", "token_embd_norm.weight", "output.weight"},
       {cat({norm,
             {"shortconv.conv.weight", "shortconv.in_proj.weight", "shortconv.out_proj.weight"},
             ffn_norm,
             ffn}),
        cat({norm, qkv, out, qk_norm, ffn_norm, ffn})}},
      // lfm2moe.cpp: layer 0 a dense short-convolution layer (leading_dense_block_count 1), layer 1
      // attention with experts and their selection bias.
      {"arch=lfm2moe,attn_layers=1,dense_lead=1,n_expert=4,n_expert_used=2,n_ff_exp=64",
       {"token_embd.weight", "token_embd_norm.weight", "output.weight"},
       {cat({norm,
             {"shortconv.conv.weight", "shortconv.in_proj.weight", "shortconv.out_proj.weight"},
             ffn_norm,
             ffn}),
        cat({norm, qkv, out, qk_norm, ffn_norm, exps, {"exp_probs_b.bias"}})}},
      // nemotron-h.cpp: layer 0 a Mamba2 block (ssm_a and ssm_d without a suffix, the conv's bias
      // optional there), layer 1 a feed-forward without a gate; each has only its attn_norm.
      {"arch=nemotron_h,layers=M-",
       top,
       {cat({norm, mamba2}), cat({norm, {"ffn_up.weight", "ffn_down.weight"}})}},
      // nemotron-h.cpp with experts: layer 0 attention (no norms, no biases), layer 1 ungated
      // experts with their selection bias and an ungated shared expert.
      {"arch=nemotron_h_moe,layers=*E,n_expert=4,n_expert_used=2,n_ff_exp=64,n_ff_shexp=128",
       top,
       {cat({norm, qkv, out}),
        cat({norm,
             {"ffn_gate_inp.weight", "exp_probs_b.bias", "ffn_down_exps.weight",
              "ffn_up_exps.weight", "ffn_down_shexp.weight", "ffn_up_shexp.weight"}})}},
      // granite-hybrid.cpp: a Mamba2 block or attention, each with ffn_norm and a SwiGLU.
      {"arch=granitehybrid,layers=M*",
       top,
       {cat({norm, mamba2, ffn_norm, ffn}), cat({norm, qkv, out, ffn_norm, ffn})}},
      // laguna.cpp: layer 0 global and dense (leading_dense_block_count 1), layer 1 sliding with
      // experts, their selection bias and a shared expert without a gate vector; attn_gate on both.
      {"arch=laguna,window=4,n_head_swa=8,dense_lead=1,n_expert=4,n_expert_used=2,n_ff_exp=64,"
       "n_ff_shexp=64",
       top,
       {cat({norm, qkv, qk_norm, out, {"attn_gate.weight"}, ffn_norm, ffn}),
        cat({norm,
             qkv,
             qk_norm,
             out,
             {"attn_gate.weight"},
             ffn_norm,
             exps,
             {"exp_probs_b.bias"},
             {"ffn_gate_shexp.weight", "ffn_down_shexp.weight", "ffn_up_shexp.weight"}})}},
      // mistral3.cpp: llama's tensors (output optional, wo_b and the MLP biases not written).
      {"arch=mistral3", top, same(cat({norm, qkv, out, ffn_norm, ffn}))},
      // granite.cpp (dense): the same (wo_b, the MLP biases and rope_freqs optional, not written).
      {"arch=granite", top, same(cat({norm, qkv, out, ffn_norm, ffn}))},
      // gemma4.cpp: layer 0 slides, layer 1 is global (rope_freqs for its proportional RoPE);
      // layer_output_scale (optional there) on each.
      {"arch=gemma4,swa_pattern=2", cat({top, {"rope_freqs.weight"}}),
       same(cat({norm,
                 qkv,
                 out,
                 qk_norm,
                 post,
                 {"layer_output_scale.weight"},
                 ffn_norm,
                 ffn,
                 post_ffw}))},
  };
  std::set<std::string> covered;
  for (const auto& e : expected) {
    SCOPED_TRACE(e.dims);
    const auto shape = arch_shape(e.dims + dims);
    covered.insert(shape.traits().name);
    std::vector<std::string> names;
    for (const auto& t : model::model_tensors(shape, FileType::f32)) names.push_back(t.name);
    std::sort(names.begin(), names.end());
    EXPECT_EQ(names, names_of(e));
  }
  std::stringstream known(model::known_architectures(","));
  for (std::string arch; std::getline(known, arch, ',');) {
    EXPECT_TRUE(covered.contains(arch)) << arch << " has no expected tensor list";
  }
}

// What llama.cpp's loader would refuse is refused by name when the shape is made: an output for
// gemma2, none for qwen2moe and gpt-oss (their loaders require output.weight), qwen2's heads
// narrower than n_embd (its attn_q is {n_embd, n_embd}), gpt-oss's rotary dimension below the
// head's (openai-moe.cpp sizes its heads by n_rot).
TEST(Architectures, ShapesLlamaCppsLoaderRefusesAreRefusedByName) {
  const std::string dims =
      ",n_embd=128,n_layer=2,n_head=4,n_head_kv=2,n_ff=256,n_vocab=256,context=256";
  const std::pair<const char*, const char*> refused[] = {
      {"arch=gemma2,tied=0", "gemma2 has no output.weight"},
      {"arch=qwen2moe,tied=1,n_expert=4,n_expert_used=2", "qwen2moe needs an output.weight"},
      {"arch=gpt-oss,tied=1,n_expert=4,n_expert_used=2", "gpt-oss needs an output.weight"},
      {"arch=qwen2,head_dim=16", "qwen2's n_head * head_dim 64 must be n_embd 128"},
      {"arch=gpt-oss,rope_dim=16,n_expert=4,n_expert_used=2",
       "gpt-oss's rope_dim 16 must be the head dimension 32"}};
  for (const auto& [given, named] : refused) {
    SCOPED_TRACE(given);
    auto shape = model::parse_dims(given + dims);
    ASSERT_TRUE(shape.is_ok());
    auto valid = model::validate_shape(*shape);
    ASSERT_FALSE(valid.is_ok());
    EXPECT_NE(valid.error().message.find(named), std::string::npos) << valid.error().message;
  }
}

// A synthetic file with one thing changed in its metadata or tensors.
core::Result<model::LoadedModel> load_changed(const std::function<void(model::GgufWriter&)>& change,
                                              std::vector<std::byte>& bytes,
                                              const std::string& arch = "qwen2") {
  auto shape = arch_shape(
      "arch=" + arch + ",n_embd=64,n_layer=1,n_head=4,n_head_kv=2,n_ff=128,n_vocab=32,context=16");
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
    const auto shape = arch_shape(std::string(arch) + dims);
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
