// The per-device choices the device decoder makes for CPU drivers (engine/device/config.h) and the
// kernel constants they turn into (engine/device/kernels.cpp).
#include <gtest/gtest.h>

#include <algorithm>

#include "engine/device/config.h"
#include "engine/device/kernels.h"

namespace gauntlet::engine::device {
namespace {

core::DeviceInfo device(core::Api api, const std::string& type) {
  core::DeviceInfo d;
  d.id.api = api;
  d.device_type = type;
  return d;
}

int64_t constant(const backends::KernelSource& s, const std::string& name) {
  auto it = std::find_if(s.constants.begin(), s.constants.end(),
                         [&](const backends::KernelConstant& c) { return c.name == name; });
  EXPECT_NE(it, s.constants.end()) << name;
  return it == s.constants.end() ? -1 : it->value;
}

// llvmpipe takes 8 rows per matmul work-item by a matrix's size, so a wide ffn_down (256 rows of
// 11008) gets them as a tall ffn_up does; small matrices and GPUs keep 2.
TEST(DeviceConfig, MatmulRowsFollowTheMatrixSizeOnCpuVulkanOnly) {
  const auto llvmpipe = device(core::Api::vulkan, "cpu");
  EXPECT_EQ(matmul_rows(llvmpipe, 11008, 256), 8u);
  EXPECT_EQ(matmul_rows(llvmpipe, 256, 11008), 8u);
  EXPECT_EQ(matmul_rows(llvmpipe, 1024, 1024), 8u);
  EXPECT_EQ(matmul_rows(llvmpipe, 1024, 1023), 2u);
  EXPECT_EQ(matmul_rows(llvmpipe, 256, 256), 2u);
  EXPECT_EQ(matmul_rows(device(core::Api::vulkan, "discrete_gpu"), 11008, 256), 2u);
  EXPECT_EQ(matmul_rows(device(core::Api::opencl, "cpu"), 11008, 256), 2u);
}

// A matvec takes eight rows per invocation on a CPU Vulkan driver where the matrix fills two
// workgroups of them (1024 rows at 64), four below that and on GPUs, one on an OpenCL CPU driver.
TEST(DeviceConfig, MatvecRowsFollowTheDriverAndTheMatrixHeight) {
  const auto llvmpipe = device(core::Api::vulkan, "cpu");
  EXPECT_EQ(matvec_rows(llvmpipe, 32000, 64), 8u);
  EXPECT_EQ(matvec_rows(llvmpipe, 1024, 64), 8u);
  EXPECT_EQ(matvec_rows(llvmpipe, 1023, 64), 4u);
  EXPECT_EQ(matvec_rows(llvmpipe, 1024, 128), 4u);
  EXPECT_EQ(matvec_rows(llvmpipe, 256, 64), 4u);
  EXPECT_EQ(matvec_rows(device(core::Api::vulkan, "discrete_gpu"), 32000, 64), 4u);
  EXPECT_EQ(matvec_rows(device(core::Api::opencl, "discrete_gpu"), 32000, 64), 4u);
  EXPECT_EQ(matvec_rows(device(core::Api::opencl, "cpu"), 32000, 64), 1u);
}

// Attention sums V four dimensions per invocation on a CPU Vulkan driver, where a quarter of the
// head fits the workgroup; a GPU, and heads too wide for it (gemma4's 512), keep one per
// invocation.
TEST(DeviceConfig, AttentionSumsVFourDimensionsOnlyOnCpuVulkanAndWhereTheHeadFits) {
  EXPECT_TRUE(attention_vector_v(device(core::Api::vulkan, "cpu")));
  EXPECT_FALSE(attention_vector_v(device(core::Api::vulkan, "discrete_gpu")));
  EXPECT_FALSE(attention_vector_v(device(core::Api::opencl, "cpu")));
  planner::KernelVariant v;
  v.op = planner::KernelOp::attention;
  v.workgroup = 64;
  auto v_vec = [&](uint32_t head_dim, bool vector_v) {
    auto s =
        attention_source(core::Api::vulkan, v, head_dim, 512, planner::KvPrecision::f32, vector_v);
    EXPECT_TRUE(s.is_ok()) << s.error().describe();
    return s.is_ok() ? constant(*s, "V_VEC") : -1;
  };
  EXPECT_EQ(v_vec(64, true), 4);
  EXPECT_EQ(v_vec(256, true), 4);
  EXPECT_EQ(v_vec(512, true), 1);
  EXPECT_EQ(v_vec(96, true), 4);
  EXPECT_EQ(v_vec(64, false), 1);
}

// A pass attends one query per invocation on a CPU Vulkan driver only, for f32 and f16 caches and
// heads of at most 128 that are a multiple of 4 (the query and sums live in registers).
TEST(DeviceConfig, AttentionByQueriesOnlyOnCpuVulkanForPlainCachesAndHeadsUpTo128) {
  auto llvmpipe = device(core::Api::vulkan, "cpu");
  const planner::KvPrecision q8{model::TensorType::q8_0, model::TensorType::q8_0};
  const planner::KvPrecision f16_k_q8_v{model::TensorType::f16, model::TensorType::q8_0};
  // It reads the caches as texels: not without the device's texel limit, nor past it.
  EXPECT_FALSE(attention_by_queries(llvmpipe, planner::KvPrecision::f32, 64, 1000));
  llvmpipe.api_limits["maxTexelBufferElements"] = uint32_t{1} << 20;
  EXPECT_FALSE(attention_by_queries(llvmpipe, planner::KvPrecision::f32, 64, (4u << 20) + 4));
  EXPECT_TRUE(attention_by_queries(llvmpipe, planner::KvPrecision::f32, 64, 4u << 20));
  EXPECT_TRUE(attention_by_queries(llvmpipe, planner::KvPrecision::f16, 128, 1000));
  EXPECT_FALSE(attention_by_queries(llvmpipe, planner::KvPrecision::f32, 256, 1000));
  EXPECT_FALSE(attention_by_queries(llvmpipe, planner::KvPrecision::f32, 66, 1000));
  EXPECT_FALSE(attention_by_queries(llvmpipe, q8, 64, 1000));
  EXPECT_FALSE(attention_by_queries(llvmpipe, f16_k_q8_v, 64, 1000));
  // The kernel's own source refuses what it cannot run, whoever asks: a bf16 cache (which it
  // would read as f32), a quantized one, a head of 256, and OpenCL.
  const planner::KvPrecision bf16{model::TensorType::bf16, model::TensorType::bf16};
  EXPECT_TRUE(
      attention_queries_source(core::Api::vulkan, 64, 64, planner::KvPrecision::f16).is_ok());
  EXPECT_FALSE(attention_queries_source(core::Api::vulkan, 64, 64, bf16).is_ok());
  EXPECT_FALSE(attention_queries_source(core::Api::vulkan, 64, 64, q8).is_ok());
  EXPECT_FALSE(
      attention_queries_source(core::Api::vulkan, 64, 256, planner::KvPrecision::f32).is_ok());
  EXPECT_FALSE(
      attention_queries_source(core::Api::opencl, 64, 64, planner::KvPrecision::f32).is_ok());
  for (auto other : {device(core::Api::vulkan, "discrete_gpu"), device(core::Api::opencl, "cpu")}) {
    other.api_limits["maxTexelBufferElements"] = uint32_t{1} << 20;
    EXPECT_FALSE(attention_by_queries(other, planner::KvPrecision::f32, 64, 1000));
  }
}

// A texel matvec kernel's constant `name` (four rows per invocation).
int64_t matvec_constant(model::TensorType type, uint32_t n_in, uint32_t tile, const char* name,
                        VectorReads reads = {}, bool texels = true) {
  const planner::KernelVariant v{planner::KernelOp::matvec, 64, tile};
  auto source = matvec_source(core::Api::vulkan, type, v, n_in, 4, false, texels, reads);
  EXPECT_TRUE(source.is_ok());
  return source ? constant(*source, name) : -1;
}

// engine_matvec_body.glsl walks rows by the widest path the shape allows, chosen on the host:
// llvmpipe would run every path a test in the shader left open.
TEST(DeviceConfig, TheMatvecWalksRowsByTheWidestPathTheShapeAllows) {
  using model::TensorType;
  for (auto type : {TensorType::q8_0, TensorType::q4_0}) {
    EXPECT_EQ(matvec_constant(type, 512, planner::kWholeVector, "ROW_PATH"), 1);
    EXPECT_EQ(matvec_constant(type, 768, 256, "ROW_PATH"), 1);
    EXPECT_EQ(matvec_constant(type, 320, planner::kWholeVector, "ROW_PATH"), 0);
    EXPECT_EQ(matvec_constant(type, 768, 128, "ROW_PATH"), 0);
  }
  for (auto type : {TensorType::f32, TensorType::f16, TensorType::bf16}) {
    EXPECT_EQ(matvec_constant(type, 320, 64, "ROW_PATH"), 2);
    EXPECT_EQ(matvec_constant(type, 330, planner::kWholeVector, "ROW_PATH"), 0);
  }
  EXPECT_EQ(matvec_constant(TensorType::q4_K, 512, planner::kWholeVector, "ROW_PATH"), 0);
}

// Texel reads take whole vectors only where the host said so, and only on the texel path.
TEST(DeviceConfig, TheMatvecReadsVectorsWhereTheHostKnowsThemWhole) {
  const auto q6_K = model::TensorType::q6_K;
  const uint32_t whole = planner::kWholeVector;
  EXPECT_EQ(matvec_constant(q6_K, 512, whole, "VECTOR_READS"), 0);
  EXPECT_EQ(matvec_constant(q6_K, 512, whole, "VECTOR_READS", {true, false}), 1);
  EXPECT_EQ(matvec_constant(q6_K, 512, whole, "VECTOR_READS", {false, true}), 2);
  EXPECT_EQ(matvec_constant(q6_K, 512, whole, "VECTOR_READS", {true, true}), 3);
  EXPECT_EQ(matvec_constant(q6_K, 512, whole, "VECTOR_READS", {true, true}, false), 0);
}

TEST(DeviceConfig, WeightsAsTexelsOnlyOnCpuVulkanWithinTheTexelLimit) {
  auto llvmpipe = device(core::Api::vulkan, "cpu");
  // Without the limit in the device's record, a storage buffer.
  EXPECT_FALSE(reads_as_texels(llvmpipe, 1 << 20));
  llvmpipe.api_limits["maxTexelBufferElements"] = uint32_t{1} << 20;  // 4 MiB of words
  EXPECT_TRUE(reads_as_texels(llvmpipe, 4u << 20));
  EXPECT_TRUE(reads_as_texels(llvmpipe, 1000));
  EXPECT_FALSE(reads_as_texels(llvmpipe, (4u << 20) + 4));
  auto gpu = device(core::Api::vulkan, "discrete_gpu");
  gpu.api_limits["maxTexelBufferElements"] = uint32_t{1} << 27;
  EXPECT_FALSE(reads_as_texels(gpu, 1000));
  auto pocl = device(core::Api::opencl, "cpu");
  pocl.api_limits["maxTexelBufferElements"] = uint32_t{1} << 27;
  EXPECT_FALSE(reads_as_texels(pocl, 1000));
  // Every type has a texel matvec on Vulkan: engine_matvec.comp's five and the block types.
  const planner::KernelVariant v{planner::KernelOp::matvec, 64, planner::kWholeVector};
  for (auto type : {model::TensorType::q8_0, model::TensorType::q4_K, model::TensorType::mxfp4}) {
    auto texels = matvec_source(core::Api::vulkan, type, v, 256, 1, false, true);
    ASSERT_TRUE(texels.is_ok()) << texels.error().describe();
    EXPECT_EQ(texels->texel_views, (std::vector<uint32_t>{0, 1}));
    // Both also as 16-byte vectors (bindings 4 and 5).
    EXPECT_TRUE(texels->texel_vectors);
    EXPECT_EQ(texels->texel_bindings(), 4u);
    auto storage = matvec_source(core::Api::vulkan, type, v, 256, 1);
    ASSERT_TRUE(storage.is_ok());
    EXPECT_TRUE(storage->texel_views.empty());
    EXPECT_NE(storage->spirv.data(), texels->spirv.data());
  }
  // The per-token attention reads the K and V caches as texels where asked.
  const planner::KernelVariant att{planner::KernelOp::attention, 64, planner::kWholeVector};
  auto att_texels =
      attention_source(core::Api::vulkan, att, 64, 512, planner::KvPrecision::f32, true, true);
  ASSERT_TRUE(att_texels.is_ok()) << att_texels.error().describe();
  EXPECT_EQ(att_texels->texel_views, (std::vector<uint32_t>{1, 2}));
  EXPECT_FALSE(att_texels->texel_vectors);
  EXPECT_TRUE(attention_source(core::Api::vulkan, att, 64, 512, planner::KvPrecision::f32, true)
                  ->texel_views.empty());
  // OpenCL has no texel path: the flag is ignored there.
  EXPECT_TRUE(matvec_source(core::Api::opencl, model::TensorType::q4_K, v, 256, 1, false, true)
                  ->texel_views.empty());
  planner::KernelVariant mm{planner::KernelOp::matmul, 64, 256};
  mm.tokens = 16;
  auto mm_texels =
      matmul_source(core::Api::vulkan, model::TensorType::q4_K, mm, 256, 2, false, false, true);
  ASSERT_TRUE(mm_texels.is_ok()) << mm_texels.error().describe();
  // The weights and the activations.
  EXPECT_EQ(mm_texels->texel_views, (std::vector<uint32_t>{0, 1}));
  EXPECT_TRUE(
      matmul_source(core::Api::vulkan, model::TensorType::q4_K, mm, 256, 2)->texel_views.empty());
}

}  // namespace
}  // namespace gauntlet::engine::device
