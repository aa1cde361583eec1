// Granite 4.0-H (granitehybrid, llama.cpp's src/models/granite-hybrid.cpp) on the host reference:
// Mamba2 and attention layers each followed by a feed-forward, Granite's multipliers and RoPE by
// rope.scaling.finetuned; the tensor list, the published Tiny's counts, passes that give the
// token-by-token logits, the cpu device, and bad keys refused by name.
#include <gtest/gtest.h>

#include <vector>

#include "engine/model/layer_plan.h"
#include "engine/planner/planner.h"
#include "reference_checks.h"
#include "test_models.h"

namespace gauntlet::engine::test {
namespace {

using model::FileType;

// Mamba2, attention, Mamba2, Mamba2, with Granite's four multipliers.
const std::string kGranite =
    "arch=granitehybrid,n_embd=64,n_layer=4,n_head=4,n_head_kv=2,n_ff=128,n_vocab=64,context=64,"
    "layers=M*MM,embedding_scale=1.5,residual_scale=0.7,attention_scale=0.2,logit_scale=0.5";
const std::string kGraniteMoe = kGranite + ",n_expert=8,n_expert_used=2,n_ff_exp=64,n_ff_shexp=64";

TEST(GraniteHybridShape, TensorsPlanAndMultipliers) {
  const auto s = shape_of(kGranite + ",rope=0", true);
  EXPECT_EQ(s.mixer(0), model::Mixer::mamba2);
  EXPECT_EQ(s.mixer(1), model::Mixer::attention);
  const auto plan = model::plan_layers(s);
  EXPECT_EQ(plan[0].ffn, model::FeedForward::gated);  // every layer has its feed-forward
  EXPECT_EQ(plan[1].attention.rope_dims, 0u);         // rope.scaling.finetuned false
  EXPECT_FLOAT_EQ(plan[1].attention.scale, 0.2f);     // attention.scale, not 1/sqrt(16)
  EXPECT_FLOAT_EQ(s.embedding_multiplier(), 1.5f);
  EXPECT_EQ(model::plan_layers(shape_of(kGranite, true))[1].attention.rope_dims, 16u);
  const auto t = model::model_tensors(s, FileType::q8_0);
  EXPECT_NE(find(t, "blk.0.ssm_in.weight"), nullptr);
  EXPECT_NE(find(t, "blk.0.ffn_gate.weight"), nullptr);
  EXPECT_NE(find(t, "blk.0.ffn_norm.weight"), nullptr);
  EXPECT_EQ(find(t, "blk.0.attn_q.weight"), nullptr);
  const auto moe = model::model_tensors(shape_of(kGraniteMoe, true), FileType::q8_0);
  EXPECT_NE(find(moe, "blk.0.ffn_gate_shexp.weight"), nullptr);
  EXPECT_EQ(find(moe, "blk.0.ffn_gate_inp_shexp.weight"), nullptr);  // added as it is
}

// ibm-granite/granite-4.0-h-tiny: a tied 100352 x 1536 embedding, 36 Mamba2 layers (ssm_in
// 1536 x 6448, ...), 4 attention layers, 40 layers of 64 SwiGLU experts of 512 and a shared one of
// 1024: 6,939,037,248 parameters, 1,465,470,528 active with 6 experts a token (IBM: 7B, ~1B).
TEST(GraniteHybridShape, PublishedTinyCounts) {
  const auto s = model::preset_shape("granite-4.0-h-tiny").value();
  EXPECT_EQ(s.recurrent_layers(), 36u);
  EXPECT_FALSE(s.rope);
  EXPECT_EQ(model::parameter_count(s), 6939037248ull);
  EXPECT_EQ(model::active_parameter_count(s), 1465470528ull);
  // Per sequence: 36 x (3 x 3328 conv + 128 x 3072 scan) floats.
  EXPECT_EQ(planner::state_bytes(s, 1), 36ull * (3 * 3328 + 128 * 3072) * 4);
}

// ibm-granite/granite-4.0-h-small: a tied 100352 x 4096 embedding, 36 Mamba2 layers (ssm_in
// 4096 x 16768, 128 heads of 64), 4 attention layers of 32 heads and 8 KV heads, 40 layers of 72
// SwiGLU experts of 768 and a shared one of 1536: 32,207,337,984 parameters and 8,803,121,664
// active with 10 experts a token (IBM: 32B total, 9B activated; counted by hand as for the tiny).
TEST(GraniteHybridShape, PublishedSmallCounts) {
  const auto s = model::preset_shape("granite-4.0-h-small").value();
  EXPECT_EQ(s.recurrent_layers(), 36u);
  EXPECT_EQ(s.n_ff_shexp, 1536u);
  EXPECT_EQ(model::parameter_count(s), 32207337984ull);
  EXPECT_EQ(model::active_parameter_count(s), 8803121664ull);
  // Per sequence: 36 x (3 x 8448 conv + 128 x 8192 scan) floats.
  EXPECT_EQ(planner::state_bytes(s, 1), 36ull * (3 * 8448 + 128 * 8192) * 4);
}

TEST(GraniteHybridReference, PassesAndTheCpuDevice) {
  for (const std::string& dims : {kGranite, kGraniteMoe + ",rope=0"}) {
    SCOPED_TRACE(dims);
    expect_passes_give_token_by_token_logits(
        load(synthetic_bytes(shape_of(dims, true), FileType::f32)), {5, 16});
  }
  auto shape = shape_of(kGranite + ",n_embd=256,n_ff=256,n_vocab=256", true);
  expect_fast_products_within_bound(load(synthetic_bytes(shape, FileType::q8_0, 11)));
}

TEST(GraniteHybridShape, BadDimsAreRefusedByName) {
  auto refused = [](const std::string& dims, const std::string& what) {
    auto s = model::parse_dims(dims);
    auto valid = s.is_ok() ? model::validate_shape(*s) : core::Status(s.error());
    ASSERT_FALSE(valid.is_ok()) << dims;
    EXPECT_NE(valid.error().message.find(what), std::string::npos) << valid.error().message;
  };
  refused(kGranite + ",ssm_inner=64", "ssm.inner_size 64 must be 2 n_embd");
  refused(kGranite + ",layers=M-MM", "layers: '-' is not M (Mamba2), * (attention)");
  refused("arch=llama,n_embd=64,n_layer=2,n_head=4,n_ff=128,n_vocab=64,context=64,logit_scale=2",
          "llama has none of Granite's multipliers");
}

}  // namespace
}  // namespace gauntlet::engine::test
