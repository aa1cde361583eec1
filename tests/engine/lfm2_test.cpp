// LFM2's short-convolution hybrid on the host reference (llama.cpp's src/models/lfm2.cpp): the
// gated conv by hand across calls, the tensor list, which layers keep KV and which a conv state,
// the published 1.2B's parameter count, passes that give the token-by-token logits, the cpu
// device's fast products against the exact reference, and a bad key refused by name.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "engine/device/profile_check.h"
#include "engine/model/layer_plan.h"
#include "engine/planner/planner.h"
#include "engine/reference/decoder.h"
#include "engine/reference/experts.h"
#include "engine/reference/short_conv.h"
#include "reference_checks.h"
#include "test_models.h"

namespace gauntlet::engine::test {
namespace {

using model::FileType;

// Four layers: 0 and 2 convolve, 1 and 3 attend.
const std::string kLfm2 =
    "arch=lfm2,n_embd=64,n_layer=4,n_head=4,n_head_kv=2,n_ff=128,n_vocab=64,context=64,"
    "attn_layers=1:3";

TEST(Lfm2Ops, GatedShortConvKeepsItsStateAcrossCalls) {
  // n_embd 2, l_cache 3: channel 0's taps [1 2 3], channel 1's [0.5 0 -1].
  auto s = shape_of(
      "arch=lfm2,n_embd=32,n_layer=2,n_head=2,n_ff=64,n_vocab=64,context=8,"
      "attn_layers=1");
  s.n_embd = 2;
  const float taps[] = {1, 2, 3, 0.5f, 0, -1};
  model::LayerWeights L;
  L.ssm_conv1d.data = reinterpret_cast<const std::byte*>(taps);
  L.ssm_conv1d.type = model::TensorType::f32;
  std::vector<float> state(4, 99.0f), y(2);
  // Each token's [B | C | x]: bx = B * x enters the conv, y = C * its output.
  const float bcx[3][6] = {{1, 2, 2, -1, 3, 1}, {0.5f, 1, 1, 1, 2, 4}, {1, -1, 0.5f, 2, -2, 1}};
  // bx: [3 2], [1 4], [-2 -1]. Channel 0's windows [0 0 3] -> 9, [0 3 1] -> 9, [3 1 -2] -> -1;
  // channel 1's [0 0 2] -> -2, [0 2 4] -> -4, [2 4 -1] -> 2; times C.
  const float want[3][2] = {{18, 2}, {9, -4}, {-0.5f, 4}};
  for (int t = 0; t < 3; ++t) {
    reference::short_conv_token(s, L, bcx[t], state.data(), t == 0, y.data());
    EXPECT_EQ(y[0], want[t][0]) << t;
    EXPECT_EQ(y[1], want[t][1]) << t;
  }
  EXPECT_EQ(state, (std::vector<float>{1, -2, 4, -1}));  // each channel's last two bx
}

TEST(Lfm2Shape, TensorsKvLayersAndState) {
  const auto s = shape_of(kLfm2, true);
  EXPECT_EQ(s.mixer(0), model::Mixer::short_conv);
  EXPECT_EQ(s.mixer(1), model::Mixer::attention);
  EXPECT_EQ(s.ssm_conv, 3u);  // LFM2's l_cache where the text leaves it out
  const auto t = model::model_tensors(s, FileType::q8_0);
  ASSERT_NE(find(t, "blk.0.shortconv.in_proj.weight"), nullptr);
  EXPECT_EQ(find(t, "blk.0.shortconv.in_proj.weight")->ne, (std::vector<uint64_t>{64, 192}));
  EXPECT_EQ(find(t, "blk.0.shortconv.conv.weight")->ne, (std::vector<uint64_t>{3, 64}));
  EXPECT_EQ(find(t, "blk.0.shortconv.conv.weight")->type, model::TensorType::f32);
  EXPECT_EQ(find(t, "blk.0.attn_q.weight"), nullptr);
  EXPECT_EQ(find(t, "blk.1.attn_k.weight")->ne, (std::vector<uint64_t>{64, 32}));
  ASSERT_NE(find(t, "token_embd_norm.weight"), nullptr);
  EXPECT_EQ(find(t, "output_norm.weight"), nullptr);
  // KV for layers 1 and 3; a conv state of 2 x 64 floats for layers 0 and 2.
  const auto kv = planner::kv_layout(s, 64);
  EXPECT_EQ(kv.slots, (std::vector<uint32_t>{0, 64, 0, 64}));
  const auto st = planner::state_layout(s);
  EXPECT_EQ(st.per_sequence, 2ull * 2 * 64);
  EXPECT_EQ(st.offset[2], 2ull * 64);
}

// LFM2.5-1.2B: 65536 x 2048 embedding (tied), 10 conv layers of (3 + 3 x 2048 + 2048) x 2048,
// 6 attention layers of 2 x 2048^2 + 2 x 2048 x 512 + two 64-wide norms, 16 SwiGLU feed-forwards
// of 3 x 2048 x 8192, two norms per layer and the final norm: 1,170,340,608 (LiquidAI: "1.17B").
TEST(Lfm2Shape, PublishedParameterCount) {
  const auto s = model::preset_shape("lfm2.5-1.2b").value();
  EXPECT_EQ(model::parameter_count(s), 1170340608ull);
  EXPECT_EQ(model::active_parameter_count(s), 1170340608ull);
  EXPECT_EQ(s.recurrent_layers(), 10u);
}

TEST(Lfm2Reference, PassesGiveTheTokenByTokenLogits) {
  const auto bytes = synthetic_bytes(shape_of(kLfm2, true), FileType::f32);
  expect_passes_give_token_by_token_logits(load(bytes), {5, 16});
}

// The cpu device's products (llama.cpp's quantized activations) against the exact reference.
TEST(Lfm2Reference, CpuDeviceGivesTheReferenceTokensWithinItsBound) {
  auto shape = shape_of(kLfm2 + ",n_embd=256,n_ff=256,n_vocab=256", true);
  for (FileType format : {FileType::q8_0, FileType::q4_K_M}) {
    SCOPED_TRACE(model::to_string(format));
    const auto bytes = synthetic_bytes(shape, format, 11);
    expect_fast_products_within_bound(load(bytes));
  }
}

// lfm2moe's router (build_moe_ffn with SIGMOID and exp_probs_b): logits [0 1 2 -1] give sigmoids
// [.5 .731 .881 .269]; the bias [3 0 0 0] makes expert 0 the first pick, expert 2 the second, and
// their weights are their unbiased sigmoids over the sum of the two.
TEST(Lfm2MoeRouting, SigmoidPicksByTheBiasedScoreAndWeighsByTheSigmoid) {
  auto s = shape_of(
      "arch=lfm2moe,n_embd=64,n_layer=2,n_head=2,n_ff=64,n_vocab=64,context=8,"
      "attn_layers=1,n_expert=4,n_expert_used=2,n_ff_exp=32",
      true);
  std::vector<float> router = {0, 1, 2, -1}, selected(5);
  const float bias[] = {3, 0, 0, 0};
  reference::route_token(s, router.data(), selected.data(), bias);
  const float s0 = 1 / (1 + std::exp(-0.0f)), s2 = 1 / (1 + std::exp(-2.0f));
  EXPECT_EQ(selected[0], 0.0f);
  EXPECT_EQ(selected[1], 2.0f);
  EXPECT_FLOAT_EQ(selected[2], s0 / (s0 + s2));
  EXPECT_FLOAT_EQ(selected[3], s2 / (s0 + s2));
  // Without the bias the two largest sigmoids win.
  router = {0, 1, 2, -1};
  reference::route_token(s, router.data(), selected.data());
  EXPECT_EQ(selected[0], 2.0f);
  EXPECT_EQ(selected[1], 1.0f);
}

// LiquidAI/LFM2-8B-A1B: lfm2.5's conv and attention layers (18 and 6), two leading dense layers
// of 3 x 2048 x 7168, 22 of 32 experts (3 x 2048 x 1792 each, a router and the 32-value bias):
// 8,339,930,560 parameters, 1,557,740,992 active with 4 experts a token (LiquidAI: 8.3B, 1.5B).
TEST(Lfm2MoeShape, DenseLeadLayersExpertsAndThePublishedCounts) {
  const auto s = model::preset_shape("lfm2-8b-a1b").value();
  EXPECT_EQ(model::parameter_count(s), 8339930560ull);
  EXPECT_EQ(model::active_parameter_count(s), 1557740992ull);
  const auto t = model::model_tensors(s, FileType::q4_K_M);
  EXPECT_NE(find(t, "blk.1.ffn_down.weight"), nullptr);
  EXPECT_EQ(find(t, "blk.1.ffn_gate_exps.weight"), nullptr);
  EXPECT_EQ(find(t, "blk.2.ffn_down.weight"), nullptr);
  ASSERT_NE(find(t, "blk.2.exp_probs_b.bias"), nullptr);
  EXPECT_EQ(find(t, "blk.2.exp_probs_b.bias")->type, model::TensorType::f32);
  const auto plan = model::plan_layers(s);
  EXPECT_EQ(plan[1].ffn, model::FeedForward::gated);
  EXPECT_EQ(plan[2].ffn, model::FeedForward::experts);
  EXPECT_EQ(plan[2].mixer, model::Mixer::attention);
  EXPECT_EQ(plan[3].mixer, model::Mixer::short_conv);
}

TEST(Lfm2Load, BadKeysAreRefusedByName) {
  const auto s = shape_of(kLfm2, true);
  auto refused = [&](const std::string& key, uint32_t value, const std::string& what) {
    expect_load_refused(
        s, [&](auto& w) { w.set_u32(key, value); }, what);
  };
  refused("lfm2.shortconv.l_cache", 9, "metadata 'lfm2.shortconv.l_cache'");
  // A scalar head_count_kv makes every layer attend: the conv layers' tensors are then not
  // the attention's llama.cpp would look for.
  refused("lfm2.attention.head_count_kv", 2, "tensor 'blk.0.attn_q.weight' is missing");
}

}  // namespace
}  // namespace gauntlet::engine::test
