// Nemotron-H's Mamba2 hybrid on the host reference (llama.cpp's src/models/nemotron-h.cpp and
// build_mamba2_layer): one scan step and one whole Mamba2 token by hand (dt's softplus and bias,
// the decay, D's skip, the z gate and the grouped norm), the tensor list, which layers keep KV and
// which a state, the published 8B's parameter count, passes that give the token-by-token logits
// (the state across pass boundaries), the cpu device's fast products, and bad keys and tensors
// refused by name; nemotron_h_moe's routing, the published Nano's counts and its passes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "engine/model/layer_plan.h"
#include "engine/planner/planner.h"
#include "engine/reference/experts.h"
#include "engine/reference/mamba2.h"
#include "engine/reference/scan_step.h"
#include "reference_checks.h"
#include "test_models.h"

namespace gauntlet::engine::test {
namespace {

using model::FileType;

// Six layers: Mamba2, feed-forward, Mamba2, attention, Mamba2, feed-forward.
const std::string kNemotronH =
    "arch=nemotron_h,n_embd=64,n_layer=6,n_head=4,n_head_kv=2,n_ff=128,n_vocab=64,context=64,"
    "layers=M-M*M-";
// The same layers with experts: 8 ungated experts of 64, 2 a token, renormalised and scaled by
// 2.5, and a shared expert of 128.
const std::string kNemotronHMoe =
    "arch=nemotron_h_moe,n_embd=64,n_layer=6,n_head=4,n_head_kv=2,n_ff=128,n_vocab=64,"
    "context=64,layers=MEM*ME,n_expert=8,n_expert_used=2,n_ff_exp=64,n_ff_shexp=128,"
    "expert_norm=1,expert_scale=2.5";

float silu(float x) { return x / (1 + std::exp(-x)); }

TEST(Mamba2Ops, ScanStepDecaysAddsBxDtAndReadsC) {
  // dt 0.5, A -2: decay e^-1; x dt = 1. State [1 2] -> [e^-1 + 1, 2 e^-1 + 0]; y = its sum.
  float state[] = {1, 2};
  const float b[] = {1, 0}, c[] = {1, 1};
  const float y = reference::scan_step(state, b, c, 2.0f, 0.5f, -2.0f, 2);
  const float e = std::exp(-1.0f);
  EXPECT_FLOAT_EQ(state[0], e + 1);
  EXPECT_FLOAT_EQ(state[1], 2 * e);
  EXPECT_FLOAT_EQ(y, 3 * e + 1);
}

// A state row of whole 64s is summed as ggml-cpu's AVX-512 build sums it: four accumulators of 16
// lanes, each product fused into its lane, accumulators 1 and 3 added before they meet 0. With
// decay 0 and x dt 1 the state is B: 2^24 (element 0) + 1 (element 16) + 1 (element 48) is
// 2^24 + 2 there, where a sum in order loses both ones.
TEST(Mamba2Ops, ScanRowSumsAsGgmlsAvx512Build) {
  std::vector<float> s(128, 7.0f), b(128, 0.0f), c(128, 0.0f);
  b[0] = c[0] = 4096.0f;
  b[16] = c[16] = b[48] = c[48] = 1.0f;
  EXPECT_EQ(reference::scan_row(s.data(), b.data(), c.data(), 0.0f, 1.0f, 128), 16777218.0f);
  EXPECT_EQ(s[0], 4096.0f);
  EXPECT_EQ(s[1], 0.0f);
  // Fused: -1 at element 0, then (1 + 2^-12)^2 in the same lane at element 64 leaves
  // 2^-11 + 2^-24, which a rounded product would cut to 2^-11.
  std::fill(b.begin(), b.end(), 0.0f);
  std::fill(c.begin(), c.end(), 0.0f);
  b[0] = 1.0f, c[0] = -1.0f;
  b[64] = c[64] = 1.0f + 0x1p-12f;
  EXPECT_EQ(reference::scan_row(s.data(), b.data(), c.data(), 0.0f, 1.0f, 128),
            0x1p-11f + 0x1p-24f);
  // The state is s dA fused with the rounded B x dt: (1 + 2^-12)^2 - 1.
  s[0] = 1.0f + 0x1p-12f;
  b[0] = -1.0f;
  reference::scan_row(s.data(), b.data(), c.data(), 1.0f + 0x1p-12f, 1.0f, 128);
  EXPECT_EQ(s[0], 0x1p-11f + 0x1p-24f);
}

// Whichever vector form this processor takes gives the portable loop's bits and states, with
// and without a scalar tail.
TEST(Mamba2Ops, ScanRowGivesThePortableBitsOnEveryProcessor) {
  uint32_t seed = 777;
  auto next = [&] {
    seed = seed * 1664525u + 1013904223u;
    return static_cast<float>(static_cast<int32_t>(seed >> 8) - (1 << 23)) * 0x1p-22f;
  };
  for (uint32_t n : {64u, 128u, 130u, 256u}) {
    std::vector<float> s(n), b(n), c(n);
    for (uint32_t i = 0; i < n; ++i) s[i] = next(), b[i] = next(), c[i] = next();
    auto s_portable = s;
    const float fast = reference::scan_row(s.data(), b.data(), c.data(), 0.73f, 0.41f, n);
    const float portable =
        reference::scan_row_portable(s_portable.data(), b.data(), c.data(), 0.73f, 0.41f, n);
    EXPECT_EQ(fast, portable) << n;
    EXPECT_EQ(s, s_portable) << n;
  }
}

// inner 4 in two heads of 2, two groups (one head each), state 1, conv width 2 with taps [0.5 1]
// and bias 0.25 on every channel. Two tokens: the second's conv reads the first's input, its scan
// the first's state.
TEST(Mamba2Ops, TokenConvScanSkipGateAndGroupedNorm) {
  model::ModelShape s;
  s.arch = model::Arch::nemotron_h;
  s.ssm_inner = 4;
  s.ssm_heads = 2;
  s.ssm_groups = 2;
  s.ssm_state = 1;
  s.ssm_conv = 2;
  s.rms_eps = 1e-6f;
  ASSERT_EQ(s.ssm_channels(), 8u);  // x (4), B (2), C (2)
  const float taps[16] = {0.5f, 1, 0.5f, 1, 0.5f, 1, 0.5f, 1, 0.5f, 1, 0.5f, 1, 0.5f, 1, 0.5f, 1};
  const float bias[8] = {0.25f, 0.25f, 0.25f, 0.25f, 0.25f, 0.25f, 0.25f, 0.25f};
  const float dt_bias[2] = {1, -1}, a[2] = {-1, -0.5f}, d[2] = {2, 0.5f};
  const float norm[4] = {1, 2, 3, 4};
  auto view = [](const float* v) {
    model::TensorView t;
    t.data = reinterpret_cast<const std::byte*>(v);
    t.type = model::TensorType::f32;
    return t;
  };
  model::LayerWeights L;
  L.ssm_conv1d = view(taps);
  L.ssm_conv_bias = view(bias);
  L.ssm_dt_bias = view(dt_bias);
  L.ssm_a = view(a);
  L.ssm_d = view(d);
  L.ssm_norm = view(norm);
  // ssm_in's output: z (4), x (4), B (2), C (2), dt (2).
  const float in[2][14] = {{1, -1, 2, 0.5f, 1, 2, -1, 0.5f, 1, -1, 2, 1, 0, 1},
                           {0.5f, 1, -2, 1, 0, 1, 1, -1, 2, 1, -1, 1, 1, -1}};
  std::vector<float> conv_state(8, 9.0f), scan_state(4, 9.0f), conv(8), y(4);
  std::vector<float> h(4, 0.0f), prev_in(8, 0.0f);
  for (int t = 0; t < 2; ++t) {
    reference::mamba2_token(s, L, in[t], conv_state.data(), scan_state.data(), t == 0, conv.data(),
                            y.data());
    // By hand: conv = silu(0.5 prev + cur + 0.25); dt = softplus(dt + bias); h = h e^(dt A) +
    // B x dt; y = (h C + D x) silu(z); then each group of two normed with its own weights.
    float want[4];
    for (int c = 0; c < 8; ++c) {
      EXPECT_FLOAT_EQ(conv[c], silu(0.5f * prev_in[c] + in[t][4 + c] + 0.25f)) << t << " " << c;
    }
    for (int c = 0; c < 4; ++c) {
      const int head = c / 2;  // and its group
      const float dt = std::log(1 + std::exp(in[t][12 + head] + dt_bias[head]));
      const float x = conv[c], bb = conv[4 + head], cc = conv[6 + head];
      h[c] = h[c] * std::exp(dt * a[head]) + bb * x * dt;
      want[c] = (h[c] * cc + d[head] * x) * silu(in[t][c]);
    }
    for (int g = 0; g < 2; ++g) {
      const float ms = (want[2 * g] * want[2 * g] + want[2 * g + 1] * want[2 * g + 1]) / 2;
      for (int i = 0; i < 2; ++i) {
        const int c = 2 * g + i;
        EXPECT_NEAR(y[c], want[c] / std::sqrt(ms + 1e-6f) * norm[c], 1e-5f) << t << " " << c;
      }
    }
    for (int c = 0; c < 8; ++c) prev_in[c] = in[t][4 + c];
  }
  for (int c = 0; c < 4; ++c) EXPECT_FLOAT_EQ(scan_state[c], h[c]);
}

TEST(NemotronHShape, TensorsKvLayersAndState) {
  const auto s = shape_of(kNemotronH, true);
  EXPECT_EQ(s.mixer(0), model::Mixer::mamba2);
  EXPECT_EQ(s.mixer(1), model::Mixer::none);
  EXPECT_EQ(s.mixer(3), model::Mixer::attention);
  const auto plan = model::plan_layers(s);
  EXPECT_EQ(plan[0].ffn, model::FeedForward::none);
  EXPECT_EQ(plan[1].ffn, model::FeedForward::ungated);
  EXPECT_EQ(plan[3].ffn, model::FeedForward::none);
  EXPECT_EQ(plan[3].attention.rope_dims, 0u);  // no RoPE
  // Defaults: inner 2 n_embd in heads of 32, 2 groups, state 32, conv 4.
  EXPECT_EQ(s.ssm_inner, 128u);
  EXPECT_EQ(s.ssm_heads, 4u);
  const auto t = model::model_tensors(s, FileType::q8_0);
  // ssm_in: z and x (128 each), B and C (2 x 32 each), dt (4).
  EXPECT_EQ(find(t, "blk.0.ssm_in.weight")->ne, (std::vector<uint64_t>{64, 388}));
  EXPECT_EQ(find(t, "blk.0.ssm_conv1d.weight")->ne, (std::vector<uint64_t>{4, 256}));
  EXPECT_EQ(find(t, "blk.0.ssm_conv1d.weight")->type, model::TensorType::f32);
  EXPECT_EQ(find(t, "blk.0.ssm_a")->ne, (std::vector<uint64_t>{1, 4}));
  EXPECT_EQ(find(t, "blk.0.ssm_norm.weight")->ne, (std::vector<uint64_t>{64, 2}));
  EXPECT_EQ(find(t, "blk.0.ssm_norm.weight")->type, model::TensorType::f32);
  EXPECT_EQ(find(t, "blk.0.ffn_norm.weight"), nullptr);
  EXPECT_EQ(find(t, "blk.1.ffn_up.weight")->ne, (std::vector<uint64_t>{64, 128}));
  EXPECT_EQ(find(t, "blk.1.ffn_gate.weight"), nullptr);
  EXPECT_EQ(find(t, "blk.3.attn_q.weight")->ne, (std::vector<uint64_t>{64, 64}));
  EXPECT_EQ(find(t, "blk.3.ffn_up.weight"), nullptr);
  // KV only for layer 3; a state for layers 0, 2 and 4: the conv's 3 x 256 and the scan's
  // 32 x 128.
  const auto kv = planner::kv_layout(s, 64);
  EXPECT_EQ(kv.slots, (std::vector<uint32_t>{0, 0, 0, 64, 0, 0}));
  const auto st = planner::state_layout(s);
  EXPECT_EQ(st.per_sequence, 3ull * (3 * 256 + 32 * 128));
}

// Nemotron-H-8B: 131072 x 4096 embedding and output; 24 Mamba2 layers of ssm_in 4096 x 18560,
// conv 4 x 10240 and its bias, dt bias, A and D (128 each), the grouped norm (8192) and ssm_out
// 8192 x 4096; 4 attention layers of 2 x 4096^2 + 2 x 4096 x 1024; 24 squared-ReLU
// feed-forwards of 2 x 4096 x 21504; a norm per layer and the final one: 1,073,741,824 +
// 24 x 109,640,064 + 4 x 41,947,136 + 24 x 176,164,864 + 4,096 = 8,100,852,736 (NVIDIA: "8B").
TEST(NemotronHShape, PublishedParameterCountAndStateBytes) {
  const auto s = model::preset_shape("nemotron-h-8b").value();
  EXPECT_EQ(s.recurrent_layers(), 24u);
  EXPECT_EQ(model::parameter_count(s), 8100852736ull);
  // Per sequence: 24 x (3 x 10240 conv + 128 x 8192 scan) floats = 103,495,680 bytes.
  EXPECT_EQ(planner::state_bytes(s, 1), 24ull * (3 * 10240 + 128 * 8192) * 4);
  EXPECT_EQ(planner::kv_cache_bytes(s, 8192, 1, planner::KvPrecision::f16),
            4ull * 2 * 1024 * 2 * 8192);
}

TEST(NemotronHReference, PassesGiveTheTokenByTokenLogits) {
  const auto bytes = synthetic_bytes(shape_of(kNemotronH, true), FileType::f32);
  expect_passes_give_token_by_token_logits(load(bytes), {5, 16});
}

TEST(NemotronHReference, CpuDeviceGivesTheReferenceTokensWithinItsBound) {
  auto shape = shape_of(kNemotronH + ",n_embd=256,n_ff=256,n_vocab=256", true);
  for (FileType format : {FileType::q8_0, FileType::q4_K_M}) {
    SCOPED_TRACE(model::to_string(format));
    const auto bytes = synthetic_bytes(shape, format, 11);
    expect_fast_products_within_bound(load(bytes));
  }
}

TEST(NemotronHLoad, BadKeysAndTensorsAreRefusedByName) {
  const auto s = shape_of(kNemotronH, true);
  auto refused = [&](auto&& change, const std::string& what) {
    expect_load_refused(s, change, what);
  };
  refused([](auto& w) { w.set_u32("nemotron_h.ssm.conv_kernel", 9); }, "ssm.conv_kernel 9");
  refused([](auto& w) { w.set_u32("nemotron_h.ssm.group_count", 3); }, "ssm.group_count 3");
  refused([](auto& w) { w.remove_tensor("blk.2.ssm_d"); }, "tensor 'blk.2.ssm_d' is missing");
  refused([](auto& w) { w.set_string("nemotron_h.attention.layer_norm_epsilon", "small"); },
          "'nemotron_h.attention.layer_norm_epsilon'");
}

// Every layer a Mamba2 block or attention, none a feed-forward: llama.cpp loads such a file (its
// feed_forward_length all 0), and so does the engine.
TEST(NemotronHLoad, AFileWithoutFeedForwardLayersLoads) {
  auto s = shape_of(kNemotronH + ",n_layer=2,layers=M*", true);
  const auto bytes = synthetic_bytes(s, FileType::f32);
  const auto m = load(bytes);
  EXPECT_EQ(m.shape.n_ff, 0u);
  EXPECT_EQ(m.shape.recurrent_layers(), 1u);
  expect_passes_give_token_by_token_logits(m, {4});
}

// build_moe_ffn with SIGMOID, norm_w and w_scale 2.5: logits [0 1 2 -1] give sigmoids
// [.5 .731 .881 .269]; experts 2 and 1 are picked, weighted by their sigmoids over the sum of the
// two, times 2.5.
TEST(NemotronHMoeRouting, SigmoidPicksRenormalisedAndScaled) {
  const auto s = shape_of(kNemotronHMoe, true);
  std::vector<float> router = {0, 1, 2, -1, -2, -3, -4, -5}, selected(5);
  reference::route_token(s, router.data(), selected.data());
  const float s1 = 1 / (1 + std::exp(-1.0f)), s2 = 1 / (1 + std::exp(-2.0f));
  EXPECT_EQ(selected[0], 2.0f);
  EXPECT_EQ(selected[1], 1.0f);
  EXPECT_FLOAT_EQ(selected[2], 2.5f * s2 / (s1 + s2));
  EXPECT_FLOAT_EQ(selected[3], 2.5f * s1 / (s1 + s2));
}

// NVIDIA-Nemotron-3-Nano-30B-A3B: 23 Mamba2 layers (ssm_in 2688 x 10304, conv 4 x 6144, ...),
// 6 attention layers, 23 expert layers of 128 ungated experts (2 x 2688 x 1856 each), a router,
// the selection bias and a shared expert of 2 x 2688 x 3712: 31,577,940,288 parameters and
// 3,580,076,352 active (NVIDIA: 31.6B, 3.6B with the embeddings).
TEST(NemotronHMoeShape, PublishedCountsTensorsAndState) {
  const auto s = model::preset_shape("nemotron-3-nano-30b-a3b").value();
  EXPECT_EQ(model::parameter_count(s), 31577940288ull);
  EXPECT_EQ(model::active_parameter_count(s), 3580076352ull);
  EXPECT_EQ(s.moe_layers(), 23u);
  const auto t = model::model_tensors(s, FileType::q4_K_M);
  EXPECT_EQ(find(t, "blk.1.ffn_up_exps.weight")->ne, (std::vector<uint64_t>{2688, 1856, 128}));
  EXPECT_EQ(find(t, "blk.1.ffn_gate_exps.weight"), nullptr);
  EXPECT_EQ(find(t, "blk.1.ffn_up_shexp.weight")->ne, (std::vector<uint64_t>{2688, 3712}));
  EXPECT_EQ(find(t, "blk.1.exp_probs_b.bias")->type, model::TensorType::f32);
  const auto plan = model::plan_layers(s);
  EXPECT_EQ(plan[1].mixer, model::Mixer::none);
  EXPECT_EQ(plan[1].ffn, model::FeedForward::experts);
  EXPECT_EQ(plan[5].mixer, model::Mixer::attention);
  // Per sequence: 23 x (3 x 6144 conv + 128 x 4096 scan) floats; KV for the 6 attention layers.
  EXPECT_EQ(planner::state_bytes(s, 1), 23ull * (3 * 6144 + 128 * 4096) * 4);
  EXPECT_EQ(planner::kv_cache_bytes(s, 4096, 1, planner::KvPrecision::f16),
            6ull * 2 * 256 * 2 * 4096);
}

TEST(NemotronHMoeReference, PassesAndTheCpuDevice) {
  const auto bytes = synthetic_bytes(shape_of(kNemotronHMoe, true), FileType::f32);
  expect_passes_give_token_by_token_logits(load(bytes), {5, 16});
  auto shape = shape_of(kNemotronHMoe + ",n_embd=256,n_ff=256,n_vocab=256,n_ff_exp=256", true);
  expect_fast_products_within_bound(load(synthetic_bytes(shape, FileType::q8_0, 11)));
}

}  // namespace
}  // namespace gauntlet::engine::test
