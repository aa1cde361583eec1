// The IQ4_NL, IQ4_XS, MXFP4_MOE, TQ1_0 and TQ2_0 file types with llama.cpp's quantizer rules
// (src/llama-quant.cpp llama_tensor_get_type_impl, tensor_type_fallback,
// llama_ftype_get_default_type), and llama-quantize's --tensor-type overrides
// (llama_tensor_get_type), nvfp4's among them.
#include <gtest/gtest.h>

#include "engine/model/file_type.h"
#include "engine/model/shape.h"
#include "engine/planner/planner.h"
#include "tests/engine/test_models.h"

namespace gauntlet::engine {
namespace {

using model::FileType;
using model::TensorType;

using test::type_of;

model::ModelShape dims(const std::string& text) {
  auto s = model::parse_dims(text);
  EXPECT_TRUE(s.is_ok()) << s.error().describe();
  return *s;
}

// 8 layers, n_gqa 2: the output Q6_K; ffn_down Q5_K on the first eighth of the layers (no
// importance matrix); attn_v keeps the base (Q5_K only from n_gqa 4); everything else the base.
TEST(NonlinearFileTypes, Iq4RulesByLayerAndGroupSize) {
  const auto s = dims("n_embd=256,n_layer=8,n_head=4,n_head_kv=2,n_ff=512,n_vocab=300,context=64");
  for (FileType f : {FileType::iq4_nl, FileType::iq4_xs}) {
    SCOPED_TRACE(model::to_string(f));
    const TensorType base = model::base_type(f);
    const auto t = model::model_tensors(s, f);
    EXPECT_EQ(type_of(t, "output.weight"), TensorType::q6_K);
    EXPECT_EQ(type_of(t, "token_embd.weight"), base);
    EXPECT_EQ(type_of(t, "blk.0.ffn_down.weight"), TensorType::q5_K);
    EXPECT_EQ(type_of(t, "blk.1.ffn_down.weight"), base);
    EXPECT_EQ(type_of(t, "blk.7.ffn_down.weight"), base);
    EXPECT_EQ(type_of(t, "blk.0.attn_v.weight"), base);
    EXPECT_EQ(type_of(t, "blk.3.attn_output.weight"), base);
    EXPECT_EQ(type_of(t, "blk.3.ffn_gate.weight"), base);
    EXPECT_EQ(type_of(t, "blk.3.attn_norm.weight"), TensorType::f32);
  }
  const auto gqa4 =
      dims("n_embd=256,n_layer=8,n_head=8,n_head_kv=2,n_ff=512,n_vocab=300,context=64");
  EXPECT_EQ(type_of(model::model_tensors(gqa4, FileType::iq4_xs), "blk.5.attn_v.weight"),
            TensorType::q5_K);
  EXPECT_EQ(type_of(model::model_tensors(gqa4, FileType::iq4_nl), "blk.5.attn_v.weight"),
            TensorType::q5_K);
}

// Rows of 896 (Qwen2.5-0.5B): IQ4_XS falls back to IQ4_NL (896 = 28 * 32), the output's Q6_K to
// Q8_0, attn_v's Q5_K (n_gqa 7) to Q5_1; rows of 4864 (19 * 256) keep IQ4_XS.
TEST(NonlinearFileTypes, RowsThatAreNotSuperBlocksFallBack) {
  const auto s =
      dims("n_embd=896,n_layer=8,n_head=14,n_head_kv=2,n_ff=4864,n_vocab=400,context=64");
  const auto xs = model::model_tensors(s, FileType::iq4_xs);
  EXPECT_EQ(type_of(xs, "blk.2.attn_q.weight"), TensorType::iq4_nl);
  EXPECT_EQ(type_of(xs, "blk.2.ffn_down.weight"), TensorType::iq4_xs);
  EXPECT_EQ(type_of(xs, "blk.2.attn_v.weight"), TensorType::q5_1);
  EXPECT_EQ(type_of(xs, "output.weight"), TensorType::q8_0);
  EXPECT_EQ(type_of(model::model_tensors(s, FileType::iq4_nl), "blk.2.attn_q.weight"),
            TensorType::iq4_nl);
  // A row of 48 holds no block of 32: F16, as tensor_type_fallback's last resort.
  model::TensorPlace odd;
  odd.name = "blk.0.attn_q.weight";
  odd.n_cols = 48;
  odd.n_layer = 8;
  EXPECT_EQ(model::tensor_type_for(FileType::iq4_nl, odd), TensorType::f16);
  EXPECT_EQ(model::tensor_type_for(FileType::iq4_xs, odd), TensorType::f16);
  EXPECT_EQ(model::tensor_type_for(FileType::mxfp4_moe, odd), TensorType::f16);
}

// 8 experts: attn_k and attn_v Q8_0, attn_output Q5_K (IQ4_NL and IQ4_XS are in llama.cpp's list).
TEST(NonlinearFileTypes, Iq4EightExpertRules) {
  const auto s = dims(
      "arch=qwen3moe,n_ff_exp=256,n_embd=256,n_layer=8,n_head=4,n_head_kv=2,head_dim=64,"
      "n_ff=512,n_expert=8,n_expert_used=2,n_vocab=256,context=64");
  const auto t = model::model_tensors(s, FileType::iq4_xs);
  EXPECT_EQ(type_of(t, "blk.3.attn_k.weight"), TensorType::q8_0);
  EXPECT_EQ(type_of(t, "blk.3.attn_v.weight"), TensorType::q8_0);
  EXPECT_EQ(type_of(t, "blk.3.attn_output.weight"), TensorType::q5_K);
  EXPECT_EQ(type_of(t, "blk.3.ffn_gate_exps.weight"), TensorType::iq4_xs);
  EXPECT_EQ(type_of(t, "blk.0.ffn_down_exps.weight"), TensorType::q5_K);
  EXPECT_EQ(type_of(t, "blk.3.ffn_down_exps.weight"), TensorType::iq4_xs);
  EXPECT_EQ(type_of(t, "blk.3.ffn_gate_inp.weight"), TensorType::f32);
}

// MXFP4_MOE: the expert stacks (3-D) MXFP4; the output, the embedding, attention and the shared
// expert's 2-D matrices Q8_0; the router and norms F32. A dense model has no MXFP4 tensor.
TEST(NonlinearFileTypes, Mxfp4MoePutsMxfp4OnlyOnExpertStacks) {
  const auto s = dims(
      "arch=qwen2moe,n_ff_exp=256,n_ff_shexp=512,n_embd=256,n_layer=2,n_head=4,n_head_kv=2,"
      "head_dim=64,n_ff=512,n_expert=4,n_expert_used=2,n_vocab=256,context=64");
  const auto t = model::model_tensors(s, FileType::mxfp4_moe);
  for (const char* e : {"ffn_gate_exps", "ffn_up_exps", "ffn_down_exps"}) {
    EXPECT_EQ(type_of(t, std::string("blk.1.") + e + ".weight"), TensorType::mxfp4) << e;
  }
  for (const char* q8 :
       {"token_embd.weight", "output.weight", "blk.0.attn_q.weight", "blk.0.attn_v.weight",
        "blk.0.attn_output.weight", "blk.0.ffn_down_shexp.weight", "blk.0.ffn_gate_shexp.weight"}) {
    EXPECT_EQ(type_of(t, q8), TensorType::q8_0) << q8;
  }
  EXPECT_EQ(type_of(t, "blk.0.ffn_gate_inp.weight"), TensorType::f32);
  EXPECT_EQ(type_of(t, "blk.0.ffn_norm.weight"), TensorType::f32);
  const auto dense =
      dims("n_embd=256,n_layer=2,n_head=4,n_head_kv=2,n_ff=512,n_vocab=300,context=64");
  for (const auto& d : model::model_tensors(dense, FileType::mxfp4_moe)) {
    EXPECT_TRUE(d.type == TensorType::q8_0 || d.type == TensorType::f32) << d.name;
  }
}

// The planner's bytes: an mxfp4 expert stack {256, 256, 8} is 8 x 256 rows of 8 blocks of 17
// bytes; attn_q {256, 256} in iq4_xs is 256 rows of one 136-byte block, in iq4_nl of 8 x 18.
TEST(NonlinearFileTypes, PlannerBytesAreTheBlockBytes) {
  const auto s = dims(
      "arch=qwen3moe,n_ff_exp=256,n_embd=256,n_layer=2,n_head=4,n_head_kv=2,head_dim=64,"
      "n_ff=512,n_expert=8,n_expert_used=2,n_vocab=256,context=64");
  auto bytes_of = [&](FileType f, const std::string& name) {
    for (const auto& t : model::model_tensors(s, f)) {
      if (t.name == name) return t.bytes();
    }
    ADD_FAILURE() << "no tensor " << name;
    return uint64_t{0};
  };
  EXPECT_EQ(bytes_of(FileType::mxfp4_moe, "blk.0.ffn_up_exps.weight"), 8u * 256 * 8 * 17);
  EXPECT_EQ(bytes_of(FileType::iq4_xs, "blk.1.attn_q.weight"), 256u * 136);
  EXPECT_EQ(bytes_of(FileType::iq4_nl, "blk.1.attn_q.weight"), 256u * 8 * 18);
  uint64_t sum = 0;
  for (const auto& t : model::model_tensors(s, FileType::mxfp4_moe)) sum += t.bytes();
  EXPECT_EQ(planner::weight_bytes(s, FileType::mxfp4_moe), sum);
}

TEST(NonlinearFileTypes, NamesAndIds) {
  EXPECT_EQ(static_cast<uint32_t>(FileType::iq4_nl), 25u);     // LLAMA_FTYPE_MOSTLY_IQ4_NL
  EXPECT_EQ(static_cast<uint32_t>(FileType::iq4_xs), 30u);     // LLAMA_FTYPE_MOSTLY_IQ4_XS
  EXPECT_EQ(static_cast<uint32_t>(FileType::mxfp4_moe), 38u);  // LLAMA_FTYPE_MOSTLY_MXFP4_MOE
  EXPECT_EQ(model::parse_file_type("iq4_xs"), FileType::iq4_xs);
  EXPECT_EQ(model::parse_file_type("MXFP4_MOE"), FileType::mxfp4_moe);
  EXPECT_STREQ(model::to_string(FileType::iq4_nl), "IQ4_NL");
  EXPECT_EQ(model::file_type_from_id(38), FileType::mxfp4_moe);
  EXPECT_EQ(model::base_type(FileType::mxfp4_moe), TensorType::mxfp4);
  EXPECT_EQ(model::file_type_for(TensorType::iq4_xs), FileType::iq4_xs);
  EXPECT_EQ(model::file_type_for(TensorType::mxfp4), std::nullopt);  // experts only
}

// --tensor-type: the first matching pattern wins over the rules, then the fallback applies; an
// unquantized file type ignores the overrides (llama_tensor_get_type checks the default type).
TEST(NonlinearFileTypes, TensorTypeOverridesAsLlamaQuantize) {
  std::vector<model::TensorTypeOverride> o;
  for (const char* text : {"ffn_down=iq4_xs", "BLK\\.0\\..*=mxfp4", "attn_q=q8_0"}) {
    auto parsed = model::parse_tensor_type_override(text);
    ASSERT_TRUE(parsed.has_value()) << text;
    o.push_back(std::move(*parsed));
  }
  EXPECT_EQ(o[1].pattern, "blk\\.0\\..*");  // lower-cased, as llama-quantize does
  const auto s =
      dims("n_embd=896,n_layer=8,n_head=14,n_head_kv=2,n_ff=4864,n_vocab=400,context=64");
  const auto t = model::model_tensors(s, FileType::q4_K_M, o);
  EXPECT_EQ(type_of(t, "blk.0.ffn_down.weight"), TensorType::iq4_xs);  // first match
  EXPECT_EQ(type_of(t, "blk.0.attn_k.weight"), TensorType::mxfp4);
  EXPECT_EQ(type_of(t, "blk.0.attn_norm.weight"), TensorType::f32);  // never quantized
  EXPECT_EQ(type_of(t, "blk.1.attn_q.weight"), TensorType::q8_0);
  EXPECT_EQ(type_of(t, "blk.1.attn_k.weight"), TensorType::q5_0);  // the rules: q4_K, fallback
  const auto f16 = model::model_tensors(s, FileType::f16, o);
  EXPECT_EQ(type_of(f16, "blk.0.ffn_down.weight"), TensorType::f16);
  // ffn_down's rows of 4864 hold iq4_xs; attn_output's rows of 896 fall back to iq4_nl.
  auto out = model::parse_tensor_type_override("attn_output=iq4_xs");
  ASSERT_TRUE(out.has_value());
  EXPECT_EQ(type_of(model::model_tensors(s, FileType::q8_0, std::span(&*out, 1)),
                    "blk.4.attn_output.weight"),
            TensorType::iq4_nl);
  for (const char* bad : {"ffn_down", "=q8_0", "ffn_down=", "ffn_down=q8_1", "(=q8_0"}) {
    EXPECT_FALSE(model::parse_tensor_type_override(bad).has_value()) << bad;
  }
}

// TQ1_0 and TQ2_0 (llama-quant.cpp): every matrix the ternary type but the output (Q6_K, as in
// every file type but Q8_0) and the token tables (the TOKEN_EMBD branch: Q4_K); 8 experts put
// attn_k and attn_v on Q8_0 (attn_output's 8-expert list has no TQ type); a tied embedding is
// the output. The ternary types fall back to Q4_0 (tensor_type_fallback), then F16.
TEST(TernaryFileTypes, TqRules) {
  const auto s = dims("n_embd=256,n_layer=8,n_head=4,n_head_kv=2,n_ff=512,n_vocab=300,context=64");
  for (FileType f : {FileType::tq1_0, FileType::tq2_0}) {
    SCOPED_TRACE(model::to_string(f));
    const TensorType base = model::base_type(f);
    const auto t = model::model_tensors(s, f);
    EXPECT_EQ(type_of(t, "output.weight"), TensorType::q6_K);
    EXPECT_EQ(type_of(t, "token_embd.weight"), TensorType::q4_K);
    for (const char* name :
         {"blk.0.ffn_down.weight", "blk.7.ffn_down.weight", "blk.0.attn_v.weight",
          "blk.3.attn_k.weight", "blk.3.attn_q.weight", "blk.3.attn_output.weight",
          "blk.3.ffn_gate.weight", "blk.3.ffn_up.weight"}) {
      EXPECT_EQ(type_of(t, name), base) << name;
    }
    EXPECT_EQ(type_of(t, "blk.3.attn_norm.weight"), TensorType::f32);
    auto tied = s;
    tied.tied_output = true;
    EXPECT_EQ(type_of(model::model_tensors(tied, f), "token_embd.weight"), TensorType::q6_K);

    const auto moe = dims(
        "arch=qwen3moe,n_ff_exp=256,n_embd=256,n_layer=8,n_head=4,n_head_kv=2,head_dim=64,"
        "n_ff=512,n_expert=8,n_expert_used=2,n_vocab=256,context=64");
    const auto m = model::model_tensors(moe, f);
    EXPECT_EQ(type_of(m, "blk.3.attn_k.weight"), TensorType::q8_0);
    EXPECT_EQ(type_of(m, "blk.3.attn_v.weight"), TensorType::q8_0);
    EXPECT_EQ(type_of(m, "blk.3.attn_output.weight"), base);
    EXPECT_EQ(type_of(m, "blk.3.ffn_down_exps.weight"), base);
    EXPECT_EQ(type_of(m, "blk.3.ffn_gate_inp.weight"), TensorType::f32);

    // Rows of 896: the ternary type falls back to Q4_0, the token table's Q4_K to Q5_0 and the
    // output's Q6_K to Q8_0 (its row is not whole blocks of the base type).
    const auto narrow =
        dims("n_embd=896,n_layer=8,n_head=14,n_head_kv=2,n_ff=4864,n_vocab=400,context=64");
    const auto n = model::model_tensors(narrow, f);
    EXPECT_EQ(type_of(n, "blk.2.attn_q.weight"), TensorType::q4_0);
    EXPECT_EQ(type_of(n, "blk.2.ffn_down.weight"), base);  // 4864 = 19 * 256
    EXPECT_EQ(type_of(n, "token_embd.weight"), TensorType::q5_0);
    EXPECT_EQ(type_of(n, "output.weight"), TensorType::q8_0);
    model::TensorPlace odd;
    odd.name = "blk.0.attn_q.weight";
    odd.n_cols = 48;
    odd.n_layer = 8;
    EXPECT_EQ(model::tensor_type_for(f, odd), TensorType::f16);
  }
}

// Planner bytes from the registry: a tq1_0 row of 256 is one 54-byte block, tq2_0's 66 bytes,
// an nvfp4 row of 256 four 36-byte blocks.
TEST(TernaryFileTypes, PlannerBytesAreTheBlockBytes) {
  const auto s = dims("n_embd=256,n_layer=2,n_head=4,n_head_kv=2,n_ff=512,n_vocab=300,context=64");
  auto bytes_of = [&](FileType f, const std::string& name,
                      std::span<const model::TensorTypeOverride> o) {
    for (const auto& t : model::model_tensors(s, f, o)) {
      if (t.name == name) return t.bytes();
    }
    ADD_FAILURE() << "no tensor " << name;
    return uint64_t{0};
  };
  EXPECT_EQ(bytes_of(FileType::tq1_0, "blk.1.attn_q.weight", {}), 256u * 54);
  EXPECT_EQ(bytes_of(FileType::tq2_0, "blk.1.ffn_down.weight", {}), 256u * 2 * 66);
  auto nv = model::parse_tensor_type_override("attn_q=nvfp4");
  ASSERT_TRUE(nv.has_value());
  EXPECT_EQ(bytes_of(FileType::q4_K_M, "blk.1.attn_q.weight", std::span(&*nv, 1)), 256u * 4 * 36);
  uint64_t sum = 0;
  for (const auto& t : model::model_tensors(s, FileType::tq1_0)) sum += t.bytes();
  EXPECT_EQ(planner::weight_bytes(s, FileType::tq1_0), sum);
}

// nvfp4 has no file type in llama.cpp's quantizer (llama_ftype_get_default_type has no case for
// LLAMA_FTYPE_MOSTLY_NVFP4, 39) and no fallback (tensor_type_fallback throws for it): an override
// keeps nvfp4 on a row that is not whole blocks of 64, which row_fits_type (model make) refuses.
TEST(TernaryFileTypes, NamesIdsAndNvfp4) {
  EXPECT_EQ(static_cast<uint32_t>(FileType::tq1_0), 36u);  // LLAMA_FTYPE_MOSTLY_TQ1_0
  EXPECT_EQ(static_cast<uint32_t>(FileType::tq2_0), 37u);  // LLAMA_FTYPE_MOSTLY_TQ2_0
  EXPECT_EQ(model::parse_file_type("tq1_0"), FileType::tq1_0);
  EXPECT_EQ(model::parse_file_type("TQ2_0"), FileType::tq2_0);
  EXPECT_STREQ(model::to_string(FileType::tq1_0), "TQ1_0");
  EXPECT_EQ(model::file_type_from_id(37), FileType::tq2_0);
  EXPECT_EQ(model::file_type_for(TensorType::tq1_0), FileType::tq1_0);
  EXPECT_EQ(model::parse_file_type("NVFP4"), std::nullopt);
  EXPECT_EQ(model::file_type_from_id(39), std::nullopt);
  EXPECT_EQ(model::file_type_for(TensorType::nvfp4), std::nullopt);
  auto nv = model::parse_tensor_type_override("attn_q=NVFP4");
  ASSERT_TRUE(nv.has_value());
  model::TensorPlace row96;
  row96.name = "blk.0.attn_q.weight";
  row96.n_cols = 96;
  EXPECT_EQ(model::tensor_type_for(FileType::q8_0, row96, std::span(&*nv, 1)), TensorType::nvfp4);
  EXPECT_FALSE(model::row_fits_type(TensorType::nvfp4, 96));
  EXPECT_TRUE(model::row_fits_type(TensorType::nvfp4, 128));
  EXPECT_TRUE(model::row_fits_type(TensorType::q4_0, 96));
}

}  // namespace
}  // namespace gauntlet::engine
