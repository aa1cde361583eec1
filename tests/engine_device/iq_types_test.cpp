// Files of the i-quant lattice types on the device against the host reference, each made with an
// importance matrix as llama-quantize --imatrix makes them: a qwen35moe IQ2_M file and a llama
// IQ3_XXS file give the reference's 32 greedy tokens and logits, and every token's logits of a
// prompt fed in passes of 1, 32 and 512 tokens (the matvec and the matmul of iq2_s, iq3_xxs and
// the types beside them); a qwen3moe file mixing Q4_K, IQ2_XXS, IQ3_S and NVFP4 tensors loads and
// decodes as the reference does.
#include <set>

#include "device_fixture.h"
#include "engine/device/profile_check.h"
#include "engine/make_decoder.h"
#include "engine/model/imatrix.h"
#include "tests/engine_device/split_check.h"

namespace gauntlet::engine::test {
namespace {

using model::FileType;
using model::TensorType;

model::ModelShape shape_of(const std::string& dims, const std::string& name) {
  auto s = model::parse_dims(dims);
  EXPECT_TRUE(s.is_ok()) << s.error().describe();
  s->name = name;
  return *s;
}

// Rows of 256 (whole lattice blocks) everywhere.
model::ModelShape llama() {
  return shape_of(
      "arch=llama,n_embd=256,n_layer=2,n_head=4,n_head_kv=2,n_ff=512,n_vocab=256,context=640",
      "iq-llama");
}

model::ModelShape qwen35moe() {
  return shape_of(
      "arch=qwen35moe,n_expert=4,n_expert_used=2,n_ff_exp=256,n_ff_shexp=256,n_layer=2,"
      "full_attention_interval=2,n_embd=256,n_head=2,n_head_kv=1,head_dim=256,rope_dim=64,"
      "n_ff=256,n_vocab=256,context=640,ssm_state=64,ssm_groups=2,ssm_heads=4,ssm_inner=256",
      "iq-qwen35moe");
}

model::ModelShape qwen3moe() {
  return shape_of(
      "arch=qwen3moe,n_ff_exp=256,n_embd=256,n_layer=2,n_head=4,n_head_kv=2,head_dim=64,"
      "n_ff=512,n_expert=8,n_expert_used=2,n_vocab=256,context=640",
      "iq-qwen3moe");
}

// An importance matrix for every weight of the shape: a row of n_per_row values per expert
// (1 to 2.5, varying along the row), as llama-imatrix would collect.
model::Imatrix importance_for(const model::ModelShape& shape) {
  model::Imatrix m;
  for (const auto& t : model::model_tensors(shape, FileType::f32)) {
    if (t.is_vector || t.ne.size() < 2) continue;
    const uint64_t experts = t.ne.size() > 2 ? t.ne[2] : 1;
    std::vector<float> v(t.ne[0] * experts);
    for (size_t i = 0; i < v.size(); ++i) v[i] = 1.0f + static_cast<float>(i % 7) * 0.25f;
    m.values[t.name] = std::move(v);
  }
  m.chunk_count = 1;
  return m;
}

std::set<TensorType> types_in(const model::GgufFile& file) {
  std::set<TensorType> types;
  for (const auto& t : file.info().tensors) types.insert(t.type);
  return types;
}

class EngineIqTypes : public DeviceTest {
 protected:
  // The reference's greedy tokens and logits, and its logits in passes of 1, 32 and 512.
  void expect_reference(const model::ModelShape& shape, FileType format, TensorType base) {
    SCOPED_TRACE(shape.name + " " + model::to_string(format));
    const auto imatrix = importance_for(shape);
    auto file = synthetic_file(shape, format, 5, {}, &imatrix);
    ASSERT_NE(file, nullptr);
    EXPECT_TRUE(types_in(*file).count(base));
    expect_greedy_decode_matches(device(), *file, shape, format);
    for (uint32_t micro_batch : {1u, 32u, 512u}) {
      SCOPED_TRACE("ub " + std::to_string(micro_batch));
      expect_split_matches_reference(placement::whole(shape.n_layer, device().name()), {&device()},
                                     *file, micro_batch);
    }
  }
};

TEST_F(EngineIqTypes, Qwen35MoeIq2MGivesTheReference) {
  expect_reference(qwen35moe(), FileType::iq2_m, TensorType::iq2_s);
}

TEST_F(EngineIqTypes, LlamaIq3XxsGivesTheReference) {
  expect_reference(llama(), FileType::iq3_xxs, TensorType::iq3_xxs);
}

TEST_F(EngineIqTypes, FileMixingQ4KIq2XxsIq3SAndNvfp4GivesTheReference) {
  const auto shape = qwen3moe();
  std::vector<model::TensorTypeOverride> overrides;
  for (const char* text :
       {"ffn_(gate|up)_exps=iq2_xxs", "ffn_down_exps=iq3_s", "attn_(q|output)=nvfp4"}) {
    auto parsed = model::parse_tensor_type_override(text);
    ASSERT_TRUE(parsed.has_value()) << text;
    overrides.push_back(std::move(*parsed));
  }
  const auto imatrix = importance_for(shape);
  auto file = synthetic_file(shape, FileType::q4_K_M, 5, overrides, &imatrix);
  ASSERT_NE(file, nullptr);
  const auto types = types_in(*file);
  for (TensorType t :
       {TensorType::q4_K, TensorType::iq2_xxs, TensorType::iq3_s, TensorType::nvfp4}) {
    EXPECT_TRUE(types.count(t)) << model::to_string(t);
  }
  expect_greedy_decode_matches(device(), *file, shape, FileType::q4_K_M);
  expect_split_matches_reference(placement::whole(shape.n_layer, device().name()), {&device()},
                                 *file, 32);
}

}  // namespace
}  // namespace gauntlet::engine::test
