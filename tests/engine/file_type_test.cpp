// llama.cpp's quantizer rules (src/llama-quant.cpp) as gauntlet applies them to synthetic files,
// and the metadata llama.cpp's loader needs.
#include "engine/model/file_type.h"

#include <gtest/gtest.h>

#include <set>

#include "engine/model/shape.h"
#include "test_models.h"

namespace gauntlet::engine {
namespace {

using model::FileType;
using model::TensorType;

model::ModelShape layers(uint32_t n) {
  auto s = model::parse_dims("n_embd=256,n_layer=" + std::to_string(n) +
                             ",n_head=4,n_head_kv=2,n_ff=512,n_vocab=300,context=64")
               .value();
  return s;
}

using test::type_of;

// use_more_bits(i, n): i < n/8, i >= 7n/8, or (i - n/8) % 3 == 2, worked by hand.
void expect_q4_k_m(uint32_t n_layer, const std::set<uint32_t>& more_bits) {
  SCOPED_TRACE(std::to_string(n_layer) + " layers");
  const auto tensors = model::model_tensors(layers(n_layer), FileType::q4_K_M);
  EXPECT_EQ(type_of(tensors, "token_embd.weight"), TensorType::q4_K);
  EXPECT_EQ(type_of(tensors, "output.weight"), TensorType::q6_K);
  EXPECT_EQ(type_of(tensors, "output_norm.weight"), TensorType::f32);
  for (uint32_t l = 0; l < n_layer; ++l) {
    const std::string p = "blk." + std::to_string(l) + ".";
    const TensorType sensitive = more_bits.count(l) ? TensorType::q6_K : TensorType::q4_K;
    EXPECT_EQ(type_of(tensors, p + "attn_v.weight"), sensitive) << l;
    EXPECT_EQ(type_of(tensors, p + "ffn_down.weight"), sensitive) << l;
    for (const char* plain : {"attn_q", "attn_k", "attn_output", "ffn_gate", "ffn_up"}) {
      EXPECT_EQ(type_of(tensors, p + plain + ".weight"), TensorType::q4_K) << p << plain;
    }
    EXPECT_EQ(type_of(tensors, p + "attn_norm.weight"), TensorType::f32);
    EXPECT_EQ(type_of(tensors, p + "ffn_norm.weight"), TensorType::f32);
  }
}

TEST(FileTypes, Q4KMGivesAttnVAndFfnDownMoreBitsOnTheLayersLlamaCppPicks) {
  expect_q4_k_m(8, {0, 3, 6, 7});
  expect_q4_k_m(32, {0, 1, 2, 3, 6, 9, 12, 15, 18, 21, 24, 27, 28, 29, 30, 31});
}

// Qwen2.5-0.5B's width: rows of 896 are not whole 256-element super-blocks, so llama.cpp falls
// back (tensor_type_fallback): q4_K -> q5_0, q6_K -> q8_0; ffn_down's rows of 4864 (19 * 256)
// keep the k-quants.
TEST(FileTypes, RowsOf896FallBackToLegacyTypes) {
  auto s = model::parse_dims(
               "n_embd=896,n_layer=8,n_head=14,n_head_kv=2,n_ff=4864,n_vocab=400,context=64")
               .value();
  const auto q4 = model::model_tensors(s, FileType::q4_K_M);
  EXPECT_EQ(type_of(q4, "blk.1.attn_q.weight"), TensorType::q5_0);
  EXPECT_EQ(type_of(q4, "blk.1.attn_v.weight"), TensorType::q5_0);
  EXPECT_EQ(type_of(q4, "blk.0.attn_v.weight"), TensorType::q8_0);  // q6_K, then its fallback
  EXPECT_EQ(type_of(q4, "blk.1.ffn_down.weight"), TensorType::q4_K);
  EXPECT_EQ(type_of(q4, "blk.0.ffn_down.weight"), TensorType::q6_K);
  EXPECT_EQ(type_of(q4, "token_embd.weight"), TensorType::q5_0);
  EXPECT_EQ(type_of(q4, "output.weight"), TensorType::q8_0);  // the output's own rule
  const auto q5 = model::model_tensors(s, FileType::q5_K_M);
  EXPECT_EQ(type_of(q5, "blk.1.attn_q.weight"), TensorType::q5_1);
  EXPECT_EQ(type_of(q5, "blk.1.ffn_down.weight"), TensorType::q5_K);
}

// The 2- and 3-bit file types, per tensor, on 32 layers with n_gqa = 2 (llama-quant.cpp):
// attn_v, ffn_down and attn_output get more bits, the other matrices the base type.
struct LowBitRow {
  FileType file;
  TensorType base, attn_v_0_1, attn_v_rest, ffn_down_0_1, ffn_down_rest, attn_output;
};

TEST(FileTypes, TwoAndThreeBitTypesGiveEachTensorLlamaCppsType) {
  const auto q2 = TensorType::q2_K, q3 = TensorType::q3_K, q4 = TensorType::q4_K,
             q5 = TensorType::q5_K;
  const LowBitRow rows[] = {
      // Q2_K: attn_v Q3_K below n_gqa 4; ffn_down and attn_output Q3_K.
      {FileType::q2_K, q2, q3, q3, q3, q3, q3},
      {FileType::q3_K_S, q3, q3, q3, q3, q3, q3},
      // Q3_K_M: attn_v Q5_K for the first two (i_attention_wv < 2), ffn_down Q5_K below
      // n_layer / 16 = 2, attn_output Q4_K.
      {FileType::q3_K_M, q3, q5, q4, q5, q4, q4},
      {FileType::q3_K_L, q3, q5, q5, q5, q5, q5},
  };
  for (const LowBitRow& r : rows) {
    SCOPED_TRACE(model::to_string(r.file));
    const auto tensors = model::model_tensors(layers(32), r.file);
    EXPECT_EQ(type_of(tensors, "token_embd.weight"), r.base);
    EXPECT_EQ(type_of(tensors, "output.weight"), TensorType::q6_K);
    EXPECT_EQ(type_of(tensors, "output_norm.weight"), TensorType::f32);
    for (uint32_t l : {0u, 1u, 2u, 17u, 31u}) {
      const std::string p = "blk." + std::to_string(l) + ".";
      EXPECT_EQ(type_of(tensors, p + "attn_v.weight"), l < 2 ? r.attn_v_0_1 : r.attn_v_rest) << l;
      EXPECT_EQ(type_of(tensors, p + "ffn_down.weight"), l < 2 ? r.ffn_down_0_1 : r.ffn_down_rest)
          << l;
      EXPECT_EQ(type_of(tensors, p + "attn_output.weight"), r.attn_output) << l;
      for (const char* plain : {"attn_q", "attn_k", "ffn_gate", "ffn_up"}) {
        EXPECT_EQ(type_of(tensors, p + plain + ".weight"), r.base) << p << plain;
      }
      EXPECT_EQ(type_of(tensors, p + "attn_norm.weight"), TensorType::f32);
    }
  }
  // Q3_K_M on 8 layers: n_layer / 16 = 0, so every ffn_down is Q4_K.
  EXPECT_EQ(type_of(model::model_tensors(layers(8), FileType::q3_K_M), "blk.0.ffn_down.weight"),
            q4);
}

// Q2_K's attn_v is Q4_K where 4 or more query heads share a KV head (n_gqa() >= 4).
TEST(FileTypes, Q2KAttnVFollowsTheQueryGroupSize) {
  auto s = layers(2);
  EXPECT_EQ(type_of(model::model_tensors(s, FileType::q2_K), "blk.0.attn_v.weight"),
            TensorType::q3_K);  // 4 heads / 2
  s.n_head = 8;
  EXPECT_EQ(type_of(model::model_tensors(s, FileType::q2_K), "blk.1.attn_v.weight"),
            TensorType::q4_K);  // 8 / 2
  s.n_head_kv = 1;
  EXPECT_EQ(type_of(model::model_tensors(s, FileType::q2_K), "blk.1.attn_v.weight"),
            TensorType::q4_K);  // 8 / 1
}

// Rows of 896 cannot hold 256-element super-blocks: q2_K and q3_K fall back to q4_0.
TEST(FileTypes, LowBitRowsOf896FallBackToQ4_0) {
  auto s = model::parse_dims(
               "n_embd=896,n_layer=8,n_head=14,n_head_kv=2,n_ff=4864,n_vocab=400,context=64")
               .value();
  const auto q3 = model::model_tensors(s, FileType::q3_K_M);
  EXPECT_EQ(type_of(q3, "blk.1.attn_q.weight"), TensorType::q4_0);
  EXPECT_EQ(type_of(q3, "blk.0.attn_v.weight"), TensorType::q5_1);    // q5_K, then its fallback
  EXPECT_EQ(type_of(q3, "blk.0.ffn_down.weight"), TensorType::q4_K);  // rows of 4864 = 19 * 256
  const auto q2 = model::model_tensors(s, FileType::q2_K);
  EXPECT_EQ(type_of(q2, "token_embd.weight"), TensorType::q4_0);
  EXPECT_EQ(type_of(q2, "blk.3.attn_v.weight"), TensorType::q5_0);  // n_gqa 7: q4_K, then q5_0
}

// Mixture-of-experts rules (n_expert on the place): with exactly 8 experts attn_k and attn_v are
// Q8_0 in every quantized file type, attn_output Q5_K in the file types llama.cpp lists; the
// router (ffn_gate_inp) is never quantized; ffn_down_exps / _shexp take ffn_down's rules.
TEST(FileTypes, EightExpertRules) {
  auto place = [](const std::string& name, uint32_t layer, uint32_t n_expert) {
    model::TensorPlace t;
    t.name = name;
    t.n_cols = 256;
    t.n_dims = name.find("_exps") != std::string::npos ? 3 : 2;
    t.layer = layer;
    t.n_layer = 32;
    t.n_gqa = 4;
    t.n_expert = n_expert;
    return t;
  };
  auto type = [&](FileType f, const std::string& name, uint32_t n_expert, uint32_t layer = 5) {
    return model::tensor_type_for(
        f, place("blk." + std::to_string(layer) + "." + name, layer, n_expert));
  };
  const auto q4 = TensorType::q4_K, q5 = TensorType::q5_K, q6 = TensorType::q6_K,
             q8 = TensorType::q8_0;
  EXPECT_EQ(type(FileType::q4_K_M, "attn_k.weight", 8), q8);
  EXPECT_EQ(type(FileType::q4_K_M, "attn_v.weight", 8), q8);
  EXPECT_EQ(type(FileType::q4_K_M, "attn_v.weight", 8, 0), q8);  // not q6_K
  EXPECT_EQ(type(FileType::q4_K_M, "attn_output.weight", 8), q5);
  EXPECT_EQ(type(FileType::q4_K_M, "attn_q.weight", 8), q4);
  EXPECT_EQ(type(FileType::q4_K_M, "ffn_gate_exps.weight", 8), q4);
  EXPECT_EQ(type(FileType::q4_K_M, "ffn_down_exps.weight", 8, 0), q6);  // use_more_bits(0, 32)
  EXPECT_EQ(type(FileType::q4_K_M, "ffn_down_shexp.weight", 8, 0), q6);
  EXPECT_EQ(type(FileType::q4_K_M, "ffn_down_exps.weight", 8, 4), q4);
  EXPECT_EQ(type(FileType::q4_K_M, "ffn_gate_inp.weight", 8), TensorType::f32);
  EXPECT_EQ(type(FileType::q8_0, "ffn_gate_inp.weight", 8), TensorType::f32);
  EXPECT_EQ(type(FileType::q2_K, "attn_v.weight", 8), q8);
  EXPECT_EQ(type(FileType::q2_K, "attn_output.weight", 8), q5);
  EXPECT_EQ(type(FileType::q3_K_S, "attn_output.weight", 8), q5);
  EXPECT_EQ(type(FileType::q3_K_L, "attn_output.weight", 8), TensorType::q3_K);  // not listed
  EXPECT_EQ(type(FileType::q2_K, "ffn_down_exps.weight", 8), TensorType::q3_K);
  EXPECT_EQ(type(FileType::q5_K_M, "attn_output.weight", 8), q5);  // its base: not bumped
  EXPECT_EQ(type(FileType::q6_K, "attn_output.weight", 8), q6);
  EXPECT_EQ(type(FileType::q6_K, "attn_k.weight", 8), q8);
  EXPECT_EQ(type(FileType::q4_0, "attn_v.weight", 8), q8);
  EXPECT_EQ(type(FileType::f16, "attn_v.weight", 8), TensorType::f16);  // not quantized
  // Other expert counts keep the dense rules.
  EXPECT_EQ(type(FileType::q4_K_M, "attn_k.weight", 4), q4);
  EXPECT_EQ(type(FileType::q4_K_M, "attn_output.weight", 16), q4);
  EXPECT_EQ(type(FileType::q2_K, "attn_output.weight", 4), TensorType::q3_K);
  EXPECT_EQ(type(FileType::q2_K, "attn_v.weight", 4), q4);  // n_gqa 4
}

TEST(FileTypes, OutputAndTiedEmbeddingRules) {
  auto s = layers(4);
  // Every quantized file type but Q8_0 writes the output in q6_K; unquantized ones keep theirs.
  EXPECT_EQ(type_of(model::model_tensors(s, FileType::q4_0), "output.weight"), TensorType::q6_K);
  EXPECT_EQ(type_of(model::model_tensors(s, FileType::q5_1), "output.weight"), TensorType::q6_K);
  EXPECT_EQ(type_of(model::model_tensors(s, FileType::q8_0), "output.weight"), TensorType::q8_0);
  EXPECT_EQ(type_of(model::model_tensors(s, FileType::f16), "output.weight"), TensorType::f16);
  EXPECT_EQ(type_of(model::model_tensors(s, FileType::q4_0), "blk.0.attn_v.weight"),
            TensorType::q4_0);
  // Tied: token_embd is the output matrix and gets the output's type.
  s.tied_output = true;
  EXPECT_EQ(type_of(model::model_tensors(s, FileType::q4_K_M), "token_embd.weight"),
            TensorType::q6_K);
}

TEST(FileTypes, NamesIdsAndParsing) {
  EXPECT_EQ(model::parse_file_type("q4_k_m"), FileType::q4_K_M);
  EXPECT_EQ(model::parse_file_type("Q8_0"), FileType::q8_0);
  EXPECT_EQ(model::parse_file_type("q3_k_m"), FileType::q3_K_M);
  EXPECT_EQ(model::parse_file_type("Q2_K"), FileType::q2_K);
  EXPECT_FALSE(model::parse_file_type("Q2_K_S").has_value());  // not a file type gauntlet makes
  EXPECT_EQ(static_cast<uint32_t>(FileType::q2_K), 10u);       // LLAMA_FTYPE_MOSTLY_Q2_K
  EXPECT_EQ(static_cast<uint32_t>(FileType::q3_K_S), 11u);     // LLAMA_FTYPE_MOSTLY_Q3_K_S
  EXPECT_EQ(static_cast<uint32_t>(FileType::q3_K_L), 13u);     // LLAMA_FTYPE_MOSTLY_Q3_K_L
  EXPECT_STREQ(model::to_string(FileType::q3_K_M), "Q3_K_M");
  EXPECT_EQ(model::file_type_from_id(12), FileType::q3_K_M);
  EXPECT_EQ(model::base_type(FileType::q3_K_L), TensorType::q3_K);
  EXPECT_EQ(model::file_type_for(TensorType::q3_K), FileType::q3_K_M);
  EXPECT_EQ(model::file_type_for(TensorType::q2_K), FileType::q2_K);
  EXPECT_EQ(static_cast<uint32_t>(FileType::q4_K_M), 15u);  // LLAMA_FTYPE_MOSTLY_Q4_K_M
  EXPECT_EQ(static_cast<uint32_t>(FileType::bf16), 32u);    // LLAMA_FTYPE_MOSTLY_BF16
  EXPECT_STREQ(model::to_string(FileType::q5_K_M), "Q5_K_M");
  EXPECT_EQ(model::file_type_from_id(18), FileType::q6_K);
}

TEST(FileTypes, WrittenFilesCarryTheFileTypeAndATokenizerLlamaCppLoads) {
  const auto bytes = test::synthetic_bytes(layers(2), FileType::q4_K_M);
  auto info = model::parse_gguf(bytes).value();
  EXPECT_EQ(info.get_uint("general.file_type"), 15u);
  EXPECT_EQ(info.get_uint("general.quantization_version"), 2u);
  EXPECT_EQ(info.get_string("tokenizer.ggml.model"), "llama");
  EXPECT_EQ(info.get_uint("tokenizer.ggml.bos_token_id"), 1u);
  EXPECT_EQ(info.get_uint("tokenizer.ggml.eos_token_id"), 2u);
  const auto* tokens = info.meta("tokenizer.ggml.tokens");
  ASSERT_NE(tokens, nullptr);
  EXPECT_EQ(tokens->array_count, 300u);  // one per vocabulary entry
  EXPECT_EQ(tokens->array[0].s, "<unk>");
  EXPECT_EQ(tokens->array[3 + 0x0A].s, "<0x0A>");  // the newline byte the SPM loader looks up
  const auto* types = info.meta("tokenizer.ggml.token_type");
  ASSERT_NE(types, nullptr);
  EXPECT_EQ(types->array_type, model::MetaType::i32);
  EXPECT_EQ(types->array[3 + 0x0A].i, 6);  // LLAMA_TOKEN_TYPE_BYTE
  const auto* scores = info.meta("tokenizer.ggml.scores");
  ASSERT_NE(scores, nullptr);
  EXPECT_EQ(scores->array_type, model::MetaType::f32);
  EXPECT_EQ(scores->array_count, 300u);
}

}  // namespace
}  // namespace gauntlet::engine
