// llama.cpp's i-quant file types (IQ1_S ... IQ3_M): each tensor's type by llama-quant.cpp's
// llama_tensor_get_type_impl, with and without an importance matrix, on a llama of n_gqa 4 and a
// qwen3moe of 8 experts; the counters (i_ffn_down) where a layer has two ffn_down; the fallback
// of rows that are not whole 256-element blocks; tensor_requires_imatrix.
#include <gtest/gtest.h>

#include <map>

#include "engine/model/file_type.h"
#include "engine/model/shape.h"
#include "test_models.h"

namespace gauntlet::engine {
namespace {

using model::FileType;
using model::TensorType;
using test::type_of;

constexpr auto q2 = TensorType::q2_K, q3 = TensorType::q3_K, q4 = TensorType::q4_K,
               q5 = TensorType::q5_K, q6 = TensorType::q6_K, q8 = TensorType::q8_0,
               i1s = TensorType::iq1_s, i1m = TensorType::iq1_m, i2xxs = TensorType::iq2_xxs,
               i2xs = TensorType::iq2_xs, i2s = TensorType::iq2_s, i3xxs = TensorType::iq3_xxs,
               i3s = TensorType::iq3_s;

// 8 layers: the first eighth is layer 0; use_more_bits(l, 8) holds for 0, 3, 6, 7.
const char* kLlama = "n_embd=256,n_layer=8,n_head=8,n_head_kv=2,n_ff=512,n_vocab=512,context=64";
const char* kQwen3Moe =
    "arch=qwen3moe,n_embd=256,n_layer=8,n_head=8,n_head_kv=4,head_dim=32,n_ff=512,n_expert=8,"
    "n_expert_used=2,n_ff_exp=256,n_vocab=512,context=64";

// A tensor's type per layer group: layer 0, layers 1..6, layer 7 (the middle of IQ3_XS's
// ffn_gate / ffn_up rule is [n/8, 7n/8) = [1, 7)).
struct Row {
  const char* tensor;
  TensorType first, middle, last;
};

void expect_rows(const std::vector<model::TensorDesc>& t, const std::vector<Row>& rows) {
  for (const auto& r : rows) {
    EXPECT_EQ(type_of(t, std::string("blk.0.") + r.tensor), r.first) << r.tensor << " layer 0";
    for (uint32_t l = 1; l < 7; ++l) {
      EXPECT_EQ(type_of(t, "blk." + std::to_string(l) + "." + r.tensor), r.middle)
          << r.tensor << " layer " << l;
    }
    EXPECT_EQ(type_of(t, std::string("blk.7.") + r.tensor), r.last) << r.tensor << " layer 7";
  }
}

struct LlamaCase {
  FileType file;
  bool imatrix;
  TensorType token_embd, output;
  std::vector<Row> rows;
};

TEST(IqFileTypes, LlamaOfNGqa4GivesEachTensorLlamaCppsType) {
  const auto shape = test::shape_of(kLlama);
  // The 1- and 2-bit mixes (one branch: attn_v q4_K for n_gqa >= 4, the first eighth of ffn_down
  // q2_K or, in IQ2_S/IQ2_M, iq3_s; attn_output iq2_xxs in IQ1_*, iq3_s in IQ2_S/IQ2_M); the
  // imatrix changes none of them.
  auto low = [](FileType f, TensorType base, TensorType down0, TensorType out, TensorType embd,
                bool imatrix) {
    return LlamaCase{f,
                     imatrix,
                     embd,
                     q5,
                     {{"attn_q.weight", base, base, base},
                      {"attn_k.weight", base, base, base},
                      {"attn_v.weight", q4, q4, q4},
                      {"attn_output.weight", out, out, out},
                      {"ffn_gate.weight", base, base, base},
                      {"ffn_up.weight", base, base, base},
                      {"ffn_down.weight", down0, base, base}}};
  };
  std::vector<LlamaCase> cases;
  for (bool im : {false, true}) {
    cases.push_back(low(FileType::iq2_xxs, i2xxs, q2, i2xxs, q2, im));
    cases.push_back(low(FileType::iq2_xs, i2xs, q2, i2xs, q2, im));
    cases.push_back(low(FileType::iq2_s, i2xs, i3s, i3s, i3s, im));
    cases.push_back(low(FileType::iq2_m, i2s, i3s, i3s, i3s, im));
    cases.push_back(low(FileType::iq1_s, i1s, q2, i2xxs, q2, im));
    cases.push_back(low(FileType::iq1_m, i1m, q2, i2xxs, q2, im));
  }
  // IQ3_XXS: attn_q/attn_k iq2_s, attn_output iq3_s, attn_v q4_K (n_gqa >= 4); ffn_down q4_K in
  // the first eighth and q3_K after without an imatrix, iq3_xxs with one.
  for (bool im : {false, true}) {
    cases.push_back({FileType::iq3_xxs,
                     im,
                     i3s,
                     q5,
                     {{"attn_q.weight", i2s, i2s, i2s},
                      {"attn_k.weight", i2s, i2s, i2s},
                      {"attn_v.weight", q4, q4, q4},
                      {"attn_output.weight", i3s, i3s, i3s},
                      {"ffn_gate.weight", i3xxs, i3xxs, i3xxs},
                      {"ffn_up.weight", i3xxs, i3xxs, i3xxs},
                      {"ffn_down.weight", im ? i3xxs : q4, im ? i3xxs : q3, im ? i3xxs : q3}}});
    // IQ3_XS: attn_q/attn_k iq3_xxs, ffn_gate/ffn_up iq3_xxs in layers [n/8, 7n/8).
    cases.push_back({FileType::iq3_xs,
                     im,
                     i3s,
                     q6,
                     {{"attn_q.weight", i3xxs, i3xxs, i3xxs},
                      {"attn_k.weight", i3xxs, i3xxs, i3xxs},
                      {"attn_v.weight", q4, q4, q4},
                      {"attn_output.weight", i3s, i3s, i3s},
                      {"ffn_gate.weight", i3s, i3xxs, i3s},
                      {"ffn_up.weight", i3s, i3xxs, i3s},
                      {"ffn_down.weight", i3s, i3s, i3s}}});
    cases.push_back({FileType::iq3_s,
                     im,
                     i3s,
                     q6,
                     {{"attn_q.weight", i3s, i3s, i3s},
                      {"attn_k.weight", i3s, i3s, i3s},
                      {"attn_v.weight", q4, q4, q4},
                      {"attn_output.weight", i3s, i3s, i3s},
                      {"ffn_gate.weight", i3s, i3s, i3s},
                      {"ffn_up.weight", i3s, i3s, i3s},
                      {"ffn_down.weight", i3s, i3s, i3s}}});
    // IQ3_M: attn_v and attn_output q4_K, ffn_down q4_K in the first eighth.
    cases.push_back({FileType::iq3_m,
                     im,
                     i3s,
                     q6,
                     {{"attn_q.weight", i3s, i3s, i3s},
                      {"attn_k.weight", i3s, i3s, i3s},
                      {"attn_v.weight", q4, q4, q4},
                      {"attn_output.weight", q4, q4, q4},
                      {"ffn_gate.weight", i3s, i3s, i3s},
                      {"ffn_up.weight", i3s, i3s, i3s},
                      {"ffn_down.weight", q4, i3s, i3s}}});
  }
  for (const auto& c : cases) {
    SCOPED_TRACE(std::string(model::to_string(c.file)) + (c.imatrix ? " with" : " without") +
                 " imatrix");
    const auto t = model::model_tensors(shape, c.file, {}, c.imatrix);
    EXPECT_EQ(type_of(t, "token_embd.weight"), c.token_embd);
    EXPECT_EQ(type_of(t, "output.weight"), c.output);
    EXPECT_EQ(type_of(t, "output_norm.weight"), TensorType::f32);
    EXPECT_EQ(type_of(t, "blk.3.attn_norm.weight"), TensorType::f32);
    expect_rows(t, c.rows);
  }
}

TEST(IqFileTypes, Qwen3MoeOf8ExpertsGivesEachTensorLlamaCppsType) {
  const auto shape = test::shape_of(kQwen3Moe);
  const std::vector<Row> common{
      {"ffn_gate_inp.weight", TensorType::f32, TensorType::f32, TensorType::f32},
      {"attn_q_norm.weight", TensorType::f32, TensorType::f32, TensorType::f32}};
  auto check = [&](FileType f, bool im, TensorType embd, TensorType out, std::vector<Row> rows) {
    SCOPED_TRACE(std::string(model::to_string(f)) + (im ? " with" : " without") + " imatrix");
    const auto t = model::model_tensors(shape, f, {}, im);
    EXPECT_EQ(type_of(t, "token_embd.weight"), embd);
    EXPECT_EQ(type_of(t, "output.weight"), out);
    expect_rows(t, rows);
    expect_rows(t, common);
  };
  for (bool im : {false, true}) {
    // The 1- and 2-bit branch: attn_v q4_K (n_expert >= 4), attn_k q4_K and attn_output q5_K
    // (n_expert == 8), the first eighth of ffn_down_exps (counted, not by name) q2_K / iq3_s.
    check(FileType::iq2_xxs, im, q2, q5,
          {{"attn_q.weight", i2xxs, i2xxs, i2xxs},
           {"attn_k.weight", q4, q4, q4},
           {"attn_v.weight", q4, q4, q4},
           {"attn_output.weight", q5, q5, q5},
           {"ffn_gate_exps.weight", i2xxs, i2xxs, i2xxs},
           {"ffn_up_exps.weight", i2xxs, i2xxs, i2xxs},
           {"ffn_down_exps.weight", q2, i2xxs, i2xxs}});
    check(FileType::iq2_m, im, i3s, q5,
          {{"attn_q.weight", i2s, i2s, i2s},
           {"attn_k.weight", q4, q4, q4},
           {"attn_v.weight", q4, q4, q4},
           {"attn_output.weight", q5, q5, q5},
           {"ffn_down_exps.weight", i3s, i2s, i2s}});
    check(FileType::iq1_m, im, q2, q5,
          {{"attn_output.weight", q5, q5, q5}, {"ffn_down_exps.weight", q2, i1m, i1m}});
    // IQ3_XXS: attn_v and attn_k q8_0 (8 experts, after n_gqa 2's iq3_s / iq3_xxs), attn_q
    // iq2_s, attn_output q5_K; ffn_down_exps by the layer in its name.
    check(FileType::iq3_xxs, im, i3s, q5,
          {{"attn_q.weight", i2s, i2s, i2s},
           {"attn_k.weight", q8, q8, q8},
           {"attn_v.weight", q8, q8, q8},
           {"attn_output.weight", q5, q5, q5},
           {"ffn_gate_exps.weight", i3xxs, i3xxs, i3xxs},
           {"ffn_up_exps.weight", i3xxs, i3xxs, i3xxs},
           {"ffn_down_exps.weight", im ? i3xxs : q4, im ? i3xxs : q3, im ? i3xxs : q3}});
    check(FileType::iq3_xs, im, i3s, q6,
          {{"attn_q.weight", i3xxs, i3xxs, i3xxs},
           {"attn_k.weight", q8, q8, q8},
           {"attn_v.weight", q8, q8, q8},
           {"attn_output.weight", q5, q5, q5},
           {"ffn_gate_exps.weight", i3s, i3xxs, i3s},
           {"ffn_up_exps.weight", i3s, i3xxs, i3s},
           {"ffn_down_exps.weight", i3s, i3s, i3s}});
    check(FileType::iq3_s, im, i3s, q6,
          {{"attn_q.weight", i3s, i3s, i3s},
           {"attn_v.weight", q8, q8, q8},
           {"attn_output.weight", q5, q5, q5},
           {"ffn_down_exps.weight", i3s, i3s, i3s}});
  }
  // IQ3_M with 8 experts: ffn_down_exps q4_K in the first eighth and where use_more_bits holds.
  const auto t = model::model_tensors(shape, FileType::iq3_m);
  const std::map<uint32_t, TensorType> down{{0, q4},  {1, i3s}, {2, i3s}, {3, q4},
                                            {4, i3s}, {5, i3s}, {6, q4},  {7, q4}};
  for (const auto& [l, want] : down) {
    EXPECT_EQ(type_of(t, "blk." + std::to_string(l) + ".ffn_down_exps.weight"), want) << l;
  }
  EXPECT_EQ(type_of(t, "blk.2.attn_v.weight"), q8);
  EXPECT_EQ(type_of(t, "blk.2.attn_output.weight"), q5);
}

// llama.cpp counts ffn_down tensors (i_ffn_down) in its loader's order, by layer and then name:
// with a shared expert each layer has two (ffn_down_exps, ffn_down_shexp), so the 1- and 2-bit
// mixes' "first eighth" (i_ffn_down < n_layer / 8 = 2) is layer 0's two tensors only.
TEST(IqFileTypes, FfnDownIsCountedInTheLoadersOrder) {
  const auto shape = test::shape_of(
      "arch=qwen2moe,n_embd=256,n_layer=16,n_head=8,n_head_kv=2,n_ff=512,n_expert=4,"
      "n_expert_used=2,n_ff_exp=256,n_ff_shexp=512,n_vocab=512,context=64");
  const auto t = model::model_tensors(shape, FileType::iq2_xxs, {}, true);
  EXPECT_EQ(type_of(t, "blk.0.ffn_down_exps.weight"), q2);
  EXPECT_EQ(type_of(t, "blk.0.ffn_down_shexp.weight"), q2);
  EXPECT_EQ(type_of(t, "blk.1.ffn_down_exps.weight"), i2xxs);
  EXPECT_EQ(type_of(t, "blk.1.ffn_down_shexp.weight"), i2xxs);
  // Other file types read the layer from the name when the model has experts (layer_info).
  const auto q4km = model::model_tensors(shape, FileType::q4_K_M);
  EXPECT_EQ(type_of(q4km, "blk.1.ffn_down_exps.weight"), q6);  // use_more_bits(1, 16)
  EXPECT_EQ(type_of(q4km, "blk.1.ffn_down_shexp.weight"), q6);
  EXPECT_EQ(type_of(q4km, "blk.3.ffn_down_shexp.weight"), q4);  // (3 - 2) % 3 == 1
}

// Without experts, layer_info is the counter: a hybrid whose recurrent layers have no attention
// counts its attn_v tensors (i_attention_wv of n_attention_wv) apart from the layers.
TEST(IqFileTypes, CountersOfPlaces) {
  std::vector<model::TensorPlace> places;
  for (uint32_t l = 0; l < 8; ++l) {
    model::TensorPlace p;
    p.n_cols = 256;
    p.layer = l;
    p.n_layer = 8;
    p.name = "blk." + std::to_string(l) + ".ffn_down.weight";
    places.push_back(p);
    if (l % 2 == 1) {
      p.name = "blk." + std::to_string(l) + ".attn_v.weight";
      places.push_back(p);
    }
  }
  model::count_places(places, FileType::q4_K_M);
  EXPECT_EQ(places[0].counter, 0u);  // blk.0.ffn_down
  EXPECT_EQ(places[2].name, "blk.1.attn_v.weight");
  EXPECT_EQ(places[2].counter, 0u);
  EXPECT_EQ(places[2].n_attention_wv, 4u);
  EXPECT_EQ(places.back().counter, 3u);  // blk.7.attn_v, the fourth
  // attn_v 0 and 3 of 4 get more bits in Q4_K_M (use_more_bits(i, 4): i < 0 is none, i >= 3,
  // (i - 0) % 3 == 2).
  EXPECT_EQ(model::tensor_type_for(FileType::q4_K_M, places[2]), q4);
  EXPECT_EQ(model::tensor_type_for(FileType::q4_K_M, places.back()), q6);
  // Not counted in an unquantized file type.
  std::vector<model::TensorPlace> f16 = places;
  for (auto& p : f16) p.counter.reset();
  model::count_places(f16, FileType::f16);
  EXPECT_FALSE(f16[0].counter.has_value());
}

// The imatrix's other rules: IQ4_NL/IQ4_XS give the first eighth of ffn_down q5_K only without
// one; Q4_0/Q5_0 give it q4_1/q5_1 only with one; IQ3_XXS's attn_v for n_gqa < 4 is iq3_s
// without one and iq3_xxs with one.
TEST(IqFileTypes, RulesThatDependOnTheImatrix) {
  const auto shape = test::shape_of(kLlama);
  auto down0 = [&](FileType f, bool im) {
    return type_of(model::model_tensors(shape, f, {}, im), "blk.0.ffn_down.weight");
  };
  EXPECT_EQ(down0(FileType::iq4_xs, false), q5);
  EXPECT_EQ(down0(FileType::iq4_xs, true), TensorType::iq4_xs);
  EXPECT_EQ(down0(FileType::iq4_nl, true), TensorType::iq4_nl);
  EXPECT_EQ(down0(FileType::q4_0, false), TensorType::q4_0);
  EXPECT_EQ(down0(FileType::q4_0, true), TensorType::q4_1);
  EXPECT_EQ(down0(FileType::q5_0, true), TensorType::q5_1);
  EXPECT_EQ(type_of(model::model_tensors(shape, FileType::q4_0, {}, true), "blk.1.ffn_down.weight"),
            TensorType::q4_0);
  model::TensorPlace v;
  v.name = "blk.2.attn_v.weight";
  v.n_cols = 256;
  v.layer = 2;
  v.n_layer = 8;
  v.n_gqa = 2;
  EXPECT_EQ(model::tensor_type_for(FileType::iq3_xxs, v), i3s);
  v.has_imatrix = true;
  EXPECT_EQ(model::tensor_type_for(FileType::iq3_xxs, v), i3xxs);
  // n_gqa 1 in the 1- and 2-bit mixes: q2_K, or iq3_s in IQ2_S / IQ2_M.
  v.n_gqa = 1;
  EXPECT_EQ(model::tensor_type_for(FileType::iq2_xs, v), q2);
  EXPECT_EQ(model::tensor_type_for(FileType::iq2_m, v), i3s);
}

// tensor_type_fallback: every 256-block i-quant falls back to iq4_nl, and to f16 where a row is
// not whole blocks of 32 either; the output gets q8_0 where the base type's blocks do not fit.
TEST(IqFileTypes, RowsThatAreNotWholeBlocksFallBack) {
  for (FileType f : model::iq_file_types()) {
    SCOPED_TRACE(model::to_string(f));
    model::TensorPlace p;
    p.name = "blk.3.ffn_up.weight";
    p.layer = 3;
    p.n_layer = 8;
    p.n_cols = 96;
    EXPECT_EQ(model::tensor_type_for(f, p), TensorType::iq4_nl);
    p.n_cols = 48;
    EXPECT_EQ(model::tensor_type_for(f, p), TensorType::f16);
    p.name = "output.weight";
    p.n_cols = 96;
    EXPECT_EQ(model::tensor_type_for(f, p), q8);
  }
  // A model of width 64 (test-tiny): iq4_nl everywhere the iq types were, no imatrix needed.
  const auto t = model::model_tensors(model::preset_shape("test-tiny").value(), FileType::iq2_xxs);
  EXPECT_EQ(type_of(t, "blk.0.attn_q.weight"), TensorType::iq4_nl);
  for (const auto& d : t) EXPECT_FALSE(model::tensor_requires_imatrix(d.name, d.type)) << d.name;
}

TEST(IqFileTypes, TensorsThatRequireAnImatrix) {
  for (TensorType t : {i1s, i1m, i2xxs, i2xs, i2s, i3xxs}) {
    EXPECT_TRUE(model::tensor_requires_imatrix("blk.0.attn_q.weight", t)) << to_string(t);
    EXPECT_FALSE(model::tensor_requires_imatrix("token_embd.weight", t));
    EXPECT_FALSE(model::tensor_requires_imatrix("per_layer_token_embd.weight", t));
    EXPECT_FALSE(model::tensor_requires_imatrix("output.weight", t));
  }
  for (TensorType t : {i3s, q2, q3, TensorType::iq4_nl, TensorType::iq4_xs, TensorType::q8_0}) {
    EXPECT_FALSE(model::tensor_requires_imatrix("blk.0.attn_q.weight", t)) << to_string(t);
  }
}

TEST(IqFileTypes, NamesIdsAndBaseTypes) {
  const std::map<FileType, std::pair<uint32_t, TensorType>> want{
      {FileType::iq2_xxs, {19, i2xxs}}, {FileType::iq2_xs, {20, i2xs}},
      {FileType::iq3_xs, {22, i3s}},    {FileType::iq3_xxs, {23, i3xxs}},
      {FileType::iq1_s, {24, i1s}},     {FileType::iq3_s, {26, i3s}},
      {FileType::iq3_m, {27, i3s}},     {FileType::iq2_s, {28, i2xs}},
      {FileType::iq2_m, {29, i2s}},     {FileType::iq1_m, {31, i1m}}};
  EXPECT_EQ(model::iq_file_types().size(), want.size());
  for (const auto& [f, id_base] : want) {
    SCOPED_TRACE(model::to_string(f));
    EXPECT_EQ(static_cast<uint32_t>(f), id_base.first);
    EXPECT_EQ(model::file_type_from_id(id_base.first), f);
    EXPECT_EQ(model::base_type(f), id_base.second);
    EXPECT_EQ(model::parse_file_type(model::to_string(f)), f);
    EXPECT_NE(model::known_file_types().find(model::to_string(f)), std::string::npos);
  }
  EXPECT_EQ(model::parse_file_type("iq2_xxs"), FileType::iq2_xxs);
  EXPECT_STREQ(model::to_string(FileType::iq3_m), "IQ3_M");
  EXPECT_EQ(model::file_type_for(i3s), FileType::iq3_s);
  EXPECT_EQ(model::file_type_for(i2xs), FileType::iq2_xs);
  EXPECT_EQ(model::file_type_for(i2s), FileType::iq2_m);
}

}  // namespace
}  // namespace gauntlet::engine
