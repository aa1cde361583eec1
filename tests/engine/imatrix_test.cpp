// Importance matrices: llama-imatrix's GGUF and legacy .dat files read into the values
// llama-quantize's load_imatrix computes (tools/quantize/quantize.cpp), bad files refused by
// name, the checks of a model against an imatrix (llama-quant.cpp), and the writer quantizing
// each row (each expert's rows) with its entry.
#include "engine/model/imatrix.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "core/tensor_type.h"
#include "engine/model/gguf.h"
#include "engine/model/gguf_writer.h"
#include "test_models.h"

namespace gauntlet::engine {
namespace {

using model::ImatrixEntry;
using model::TensorType;

std::vector<std::byte> gguf_of(const std::vector<ImatrixEntry>& entries) {
  auto b = model::imatrix_gguf_bytes(entries, {"wiki.train.raw"}, 10, 512);
  EXPECT_TRUE(b.is_ok()) << b.error().describe();
  return *b;
}

std::string error_of(const std::vector<std::byte>& bytes) {
  auto m = model::parse_imatrix(bytes);
  EXPECT_FALSE(m.is_ok());
  return m.is_ok() ? std::string() : m.error().message;
}

// The legacy layout: i32 n_entries; per entry i32 length, name, i32 ncall, i32 nval, values.
struct Legacy {
  std::vector<std::byte> b;
  template <typename T>
  Legacy& put(T v) {
    const auto* p = reinterpret_cast<const std::byte*>(&v);
    b.insert(b.end(), p, p + sizeof v);
    return *this;
  }
  Legacy& entry(const std::string& name, int32_t ncall, const std::vector<float>& values) {
    put<int32_t>(static_cast<int32_t>(name.size()));
    for (char c : name) put(c);
    put(ncall).put<int32_t>(static_cast<int32_t>(values.size()));
    for (float v : values) put(v);
    return *this;
  }
};

TEST(Imatrix, GgufValuesAreSumsOverCountsPerExpert) {
  // A matrix of rows of 4 and an expert stack of 3 experts whose second saw no activations.
  const auto bytes =
      gguf_of({{"blk.0.attn_q.weight", {2, 4, 6, 8}, {4}},
               {"blk.0.ffn_down_exps.weight", {3, 6, 9, 12, 5, 5, 5, 5, 1, 2, 3, 4}, {3, 0, 2}}});
  auto m = model::parse_imatrix(bytes);
  ASSERT_TRUE(m.is_ok()) << m.error().describe();
  EXPECT_FALSE(m->legacy);
  EXPECT_EQ(m->datasets, std::vector<std::string>{"wiki.train.raw"});
  EXPECT_EQ(m->chunk_count, 10u);
  EXPECT_EQ(m->chunk_size, 512u);
  ASSERT_NE(m->find("blk.0.attn_q.weight"), nullptr);
  EXPECT_EQ(*m->find("blk.0.attn_q.weight"), (std::vector<float>{0.5f, 1, 1.5f, 2}));
  // Expert 1's count is 0: all 1, as load_imatrix sets them.
  EXPECT_EQ(*m->find("blk.0.ffn_down_exps.weight"),
            (std::vector<float>{1, 2, 3, 4, 1, 1, 1, 1, 0.5f, 1, 1.5f, 2}));
  EXPECT_EQ(m->find("blk.1.attn_q.weight"), nullptr);
  // The division is float by the count (rounded to an integer by the loader).
  const auto odd = gguf_of({{"w", {1.0f, 10.0f}, {3.4f}}});
  EXPECT_EQ(*model::parse_imatrix(odd)->find("w"), (std::vector<float>{1.0f / 3, 10.0f / 3}));
}

TEST(Imatrix, LegacyValuesAreDividedByTheCallCount) {
  Legacy l;
  l.put<int32_t>(2)
      .entry("blk.0.attn_q.weight", 4, {2, 4, 6, 8})
      .entry("blk.0.ffn_up.weight", 0, {3, 5});
  l.put<int32_t>(7).put<int32_t>(4);  // chunk count, dataset name
  for (char c : std::string("wiki")) l.put(c);
  auto m = model::parse_imatrix(l.b);
  ASSERT_TRUE(m.is_ok()) << m.error().describe();
  EXPECT_TRUE(m->legacy);
  EXPECT_EQ(*m->find("blk.0.attn_q.weight"), (std::vector<float>{0.5f, 1, 1.5f, 2}));
  EXPECT_EQ(*m->find("blk.0.ffn_up.weight"), (std::vector<float>{3, 5}));  // ncall 0: unchanged
  EXPECT_EQ(m->chunk_count, 7u);
  EXPECT_EQ(m->datasets, std::vector<std::string>{"wiki"});
  // The trailer is optional.
  Legacy bare;
  bare.put<int32_t>(1).entry("w", 2, {4});
  EXPECT_EQ(*model::parse_imatrix(bare.b)->find("w"), std::vector<float>{2});
}

TEST(Imatrix, BadFilesAreRefusedNamingWhatIsWrong) {
  // Truncated: a legacy file cut inside its values, a GGUF cut inside its header.
  Legacy l;
  l.put<int32_t>(1).entry("blk.0.attn_q.weight", 1, {1, 2, 3, 4});
  auto cut = l.b;
  cut.resize(cut.size() - 3);
  EXPECT_NE(error_of(cut).find("truncated"), std::string::npos) << error_of(cut);
  EXPECT_NE(error_of(cut).find("blk.0.attn_q.weight"), std::string::npos);
  auto gguf = gguf_of({{"w", {1, 2}, {1}}});
  auto gguf_cut = gguf;
  gguf_cut.resize(gguf.size() - 2);
  EXPECT_NE(error_of(gguf_cut).find("invalid GGUF file"), std::string::npos) << error_of(gguf_cut);
  EXPECT_NE(error_of(gguf_cut).find("w.counts"), std::string::npos) << error_of(gguf_cut);
  // Wrong magic: read as a legacy file, whose entry count makes no sense.
  auto magic = gguf;
  magic[3] = std::byte{'X'};
  EXPECT_NE(error_of(magic).find("GGUF"), std::string::npos) << error_of(magic);
  EXPECT_NE(error_of({}).find("truncated"), std::string::npos) << error_of({});
  // No entries, no values.
  Legacy none;
  none.put<int32_t>(0);
  EXPECT_NE(error_of(none.b).find("entry count 0"), std::string::npos) << error_of(none.b);
  Legacy empty;
  empty.put<int32_t>(1).entry("w", 1, {});
  EXPECT_NE(error_of(empty.b).find("'w' has 0 values"), std::string::npos) << error_of(empty.b);
  // NaN and infinity, in either format.
  const float nan = std::numeric_limits<float>::quiet_NaN();
  Legacy with_nan;
  with_nan.put<int32_t>(1).entry("blk.2.ffn_up.weight", 1, {1, nan});
  EXPECT_NE(error_of(with_nan.b).find("'blk.2.ffn_up.weight' value 1"), std::string::npos)
      << error_of(with_nan.b);
  EXPECT_NE(error_of(gguf_of({{"w", {1, std::numeric_limits<float>::infinity()}, {1}}}))
                .find("not a finite number"),
            std::string::npos);
  EXPECT_NE(error_of(gguf_of({{"w", {1, 2}, {nan}}})).find("'w' count 0"), std::string::npos);
  EXPECT_NE(error_of(gguf_of({{"w", {1, 2}, {-2}}})).find("negative"), std::string::npos);
  // Sizes that do not divide: 6 sums for 4 counts.
  {
    model::GgufWriter w;
    w.set_string_array("imatrix.datasets", {"d"});
    w.set_u32("imatrix.chunk_count", 1);
    w.set_u32("imatrix.chunk_size", 1);
    std::vector<std::byte> sums(6 * 4), counts(4 * 4);
    w.add_tensor_bytes("w.in_sum2", {6}, TensorType::f32, sums);
    w.add_tensor_bytes("w.counts", {4}, TensorType::f32, counts);
    const auto e = error_of(*w.to_bytes());
    EXPECT_NE(e.find("'w' has 6 sums, which its 4 counts do not divide"), std::string::npos) << e;
  }
  // Sums without counts; a GGUF without the imatrix keys.
  {
    model::GgufWriter w;
    w.set_string_array("imatrix.datasets", {"d"});
    w.set_u32("imatrix.chunk_count", 1);
    w.set_u32("imatrix.chunk_size", 1);
    w.add_tensor_bytes("w.in_sum2", {1}, TensorType::f32, std::vector<std::byte>(4));
    const auto e = error_of(*w.to_bytes());
    EXPECT_NE(e.find("'w' has in_sum2 but no counts"), std::string::npos) << e;
    model::GgufWriter keyless;
    keyless.add_tensor_bytes("w.in_sum2", {1}, TensorType::f32, std::vector<std::byte>(4));
    keyless.add_tensor_bytes("w.counts", {1}, TensorType::f32, std::vector<std::byte>(4));
    EXPECT_NE(error_of(*keyless.to_bytes()).find("no key imatrix.datasets"), std::string::npos);
  }
  // A file that does not exist.
  EXPECT_FALSE(model::read_imatrix(test::temp_path("no-such-imatrix.gguf")).is_ok());
}

// An imatrix with an entry of the right size for every quantized tensor of a model.
model::Imatrix imatrix_for(const std::vector<model::TensorDesc>& tensors) {
  model::Imatrix m;
  for (const auto& t : tensors) {
    if (t.type == TensorType::f32) continue;
    const uint64_t n = t.ne[0] * (t.ne.size() > 2 ? t.ne[2] : 1);
    std::vector<float> v(n);
    for (uint64_t i = 0; i < n; ++i) v[i] = 0.5f + static_cast<float>((i * 7) % 13);
    m.values[t.name] = v;
  }
  return m;
}

TEST(Imatrix, ModelsAreCheckedAgainstTheImatrixAsLlamaCppChecks) {
  const auto shape = test::shape_of(
      "arch=qwen3moe,n_embd=256,n_layer=2,n_head=4,n_head_kv=2,n_ff=512,n_expert=4,"
      "n_expert_used=2,n_ff_exp=256,n_vocab=512,context=64");
  const auto tensors = model::model_tensors(shape, model::FileType::iq2_xxs, {}, true);
  // Without an imatrix: llama.cpp's refusal, naming the first tensor of a type that needs one.
  auto none = model::check_importance(tensors, nullptr);
  ASSERT_FALSE(none.is_ok());
  EXPECT_NE(none.error().message.find("tensor 'blk.0.attn_k.weight' gets type iq2_xxs"),
            std::string::npos)
      << none.error().message;
  EXPECT_NE(none.error().message.find("requires an imatrix"), std::string::npos);
  // Q4_K_M needs none.
  EXPECT_TRUE(model::check_importance(model::model_tensors(shape, model::FileType::q4_K_M), nullptr)
                  .is_ok());

  auto im = imatrix_for(tensors);
  EXPECT_TRUE(model::check_importance(tensors, &im).is_ok());
  // output.weight and the token table may be missing (llama-imatrix leaves them out), and a token
  // table of another size is quantized without (as llama.cpp does).
  im.values.erase("output.weight");
  im.values["token_embd.weight"] = {1, 2, 3};
  EXPECT_TRUE(model::check_importance(tensors, &im).is_ok());
  EXPECT_EQ(model::importance_for(*test::find(tensors, "token_embd.weight"), im), nullptr);
  EXPECT_NE(model::importance_for(*test::find(tensors, "blk.1.ffn_up_exps.weight"), im), nullptr);
  // A missing tensor whose type needs an imatrix: llama.cpp's message.
  auto missing = im;
  missing.values.erase("blk.1.ffn_gate_exps.weight");
  auto e = model::check_importance(tensors, &missing);
  ASSERT_FALSE(e.is_ok());
  EXPECT_NE(e.error().message.find("Missing importance matrix for tensor "
                                   "blk.1.ffn_gate_exps.weight in a very low-bit quantization"),
            std::string::npos)
      << e.error().message;
  // A missing tensor of another type (q4_K): refused by gauntlet, as an imatrix of another model.
  missing = im;
  missing.values.erase("blk.0.attn_v.weight");
  e = model::check_importance(tensors, &missing);
  ASSERT_FALSE(e.is_ok());
  EXPECT_NE(e.error().message.find("no entry for tensor 'blk.0.attn_v.weight'"), std::string::npos)
      << e.error().message;
  // An expert stack whose entry holds one expert's values.
  auto small = im;
  small.values["blk.0.ffn_down_exps.weight"].resize(256);
  e = model::check_importance(tensors, &small);
  ASSERT_FALSE(e.is_ok());
  EXPECT_NE(e.error().message.find("'blk.0.ffn_down_exps.weight' has 256 values, the tensor "
                                   "needs 1024 (a row of 256 times 4 experts)"),
            std::string::npos)
      << e.error().message;
  EXPECT_NE(e.error().message.find("imatrix size 256 is different from tensor size 1024"),
            std::string::npos);
}

// Row r of an expert stack {n, rows, experts} is quantized with the values of expert r / rows
// (llama-quant.cpp, imatrix_for_row): the written bytes are quantize_row's with that slice.
TEST(Imatrix, WriterQuantizesEachExpertsRowsWithItsSlice) {
  const uint64_t n = 256, rows = 3, experts = 2;
  auto row_values = [](uint64_t r, float* out) {
    for (uint64_t i = 0; i < 256; ++i)
      out[i] = std::sin(0.37f * static_cast<float>(i + 1 + 300 * r));
  };
  std::vector<float> importance(n * experts);
  for (uint64_t i = 0; i < importance.size(); ++i) {
    importance[i] = i < n ? 1.0f + static_cast<float>(i % 5) : 0.01f + static_cast<float>(i % 3);
  }
  for (TensorType type : {TensorType::iq2_xxs, TensorType::q4_K}) {
    SCOPED_TRACE(to_string(type));
    model::GgufWriter w;
    w.add_tensor("e", {n, rows, experts}, type, row_values);
    EXPECT_TRUE(w.set_importance("e", importance));
    EXPECT_FALSE(w.set_importance("absent", importance));
    auto bytes = w.to_bytes();
    ASSERT_TRUE(bytes.is_ok()) << bytes.error().describe();
    auto info = model::parse_gguf(*bytes).value();
    const auto* t = info.find("e");
    ASSERT_NE(t, nullptr);
    const uint64_t rb = core::row_bytes(type, n);
    std::vector<float> src(n);
    std::vector<std::byte> want(rb);
    for (uint64_t r = 0; r < rows * experts; ++r) {
      row_values(r, src.data());
      core::quantize_row(type, src.data(), want.data(), n, importance.data() + r / rows * n);
      EXPECT_EQ(std::memcmp(bytes->data() + info.data_offset + t->offset + r * rb, want.data(), rb),
                0)
          << "row " << r;
    }
  }
  // A count of values that is not ne[0] * ne[2] is refused.
  model::GgufWriter w;
  w.add_tensor("e", {n, rows, experts}, TensorType::q4_K, row_values);
  w.set_importance("e", std::vector<float>(n));
  EXPECT_FALSE(w.to_bytes().is_ok());
}

// A synthetic model made with an imatrix: IQ2_XXS's types, each quantized with its entry; without
// one it is refused.
TEST(Imatrix, SyntheticModelsUseTheImatrix) {
  const auto shape =
      test::shape_of("n_embd=256,n_layer=2,n_head=4,n_head_kv=1,n_ff=512,n_vocab=300,context=64");
  const auto tensors = model::model_tensors(shape, model::FileType::iq2_xxs, {}, true);
  EXPECT_FALSE(model::synthetic_writer(shape, model::FileType::iq2_xxs, 3).is_ok());
  const auto im = imatrix_for(tensors);
  auto w = model::synthetic_writer(shape, model::FileType::iq2_xxs, 3, {}, &im);
  ASSERT_TRUE(w.is_ok()) << w.error().describe();
  auto bytes = w->to_bytes();
  ASSERT_TRUE(bytes.is_ok()) << bytes.error().describe();
  auto info = model::parse_gguf(*bytes).value();
  EXPECT_EQ(info.find("blk.1.ffn_up.weight")->type, TensorType::iq2_xxs);
  EXPECT_EQ(info.find("blk.0.attn_v.weight")->type, TensorType::q4_K);
  // The same model with other importance values has other iq2_xxs bytes.
  auto other = im;
  for (float& v : other.values["blk.1.ffn_up.weight"]) v = 1.0f;
  auto bytes2 = model::synthetic_writer(shape, model::FileType::iq2_xxs, 3, {}, &other)->to_bytes();
  auto info2 = model::parse_gguf(*bytes2).value();
  auto data = [](const std::vector<std::byte>& b, const model::GgufInfo& i, const char* name) {
    const auto* t = i.find(name);
    return std::vector<std::byte>(b.begin() + i.data_offset + t->offset,
                                  b.begin() + i.data_offset + t->offset + t->bytes);
  };
  EXPECT_NE(data(*bytes, info, "blk.1.ffn_up.weight"), data(*bytes2, info2, "blk.1.ffn_up.weight"));
  EXPECT_EQ(data(*bytes, info, "blk.1.ffn_gate.weight"),
            data(*bytes2, info2, "blk.1.ffn_gate.weight"));
}

}  // namespace
}  // namespace gauntlet::engine
