// Files of the non-linear 4-bit types on the device against the host reference: a qwen3moe file
// mixing Q4_K (its Q4_K_M base), Q6_K, IQ4_NL, IQ4_XS and MXFP4 tensors (written as llama-quantize
// --tensor-type writes one) gives the reference's 32 greedy tokens and logits one token at a time
// and in passes of 32 tokens (the matmul kernels); files of the MXFP4_MOE and IQ4_XS file types
// give the reference's tokens; a file mixing Q4_K, NVFP4, TQ1_0 and TQ2_0 tensors and files of the
// TQ1_0 and TQ2_0 file types on the same mixture give the reference's tokens and logits.
#include <set>

#include "device_fixture.h"
#include "engine/device/profile_check.h"
#include "engine/make_decoder.h"
#include "tests/engine_device/split_check.h"

namespace gauntlet::engine::test {
namespace {

using model::FileType;
using model::TensorType;

// Rows of 256 (whole iq4_xs super-blocks); 8 experts, 2 used.
model::ModelShape moe_shape() {
  auto s = model::parse_dims(
      "arch=qwen3moe,n_ff_exp=256,n_embd=256,n_layer=2,n_head=4,n_head_kv=2,head_dim=64,"
      "n_ff=512,n_expert=8,n_expert_used=2,n_vocab=256,context=640");
  EXPECT_TRUE(s.is_ok()) << s.error().describe();
  s->name = "moe-mixed";
  return *s;
}

// --tensor-type PATTERN=TYPE overrides, as llama-quantize takes them.
std::vector<model::TensorTypeOverride> overrides_of(std::initializer_list<const char*> texts) {
  std::vector<model::TensorTypeOverride> o;
  for (const char* text : texts) {
    auto parsed = model::parse_tensor_type_override(text);
    EXPECT_TRUE(parsed.has_value()) << text;
    if (parsed) o.push_back(std::move(*parsed));
  }
  return o;
}

std::set<TensorType> types_in(const model::GgufFile& file) {
  std::set<TensorType> types;
  for (const auto& t : file.info().tensors) types.insert(t.type);
  return types;
}

class EngineMixedTypes : public DeviceTest {
 protected:
  void expect_decode(const model::GgufFile& file, const model::ModelShape& shape, FileType format) {
    auto config =
        device::default_config(device().info(), device().info().local_mem_size, shape, format);
    config.weights = format;
    auto r = device::check_decode(device(), file, config, {1, 7, 42}, 32);
    ASSERT_TRUE(r.is_ok()) << r.error().describe();
    EXPECT_EQ(r->device_tokens, r->host_tokens);
    EXPECT_LE(r->logits_nmse, r->nmse_bound);
    std::set<int32_t> distinct(r->host_tokens.begin(), r->host_tokens.end());
    EXPECT_GT(distinct.size(), 3u);
  }
};

TEST_F(EngineMixedTypes, FileMixingQ4KIq4XsAndMxfp4GivesTheReference) {
  const auto shape = moe_shape();
  const auto overrides =
      overrides_of({"ffn_(gate|up)_exps=mxfp4", "ffn_down_exps=iq4_xs", "attn_(q|output)=iq4_nl"});
  auto file = synthetic_file(shape, FileType::q4_K_M, 5, overrides);
  ASSERT_NE(file, nullptr);
  // q8_0: attn_k and attn_v under llama.cpp's 8-expert rule.
  const std::set<TensorType> want = {TensorType::f32,  TensorType::q8_0,   TensorType::q4_K,
                                     TensorType::q6_K, TensorType::iq4_nl, TensorType::iq4_xs,
                                     TensorType::mxfp4};
  EXPECT_EQ(types_in(*file), want);
  expect_decode(*file, shape, FileType::q4_K_M);
  for (uint32_t micro_batch : {32u}) {
    SCOPED_TRACE("ub " + std::to_string(micro_batch));
    expect_split_matches_reference(placement::whole(shape.n_layer, device().name()), {&device()},
                                   *file, micro_batch);
  }
}

TEST_F(EngineMixedTypes, Mxfp4MoeAndIq4XsFilesGiveTheReference) {
  const auto shape = moe_shape();
  for (FileType format : {FileType::mxfp4_moe, FileType::iq4_xs, FileType::iq4_nl}) {
    SCOPED_TRACE(model::to_string(format));
    auto file = synthetic_file(shape, format);
    ASSERT_NE(file, nullptr);
    EXPECT_TRUE(types_in(*file).count(model::base_type(format)));
    expect_decode(*file, shape, format);
  }
}

// NVFP4 (64-element blocks of four UE4M3-scaled sub-blocks) on the attention projections, TQ1_0
// on the experts' gate and up stacks, TQ2_0 on their down stacks, in a Q4_K_M file, as
// llama-quantize --tensor-type writes one; and the TQ1_0 and TQ2_0 file types on the same shape.
TEST_F(EngineMixedTypes, FileMixingNvfp4AndTernaryTypesGivesTheReference) {
  const auto shape = moe_shape();
  const auto overrides =
      overrides_of({"ffn_(gate|up)_exps=tq1_0", "ffn_down_exps=tq2_0", "attn_(q|output)=nvfp4"});
  auto file = synthetic_file(shape, FileType::q4_K_M, 5, overrides);
  ASSERT_NE(file, nullptr);
  const std::set<TensorType> want = {TensorType::f32,  TensorType::q8_0,  TensorType::q4_K,
                                     TensorType::q6_K, TensorType::nvfp4, TensorType::tq1_0,
                                     TensorType::tq2_0};
  EXPECT_EQ(types_in(*file), want);
  expect_decode(*file, shape, FileType::q4_K_M);
  expect_split_matches_reference(placement::whole(shape.n_layer, device().name()), {&device()},
                                 *file, 32);
  for (FileType format : {FileType::tq1_0, FileType::tq2_0}) {
    SCOPED_TRACE(model::to_string(format));
    auto tq = synthetic_file(shape, format);
    ASSERT_NE(tq, nullptr);
    EXPECT_TRUE(types_in(*tq).count(model::base_type(format)));
    expect_decode(*tq, shape, format);
  }
}

}  // namespace
}  // namespace gauntlet::engine::test
