// Qwen3.5's gated-DeltaNet hybrid on the host reference: hand-worked values of the conv1d with its
// rolling state (across passes), the delta-rule step and the gated norm; the tensor list, which
// layers keep KV and which keep state; passes and sequences that give the token-by-token logits;
// the plan's state bytes for qwen3.6-27b; bad files refused by the key or tensor.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "engine/model/rope.h"
#include "engine/placement/deployment.h"
#include "engine/planner/planner.h"
#include "engine/reference/decoder.h"
#include "engine/reference/gated_delta_net.h"
#include "reference_checks.h"
#include "test_models.h"

namespace gauntlet::engine::test {
namespace {

using model::FileType;

model::ModelShape hybrid_shape(const std::string& dims) {
  auto s = model::parse_dims(dims);
  EXPECT_TRUE(s.is_ok()) << s.error().describe();
  auto valid = model::validate_shape(*s);
  EXPECT_TRUE(valid.is_ok()) << valid.error().describe();
  return *s;
}

// Four layers: 0, 1 and 2 recurrent, 3 attention; a quarter of the 32-wide head rotated.
const std::string kHybrid =
    "arch=qwen35,n_embd=64,n_layer=4,n_head=2,n_head_kv=1,head_dim=32,rope_dim=8,n_ff=96,"
    "n_vocab=64,context=64,ssm_state=16,ssm_groups=2,ssm_heads=4,ssm_inner=64";

TEST(GatedDeltaNetOps, ConvKeepsItsStateAcrossCalls) {
  // Two channels, width 4: kernels [1 2 3 4] and [0.5 0 0 -1], from a zero state.
  const float kernel[] = {1, 2, 3, 4, 0.5f, 0, 0, -1};
  std::vector<float> state(6, 0.0f), out(2);
  const float xs[4][2] = {{1, 2}, {0.5f, -1}, {2, 0}, {-1, 1}};
  // Channel 0's windows: [0 0 0 1] -> 4, [0 0 1 .5] -> 5, [0 1 .5 2] -> 11.5, [1 .5 2 -1] -> 4;
  // channel 1's: [0 0 0 2] -> -2, [0 0 2 -1] -> 1, [0 2 -1 0] -> 0, [2 -1 0 1] -> 0; then SiLU.
  const float want[4][2] = {
      {3.9280552f, -0.2384058f}, {4.9665357f, 0.7310586f}, {11.4998835f, 0.0f}, {3.9280552f, 0.0f}};
  for (int t = 0; t < 4; ++t) {
    reference::conv_step(xs[t], state.data(), kernel, 2, 4, out.data());
    EXPECT_NEAR(out[0], want[t][0], 1e-5f) << t;
    EXPECT_NEAR(out[1], want[t][1], 1e-6f) << t;
  }
  // The state keeps each channel's last three inputs, oldest first.
  EXPECT_EQ(state, (std::vector<float>{0.5f, 2, -1, -1, 0, 1}));
}

TEST(GatedDeltaNetOps, DeltaRuleStepByHand) {
  // n = 2, from a zero state: q = [1 0], k = [.6 .8], v = [1 2], beta = .5.
  // delta = beta (v - S^T k) = [.5 1]; S = k delta^T = [[.3 .6] [.4 .8]]; out = S^T q / sqrt 2.
  std::vector<float> s(4, 0.0f), out(2);
  const float q1[] = {1, 0}, k1[] = {0.6f, 0.8f}, v1[] = {1, 2};
  reference::delta_rule_step(s.data(), q1, k1, v1, std::log(0.5f), 0.5f, 2, out.data());
  EXPECT_NEAR(out[0], 0.2121320f, 1e-6f);
  EXPECT_NEAR(out[1], 0.4242641f, 1e-6f);
  // Stored transposed: s[j * n + i] = S[i][j].
  EXPECT_NEAR(s[0], 0.3f, 1e-6f);
  EXPECT_NEAR(s[1], 0.4f, 1e-6f);
  EXPECT_NEAR(s[2], 0.6f, 1e-6f);
  EXPECT_NEAR(s[3], 0.8f, 1e-6f);
  // exp(g) = .5 halves S to [[.15 .3] [.2 .4]]; k = [1 0], v = [0 1], beta = 1:
  // delta = v - S^T k = [-.15 .7]; row 0 of S becomes [0 1]; q = [0 1] reads row 1 [.2 .4].
  const float q2[] = {0, 1}, k2[] = {1, 0}, v2[] = {0, 1};
  reference::delta_rule_step(s.data(), q2, k2, v2, std::log(0.5f), 1.0f, 2, out.data());
  EXPECT_NEAR(out[0], 0.1414214f, 1e-6f);
  EXPECT_NEAR(out[1], 0.2828427f, 1e-6f);
  EXPECT_NEAR(s[0], 0.0f, 1e-6f);
  EXPECT_NEAR(s[1], 0.2f, 1e-6f);
  EXPECT_NEAR(s[2], 1.0f, 1e-6f);
  EXPECT_NEAR(s[3], 0.4f, 1e-6f);
}

TEST(GatedDeltaNetOps, GatedNormL2NormAndSoftplus) {
  // rms([1 2 3 4]) = sqrt(7.5); times the weight [1 1 2 .5] and silu([0 1 -1 2]).
  std::vector<float> o = {1, 2, 3, 4};
  const float z[] = {0, 1, -1, 2}, w[] = {1, 1, 2, 0.5f};
  reference::gated_rmsnorm(o.data(), z, w, 4, 0.0f);
  EXPECT_NEAR(o[0], 0.0f, 1e-6f);
  EXPECT_NEAR(o[1], 0.5338897f, 1e-6f);
  EXPECT_NEAR(o[2], -0.5892211f, 1e-6f);
  EXPECT_NEAR(o[3], 1.2864865f, 1e-6f);
  std::vector<float> v = {3, 4};
  reference::l2_normalize(v.data(), 2, 1e-6f);
  EXPECT_NEAR(v[0], 0.6f, 1e-6f);
  EXPECT_NEAR(v[1], 0.8f, 1e-6f);
  EXPECT_NEAR(reference::softplus(0.0f), 0.6931472f, 1e-6f);
  EXPECT_EQ(reference::softplus(25.0f), 25.0f);
}

TEST(Qwen35Shape, TensorsKvLayersAndState) {
  const auto s = hybrid_shape(kHybrid);
  EXPECT_TRUE(s.recurrent(0) && s.recurrent(1) && s.recurrent(2));
  EXPECT_FALSE(s.recurrent(3));
  EXPECT_EQ(s.ssm_channels(), 64u + 2 * 2 * 16);
  const auto t = model::model_tensors(s, FileType::q8_0);
  auto find = [&](const std::string& name) -> const model::TensorDesc* {
    for (const auto& d : t) {
      if (d.name == name) return &d;
    }
    return nullptr;
  };
  ASSERT_NE(find("blk.0.attn_qkv.weight"), nullptr);
  EXPECT_EQ(find("blk.0.attn_qkv.weight")->ne, (std::vector<uint64_t>{64, 128}));
  EXPECT_EQ(find("blk.0.ssm_conv1d.weight")->ne, (std::vector<uint64_t>{4, 128}));
  EXPECT_EQ(find("blk.0.ssm_conv1d.weight")->type, model::TensorType::f32);  // never quantized
  EXPECT_EQ(find("blk.1.ssm_a")->ne, (std::vector<uint64_t>{4}));
  EXPECT_EQ(find("blk.2.ssm_norm.weight")->ne, (std::vector<uint64_t>{16}));
  EXPECT_EQ(find("blk.2.ssm_out.weight")->ne, (std::vector<uint64_t>{64, 64}));
  EXPECT_EQ(find("blk.0.attn_q.weight"), nullptr);
  // The attention layer: Q twice as wide ([q | gate] per head), Q/K norm, the feed-forward's
  // norm named post_attention_norm.
  EXPECT_EQ(find("blk.3.attn_q.weight")->ne, (std::vector<uint64_t>{64, 128}));
  EXPECT_EQ(find("blk.3.attn_output.weight")->ne, (std::vector<uint64_t>{64, 64}));
  EXPECT_NE(find("blk.3.attn_q_norm.weight"), nullptr);
  EXPECT_NE(find("blk.3.post_attention_norm.weight"), nullptr);
  EXPECT_EQ(find("blk.3.ffn_norm.weight"), nullptr);
  EXPECT_EQ(find("blk.3.attn_qkv.weight"), nullptr);
  // KV only for layer 3; state for layers 0-2: (3 x 128 conv + 16 x 64 delta) floats each.
  const auto kv = planner::kv_layout(s, 64);
  EXPECT_EQ(kv.slots, (std::vector<uint32_t>{0, 0, 0, 64}));
  EXPECT_EQ(planner::kv_cache_bytes(s, 64, 2, planner::KvPrecision::f32), 2ull * 64 * 32 * 2 * 4);
  const auto st = planner::state_layout(s);
  EXPECT_EQ(st.per_sequence, 3ull * (3 * 128 + 16 * 64));
  EXPECT_EQ(st.offset[1], 3ull * 128 + 16 * 64);
  EXPECT_EQ(planner::state_bytes(s, 3), 3 * st.per_sequence * 4);
}

// IMROPE for text: every pair of the rotated quarter turns, as NEOX with rope_dim 8 would, since
// the sections [2 1 1] cover the four pairs. With sections [1 1 0 1] (sector = pair % 3) pair 2
// is the width's third sector, past 3 x 0: it takes the fourth component, position 0 for text.
TEST(Qwen35Shape, RopeSectionsTurnThePairsTheyName) {
  auto s = hybrid_shape(kHybrid);
  EXPECT_EQ(s.rope_sections, (std::array<uint32_t, 4>{2, 1, 1, 0}));
  std::vector<float> table(8);
  model::rope_table(s, 3, {}, 5, table);
  for (uint32_t i = 0; i < 4; ++i) {
    const double theta = 5 * std::pow(10000.0, -2.0 * i / 8);
    EXPECT_NEAR(table[2 * i], std::cos(theta), 1e-6) << i;
    EXPECT_NEAR(table[2 * i + 1], std::sin(theta), 1e-6) << i;
  }
  s.rope_sections = {1, 1, 0, 1};
  model::rope_table(s, 3, {}, 5, table);
  EXPECT_NEAR(table[2], std::cos(5 * std::pow(10000.0, -2.0 / 8)), 1e-6);  // pair 1: height
  EXPECT_EQ(table[4], 1.0f);                                               // pair 2: position 0
  EXPECT_EQ(table[5], 0.0f);
  EXPECT_NEAR(table[6], std::cos(5 * std::pow(10000.0, -6.0 / 8)), 1e-6);  // pair 3: time
}

// Passes of 1, 5 and 16 tokens give the same logits bit for bit: each token's conv and delta
// step reads the state its previous token left, within a pass or across passes.
TEST(Qwen35Reference, PassesGiveTheTokenByTokenLogits) {
  const auto bytes = synthetic_bytes(hybrid_shape(kHybrid), FileType::f32);
  expect_passes_give_token_by_token_logits(load(bytes), {5, 16});
}

// Two sequences decoded together each keep their own state; a reset starts from a zero state; the
// first token still matters at the last position (the recurrence carries it).
TEST(Qwen35Reference, SequencesKeepTheirOwnStateAndResetClearsIt) {
  const auto bytes = synthetic_bytes(hybrid_shape(kHybrid), FileType::q8_0);
  const auto m = load(bytes);
  const std::vector<int32_t> a = {1, 7, 42, 3, 9, 11}, b = {2, 7, 42, 3, 9, 11};
  auto d = reference::Decoder::create(m, {{.threads = 1, .sequences = 2}});
  ASSERT_TRUE(d.is_ok());
  std::vector<float> last_a, last_b;
  for (size_t i = 0; i < a.size(); ++i) {
    const std::vector<BatchToken> pair = {{a[i], 0, true}, {b[i], 1, true}};
    auto l = (*d)->forward(pair);
    ASSERT_TRUE(l.is_ok()) << l.error().describe();
    last_a.assign(l->begin(), l->begin() + 64);
    last_b.assign(l->begin() + 64, l->end());
  }
  EXPECT_NE(last_a, last_b);  // only the first token differs
  auto single = reference::Decoder::create(m, {{.threads = 1}});
  ASSERT_TRUE(single.is_ok());
  for (int round = 0; round < 2; ++round) {
    std::vector<float> last;
    for (int32_t id : a) {
      auto l = (*single)->step(id);
      ASSERT_TRUE(l.is_ok());
      last.assign(l->begin(), l->end());
    }
    EXPECT_EQ(last, last_a) << "round " << round;
    (*single)->reset();
  }
}

TEST(Qwen35Plan, Qwen36_27bStateBytesPerSequence) {
  auto s = model::preset_shape("qwen3.6-27b");
  ASSERT_TRUE(s.is_ok()) << s.error().describe();
  // 64 layers, every fourth attention: 48 recurrent. Per layer, conv (4 - 1) x (48 x 128 + 2 x
  // 16 x 128) = 30720 floats and delta 128 x 6144 = 786432 floats: 3,268,608 bytes.
  EXPECT_EQ(s->recurrent_layers(), 48u);
  EXPECT_EQ(planner::state_bytes(*s, 1), 48ull * 3268608);  // 156,893,184 bytes (149.6 MiB)
  EXPECT_EQ(planner::state_bytes(*s, 4), 4 * 48ull * 3268608);
  // KV for the 16 attention layers only: 2 x 16 x 4 heads x 256 x 4096 positions x 2 bytes.
  EXPECT_EQ(planner::kv_cache_bytes(*s, 4096, 1, planner::KvPrecision::f16), 268435456ull);
  const auto plan = planner::plan_memory(*s, {.format = FileType::q4_K_M,
                                              .context = 4096,
                                              .sequences = 2,
                                              .kv = planner::KvPrecision::f16});
  EXPECT_EQ(plan.state, 2 * 48ull * 3268608);
  EXPECT_EQ(plan.steady_state, plan.weights + plan.kv_cache + plan.state + plan.activations);
}

// The device's delta-rule kernel (engine_delta_net) holds q and k of a key head and two reduction
// rows of its workgroup (one work-item per state column, up to 256) in local memory; the decode's
// local-memory check counts it beside the matvec, attention and norm kernels.
TEST(Qwen35Plan, DeltaNetLocalMemoryJoinsTheDecodeCheck) {
  auto s = model::preset_shape("qwen3.6-27b");
  ASSERT_TRUE(s.is_ok()) << s.error().describe();
  EXPECT_EQ(planner::delta_net_workgroup(128), 128u);
  EXPECT_EQ(planner::delta_net_workgroup(16), 16u);
  EXPECT_EQ(planner::delta_net_workgroup(200), 256u);
  EXPECT_EQ(planner::delta_net_local_mem_bytes(*s), (2 * 128 + 2 * 128) * 4u);
  const auto tiny = hybrid_shape(kHybrid);  // ssm_state 16
  EXPECT_EQ(planner::delta_net_local_mem_bytes(tiny), (2 * 16 + 2 * 16) * 4u);
  auto dense = model::preset_shape("qwen3-0.6b");
  ASSERT_TRUE(dense.is_ok());
  EXPECT_EQ(planner::delta_net_local_mem_bytes(*dense), 0u);
  // With a matvec of a 32-element tile and a 16-position score tile, the delta rule's 2048 bytes
  // are the decode's largest.
  planner::KernelVariant mv{
      .op = planner::KernelOp::matvec, .workgroup = 32, .activation_tile = 32};
  planner::KernelVariant at{.op = planner::KernelOp::attention, .workgroup = 32, .score_tile = 16};
  EXPECT_EQ(planner::decode_local_mem_bytes(mv, at, *s, 4096), 2048u);
}

// What llama.cpp 3.22.1 printed loading gauntlet's 8-layer qwen35 file (ssm_state 64, 2 key
// heads, 6 value heads) at n_ctx 64: "RS buffer size = 0.61 MiB (1 cells, 8 layers, 1 seqs),
// R (f32): 0.04 MiB, S (f32): 0.56 MiB" and "KV buffer size = 0.50 MiB (256 cells, 2 layers)".
TEST(Qwen35Plan, DeploymentCountsTheRecurrentStateAsLlamaCppAllocatesIt) {
  const auto s = hybrid_shape(
      "arch=qwen35,n_embd=256,n_layer=8,n_head=2,n_head_kv=1,head_dim=256,rope_dim=64,n_ff=512,"
      "n_vocab=256,context=64,ssm_state=64,ssm_groups=2,ssm_heads=6,ssm_inner=384,tied=1");
  const auto tensors = model::model_tensors(s, FileType::f32);
  auto p = placement::from_gpu_layers(s.n_layer, {9, {"vulkan:0"}, {}, placement::kHost});
  ASSERT_TRUE(p.is_ok());
  placement::DeploymentOptions o;
  o.context = 64;
  const auto bytes = placement::deployment_bytes(s, tensors, *p, o);
  // R: 6 layers x 3 x 640 channels x 4 bytes; S: 6 x 64 x 384 x 4.
  EXPECT_EQ(bytes[0].state, 6ull * 3 * 640 * 4 + 6ull * 64 * 384 * 4);  // 0.61 MiB
  EXPECT_EQ(bytes[0].kv_cache, 2ull * 256 * 256 * 2 * 2);               // 0.50 MiB
  EXPECT_EQ(placement::kv_cells(s, 0, o), 0u);
  EXPECT_EQ(placement::kv_cells(s, 3, o), 256u);
}

// What llama.cpp 3.22.1 printed for gauntlet's qwen35 files whose DeltaNet layers bind the compute
// buffer (n_ff 256, 1536 conv channels; flash attention on, as its auto chose on the CPU, n_ubatch
// 512): "CPU compute buffer size = 11.05 MiB" at n_ctx 512 and 14.55 MiB at 4096. The fit answer's
// compute buffer counts the DeltaNet's intermediates (it said 5.75 and 9.25 MiB without them).
TEST(Qwen35Plan, ComputeBufferCountsTheDeltaNetIntermediatesAsLlamaCpp) {
  const auto s = hybrid_shape(
      "arch=qwen35,n_embd=256,n_layer=8,n_head=2,n_head_kv=1,head_dim=256,rope_dim=64,n_ff=256,"
      "n_vocab=256,context=4096,ssm_state=64,ssm_groups=4,ssm_heads=16,ssm_inner=1024,tied=1");
  const auto tensors = model::model_tensors(s, FileType::f32);
  const auto host = placement::whole(s.n_layer, placement::kHost);
  for (const auto& [context, mib] : {std::pair{512u, 11.05}, std::pair{4096u, 14.55}}) {
    placement::DeploymentOptions o;
    o.context = context;
    o.flash_attention = true;
    const auto bytes = placement::deployment_bytes(s, tensors, host, o);
    ASSERT_EQ(bytes.size(), 1u);
    const double got = static_cast<double>(bytes[0].compute) / 1048576.0;
    EXPECT_GE(got, mib - 0.01) << "n_ctx " << context;
    EXPECT_LE(got, mib * 1.03) << "n_ctx " << context;
  }
}

// Bad files: the error names the key or the tensor.
// A file with qwen35's MTP block after the trunk (nextn_predict_layers 1, block_count 5): the
// trunk is its 4 layers, the decode gives the file without the block's logits bit for bit, and the
// plan leaves the block's tensors out, as llama.cpp skips them without an MTP context. llama.cpp
// 3.22.1 loaded such a file (n_embd 256) and gave the same 16 greedy tokens as without the block
// and as gauntlet. Other architectures' MTP blocks are refused by name.
TEST(Qwen35Mtp, TheMtpBlockIsLeftOutOfTheDecodeAndThePlan) {
  const auto plain_bytes = synthetic_bytes(hybrid_shape(kHybrid), FileType::f32, 7);
  const auto mtp_bytes = synthetic_bytes(hybrid_shape(kHybrid + ",nextn=1"), FileType::f32, 7);
  const auto plain = load(plain_bytes);
  const auto with_mtp = load(mtp_bytes);
  EXPECT_EQ(with_mtp.shape.n_layer, 4u);
  EXPECT_EQ(with_mtp.shape.n_layer_nextn, 1u);
  EXPECT_NE(find(with_mtp.tensors, "blk.4.nextn.eh_proj.weight"), nullptr);
  EXPECT_NE(find(with_mtp.tensors, "blk.4.attn_q.weight"), nullptr);
  auto a = reference::Decoder::create(plain, {1, planner::KvPrecision::f32, 16}).value();
  auto b = reference::Decoder::create(with_mtp, {1, planner::KvPrecision::f32, 16}).value();
  for (int32_t t : {3, 9, 27, 5}) {
    const auto la = a->step(t).value();
    const auto lb = b->step(t).value();
    EXPECT_TRUE(std::equal(la.begin(), la.end(), lb.begin(), lb.end())) << t;
  }
  auto p = placement::from_gpu_layers(4, {-1, {"vulkan:0"}, {}, placement::kHost});
  ASSERT_TRUE(p.is_ok());
  const auto planned = placement::deployment_bytes(plain.shape, plain.tensors, *p, {});
  const auto planned_mtp = placement::deployment_bytes(with_mtp.shape, with_mtp.tensors, *p, {});
  EXPECT_EQ(planned_mtp[0].total(), planned[0].total());
  EXPECT_EQ(planned_mtp[1].total(), planned[1].total());

  auto llama = model::parse_dims(
      "arch=llama,n_embd=64,n_layer=2,n_head=4,n_ff=128,n_vocab=64,context=64,nextn=1");
  ASSERT_TRUE(llama.is_ok());
  const auto refused = model::validate_shape(*llama);
  ASSERT_FALSE(refused.is_ok());
  EXPECT_NE(refused.error().message.find("nextn_predict_layers 1: only qwen35's single MTP block"),
            std::string::npos)
      << refused.error().message;
}

TEST(Qwen35Load, BadFilesNameTheKeyOrTensor) {
  auto expect_bytes_refused = [](const std::vector<std::byte>& bytes, const std::string& what) {
    auto info = model::parse_gguf(bytes);
    ASSERT_TRUE(info.is_ok());
    auto m = model::load_model(*info, bytes);
    ASSERT_FALSE(m.is_ok()) << what;
    EXPECT_NE(m.error().message.find(what), std::string::npos) << m.error().message;
  };
  auto expect_refused = [](model::GgufWriter w, const std::string& what) {
    auto bytes = w.to_bytes();
    ASSERT_TRUE(bytes.is_ok());
    auto info = model::parse_gguf(*bytes);
    ASSERT_TRUE(info.is_ok());
    auto m = model::load_model(*info, *bytes);
    ASSERT_FALSE(m.is_ok()) << what;
    EXPECT_NE(m.error().message.find(what), std::string::npos) << m.error().message;
  };
  const auto s = hybrid_shape(kHybrid);
  auto writer = [&] { return *model::synthetic_writer(s, FileType::f32, 7); };
  {
    auto w = writer();
    w.set_u32("qwen35.ssm.conv_kernel", 3);
    expect_refused(std::move(w), "ssm.conv_kernel 3");
  }
  {
    auto w = writer();
    w.set_u32("qwen35.ssm.group_count", 3);
    expect_refused(std::move(w),
                   "ssm.time_step_rank (value heads) 4 is not a multiple of "
                   "ssm.group_count (key heads) 3");
  }
  {
    auto w = writer();
    w.set_u32("qwen35.ssm.inner_size", 128);
    expect_refused(std::move(w), "ssm.inner_size 128");
  }
  {
    // A missing state tensor: rename blk.1.ssm_a (its length-prefixed name) to blk.1.ssm_b.
    auto bytes = *writer().to_bytes();
    std::string name(8, '\0');
    name[0] = 11;
    name += "blk.1.ssm_a";
    auto at =
        std::search(bytes.begin(), bytes.end(), reinterpret_cast<const std::byte*>(name.data()),
                    reinterpret_cast<const std::byte*>(name.data()) + name.size());
    ASSERT_NE(at, bytes.end());
    *(at + static_cast<std::ptrdiff_t>(name.size()) - 1) = std::byte{'b'};
    expect_bytes_refused(bytes, "tensor 'blk.1.ssm_a' is missing");
  }
}

}  // namespace
}  // namespace gauntlet::engine::test
