// The planner's bytes per device for a llama.cpp deployment against what llama.cpp itself
// allocated for the same files and settings. The figures below are llama.cpp's log lines
// (model, KV, compute and output buffer sizes, MiB) from the llama.cpp that node-llama-cpp 3.22.1
// ships, loading Q4_K_M files written by `gauntlet model make` with the dims below, f16 KV cache,
// flash attention off, one sequence, on Vulkan (llvmpipe) with -ngl as given.
#include "engine/placement/deployment.h"

#include <gtest/gtest.h>

#include <cstdio>

#include "engine/model/shape.h"

namespace gauntlet::engine::placement {
namespace {

struct Measured {
  const char* model;
  int ngl;
  uint32_t context, micro_batch;
  double device_mib;  // Vulkan0: model + KV + compute
  double host_mib;    // CPU_Mapped + CPU KV + output + Vulkan_Host compute; < 0: not compared
};

model::ModelShape deployment_shape(const std::string& name) {
  if (name == "qwen3-0.6b") return *model::preset_shape(name);
  const char* dims =
      name == "llama-s"
          ? "arch=llama,n_embd=1024,n_layer=12,n_head=16,n_head_kv=4,n_ff=2816,n_vocab=32000,"
            "context=8192"
          : "arch=gemma3,n_embd=1152,n_layer=12,n_head=4,n_head_kv=1,head_dim=256,n_ff=6912,"
            "n_vocab=65536,context=32768,window=512,tied=1";
  auto s = model::parse_dims(dims);
  EXPECT_TRUE(s.is_ok());
  return *s;
}

// llvmpipe addresses at most 128 MiB in one tensor (maxStorageBufferRange): qwen3's 512-token
// logits (151936 x 512 floats) pass it, so its output stays on the host there.
constexpr uint64_t kLlvmpipeTensorLimit = 128ull << 20;

const Measured kMeasured[] = {
    {"llama-s", 7, 1024, 512, 65.06 + 6.00 + 64.50, 55.45 + 6.00 + 0.12 + 7.01},
    {"llama-s", 7, 4096, 512, 65.06 + 24.00 + 144.56, 55.45 + 24.00 + 0.12 + 13.01},
    {"llama-s", 7, 4096, 32, 65.06 + 24.00 + 13.31, 55.45 + 24.00 + 0.12 + 0.81},
    {"llama-s", 13, 1024, 512, 102.94 + 12.00 + 66.50, 17.58 + 0.12 + 7.01},
    {"llama-s", 13, 4096, 512, 102.94 + 48.00 + 143.01, 17.58 + 0.12 + 13.01},
    {"llama-s", 13, 4096, 32, 102.94 + 48.00 + 8.94, 17.58 + 0.12 + 0.81},
    {"qwen3-0.6b", 15, 1024, 512, 126.50 + 56.00 + 55.70, 246.15 + 56.00 + 0.58 + 300.75},
    {"qwen3-0.6b", 29, 4096, 512, 250.94 + 448.00 + 156.01, 121.71 + 0.58 + 300.75},
    {"qwen3-0.6b", 15, 4096, 32, 126.50 + 224.00 + 140.51, 246.15 + 224.00 + 0.58 + 1.13},
    {"qwen3-0.6b", 29, 4096, 32, 250.94 + 448.00 + 140.39, 121.71 + 0.58 + 1.00},
    {"gemma3-s", 7, 1024, 512, 183.91 + 1.00 + 5.00 + 130.25, 179.78 + 1.00 + 5.00 + 0.25 + 10.51},
    {"gemma3-s", 7, 4096, 512, 183.91 + 4.00 + 5.00 + 132.50, 179.78 + 4.00 + 5.00 + 0.25 + 16.51},
    {"gemma3-s", 7, 4096, 32, 183.91 + 4.00 + 3.75 + 8.28, 179.78 + 4.00 + 3.75 + 0.25 + 1.00},
    {"gemma3-s", 13, 4096, 512, 287.19 + 8.00 + 10.00 + 132.50, 76.50 + 0.25 + 16.51},
};

TEST(Deployment, PlannedBytesPerDeviceAreWithinFivePercentOfLlamaCpps) {
  for (const auto& m : kMeasured) {
    const auto shape = deployment_shape(m.model);
    const auto tensors = model::model_tensors(shape, model::FileType::q4_K_M);
    auto p = from_gpu_layers(shape.n_layer, {m.ngl, {"vulkan:0"}, {}, kHost});
    ASSERT_TRUE(p.is_ok());
    const auto bytes = deployment_bytes(shape, tensors, *p,
                                        {m.context, m.micro_batch, 1, core::TensorType::f16,
                                         core::TensorType::f16, kLlvmpipeTensorLimit});
    ASSERT_EQ(bytes.size(), 2u);
    const double device = bytes[0].total() / 1048576.0, host = bytes[1].total() / 1048576.0;
    SCOPED_TRACE(std::string(m.model) + " -ngl " + std::to_string(m.ngl) + " -c " +
                 std::to_string(m.context) + " -ub " + std::to_string(m.micro_batch) +
                 ": planned device " + std::to_string(device) + " host " + std::to_string(host));
    std::printf("%s ngl %d ctx %u ub %u: device %.2f / %.2f, host %.2f / %.2f MiB\n", m.model,
                m.ngl, m.context, m.micro_batch, device, m.device_mib, host, m.host_mib);
    EXPECT_GE(device, m.device_mib * 0.999);  // never below (MiB printed to 2 decimals)
    EXPECT_LE(device, m.device_mib * 1.05);
    if (m.host_mib < 0) continue;
    EXPECT_GE(host, m.host_mib * 0.999);
    EXPECT_LE(host, m.host_mib * 1.05);
  }
}

// With flash attention (-fa on) and a quantized cache (-ctk, -ctv), llama.cpp's log lines for
// llama-s as above: KV rows of ggml_row_size (q8_0: 34 bytes per 32 values), and a compute buffer
// without the score matrices (143.01 MiB at 4096 cells without flash attention, 66.50 with).
struct MeasuredCache {
  int ngl;
  uint32_t micro_batch;
  core::TensorType type;  // K and V
  double device_mib, host_mib;
};
const MeasuredCache kMeasuredCache[] = {
    {13, 512, core::TensorType::f16, 102.94 + 48.00 + 66.50, 17.58 + 0.12 + 8.01},
    {13, 512, core::TensorType::q8_0, 102.94 + 25.50 + 66.50, 17.58 + 0.12 + 8.04},
    {13, 512, core::TensorType::q4_0, 102.94 + 13.50 + 66.50, 17.58 + 0.12 + 8.04},
    {7, 512, core::TensorType::q8_0, 65.06 + 12.75 + 64.50, 55.45 + 12.75 + 0.12 + 8.04},
    {13, 32, core::TensorType::q8_0, 102.94 + 25.50 + 4.16, 17.58 + 0.12 + 0.53},
};

TEST(Deployment, FlashAttentionAndQuantizedCachesAreWithinFivePercentOfLlamaCpps) {
  const auto shape = deployment_shape("llama-s");
  const auto tensors = model::model_tensors(shape, model::FileType::q4_K_M);
  for (const auto& m : kMeasuredCache) {
    auto p = from_gpu_layers(shape.n_layer, {m.ngl, {"vulkan:0"}, {}, kHost});
    ASSERT_TRUE(p.is_ok());
    DeploymentOptions o{4096, m.micro_batch, 1, m.type, m.type, kLlvmpipeTensorLimit, true};
    const auto bytes = deployment_bytes(shape, tensors, *p, o);
    const double device = bytes[0].total() / 1048576.0, host = bytes[1].total() / 1048576.0;
    SCOPED_TRACE(std::string(core::to_string(m.type)) + " -ngl " + std::to_string(m.ngl) + " -ub " +
                 std::to_string(m.micro_batch) + ": planned device " + std::to_string(device) +
                 " host " + std::to_string(host));
    EXPECT_GE(device, m.device_mib * 0.999);
    EXPECT_LE(device, m.device_mib * 1.05);
    EXPECT_GE(host, m.host_mib * 0.999);
    EXPECT_LE(host, m.host_mib * 1.05);
  }
  // KV bytes exactly: 12 layers x 4096 cells x 256 values x (34/32 bytes) x 2.
  DeploymentOptions q8{4096, 512, 1, core::TensorType::q8_0, core::TensorType::q8_0};
  auto whole = from_gpu_layers(shape.n_layer, {13, {"vulkan:0"}, {}, kHost});
  EXPECT_EQ(deployment_bytes(shape, tensors, *whole, q8)[0].kv_cache, 12ull * 4096 * 272 * 2);
}

TEST(Deployment, SlidingLayersKeepTheWindowAndTheMicroBatchPaddedTo256Cells) {
  const auto gemma = deployment_shape("gemma3-s");  // window 512; layers 5 and 11 attend globally
  EXPECT_EQ(kv_cells(gemma, 0, {4096, 512, 1}), 1024u);
  EXPECT_EQ(kv_cells(gemma, 0, {4096, 32, 1}), 768u);
  EXPECT_EQ(kv_cells(gemma, 5, {4096, 32, 1}), 4096u);
  EXPECT_EQ(kv_cells(gemma, 0, {700, 512, 1}), 768u);  // the context, padded, is the smaller
  EXPECT_EQ(kv_cells(gemma, 5, {1000, 512, 1}), 1024u);
}

TEST(Deployment, ATiedOutputOnTheDeviceIsASecondCopyOfTheEmbedding) {
  const auto gemma = deployment_shape("gemma3-s");
  const auto tensors = model::model_tensors(gemma, model::FileType::q4_K_M);
  uint64_t embd = 0, all_bytes = 0;
  for (const auto& t : tensors) {
    all_bytes += t.bytes();
    if (t.name == "token_embd.weight") embd = t.bytes();
  }
  auto all = from_gpu_layers(gemma.n_layer, {-1, {"vulkan:0"}, {}, kHost});
  ASSERT_TRUE(all.is_ok());
  const auto bytes = deployment_bytes(gemma, tensors, *all, {});
  EXPECT_EQ(bytes[1].weights, embd);       // the input embedding stays on the host
  EXPECT_EQ(bytes[0].weights, all_bytes);  // every other tensor, and the output's copy of it
  EXPECT_EQ(bytes[1].output, 4ull * gemma.n_vocab);
}

// A draft model (-md) as llama.cpp's server holds it (common_base_params_to_speculative): one
// context of the target's n_ctx, n_seq_max (-np) and micro-batch, every layer on the device here,
// its output buffer n_vocab floats per slot. llama.cpp's log lines for a Q4_K_M draft of the dims
// below at -c 4096 (node-llama-cpp's per-sequence context 4096 / np), f16 KV, flash attention on
// (-fa auto's choice on Vulkan), all layers on Vulkan (llvmpipe): Vulkan0 model + KV + compute, and
// CPU_Mapped (the input embedding) + output + Vulkan_Host compute.
struct MeasuredSlots {
  uint32_t sequences, micro_batch;
  double device_mib, host_mib;
};
const MeasuredSlots kMeasuredDraft[] = {
    {1, 512, 19.72 + 8.00 + 64.50, 8.79 + 0.12 + 6.01},
    {4, 512, 19.72 + 8.00 + 63.50, 8.79 + 0.49 + 3.01},
    {1, 32, 19.72 + 8.00 + 4.03, 8.79 + 0.12 + 0.38},
    {4, 32, 19.72 + 8.00 + 3.97, 8.79 + 0.49 + 0.19},
};

TEST(Deployment, ADraftModelPerSlotCountIsWithinFivePercentOfLlamaCpps) {
  const auto draft =
      model::parse_dims(
          "arch=llama,n_embd=512,n_layer=4,n_head=8,n_head_kv=2,n_ff=1536,n_vocab=32000,"
          "context=8192")
          .value();
  const auto tensors = model::model_tensors(draft, model::FileType::q4_K_M);
  auto all = from_gpu_layers(draft.n_layer, {-1, {"vulkan:0"}, {}, kHost});
  ASSERT_TRUE(all.is_ok());
  for (const auto& m : kMeasuredDraft) {
    const auto bytes = deployment_bytes(draft, tensors, *all,
                                        {4096, m.micro_batch, m.sequences, core::TensorType::f16,
                                         core::TensorType::f16, kLlvmpipeTensorLimit, true});
    const double device = bytes[0].total() / 1048576.0, host = bytes[1].total() / 1048576.0;
    std::printf("draft np %u ub %u: device %.2f / %.2f, host %.2f / %.2f MiB\n", m.sequences,
                m.micro_batch, device, m.device_mib, host, m.host_mib);
    SCOPED_TRACE("-np " + std::to_string(m.sequences) + " -ub " + std::to_string(m.micro_batch));
    constexpr double kRounding = 3 * 0.005;  // three figures, each printed to 2 decimals
    EXPECT_GE(device, m.device_mib - kRounding);
    EXPECT_LE(device, m.device_mib * 1.05);
    EXPECT_GE(host, m.host_mib - kRounding);
    EXPECT_LE(host, m.host_mib * 1.05);
  }
}

// An MTP head in use (--spec-type draft-mtp): llama.cpp 3.22.1 on Vulkan (llvmpipe), every layer
// on the device, loading Q8_0 qwen35 files with one MTP block (`model make --dims ...,nextn=1`),
// the model with load_mtp and an MTP context against the target context. The figures: the
// Vulkan0 model buffer's growth over the same file without load_mtp, and the MTP context's KV
// and Vulkan0 compute buffer (MiB).
TEST(Deployment, AnMtpContextIsNeverBelowLlamaCppsAndWithinFivePercentWithoutFlashAttention) {
  struct MtpMeasured {
    uint32_t n_embd;
    uint32_t context, sequences;
    bool flash_attention;
    double weights_mib, kv_mib, compute_mib;
  };
  const MtpMeasured measured[] = {
      {256, 4096, 1, false, 0.80, 2.00, 42.51},
      {256, 4096, 1, true, 0.80, 2.00, 6.52},
      {256, 8192, 4, false, 0.80, 4.00, 22.51},
      {512, 4096, 1, false, 3.07, 2.00, 76.51},
  };
  for (const auto& m : measured) {
    SCOPED_TRACE(::testing::Message() << "n_embd " << m.n_embd << ", context " << m.context << ", "
                                      << m.sequences << " sequences, fa " << m.flash_attention);
    const bool wide = m.n_embd == 512;
    auto shape = model::parse_dims(
        wide ? "arch=qwen35,n_embd=512,n_layer=5,n_head=8,n_head_kv=2,head_dim=64,n_ff=1024,"
               "n_vocab=4000,context=8192,ssm_state=32,ssm_groups=2,ssm_heads=8,ssm_inner=256,"
               "full_attention_interval=4,nextn=1"
             : "arch=qwen35,n_embd=256,n_layer=5,n_head=4,n_head_kv=2,head_dim=64,n_ff=512,"
               "n_vocab=2000,context=8192,ssm_state=32,ssm_groups=2,ssm_heads=4,ssm_inner=128,"
               "full_attention_interval=4,nextn=1");
    ASSERT_TRUE(shape.is_ok()) << shape.error().message;
    const auto tensors = model::model_tensors(*shape, model::FileType::q8_0);
    DeploymentOptions o;
    o.context = m.context;
    o.sequences = m.sequences;
    o.flash_attention = m.flash_attention;
    const auto bytes = mtp_deployment_bytes(*shape, tensors, o);
    ASSERT_EQ(bytes.size(), 2u);
    const double mib = 1 << 20;
    EXPECT_NEAR(bytes[0].weights / mib, m.weights_mib, 0.01);
    EXPECT_NEAR(bytes[0].kv_cache / mib, m.kv_mib, 0.01);
    const double device = bytes[0].total() / mib, llama = m.weights_mib + m.kv_mib + m.compute_mib;
    EXPECT_GE(device, llama);
    // Flash attention's graph is planned by the same per-token rule as a whole model's, which for
    // this one small block at 4096 cells keeps 1.2 MiB more than llama.cpp did (13 %; the f16
    // mask, half a float per cell, outweighs the rest as the context grows).
    EXPECT_LE(device, llama * (m.flash_attention ? 1.15 : 1.05));
  }
  // A model without an MTP block plans none.
  EXPECT_TRUE(mtp_deployment_bytes(*model::preset_shape("qwen3-0.6b"), {}, {}).empty());
}

}  // namespace
}  // namespace gauntlet::engine::placement
