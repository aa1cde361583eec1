#include "engine/planner/planner.h"

#include <gtest/gtest.h>

#include "core/type_kernels.h"

namespace gauntlet::engine {
namespace {

using namespace planner;
using model::FileType;
using model::TensorType;

TEST(Planner, WeightBytesPerFormatFromBlockSizes) {
  auto s = model::preset_shape("llama-7b").value();
  const uint64_t params = model::parameter_count(s);
  const uint64_t norms = (2ull * s.n_layer + 1) * s.n_embd;
  const uint64_t matrices = params - norms;
  const uint64_t output = uint64_t{s.n_embd} * s.n_vocab;  // output.weight
  EXPECT_EQ(weight_bytes(s, FileType::f32), params * 4);
  EXPECT_EQ(weight_bytes(s, FileType::f16), matrices * 2 + norms * 4);
  EXPECT_EQ(weight_bytes(s, FileType::bf16), matrices * 2 + norms * 4);
  // Q8_0 keeps its output in q8_0; every other quantized file type writes it as q6_K (210 bytes
  // per 256), as llama.cpp's quantizer does.
  EXPECT_EQ(weight_bytes(s, FileType::q8_0), matrices / 32 * 34 + norms * 4);
  EXPECT_EQ(weight_bytes(s, FileType::q4_0),
            (matrices - output) / 32 * 18 + output / 256 * 210 + norms * 4);
  // Q4_K_M: q4_K (144 bytes per 256) but for the output and, on the layers use_more_bits picks
  // (32 layers: 0-3, 28-31 and every third from 6: 16 layers), attn_v and ffn_down in q6_K.
  const uint64_t v = uint64_t{s.n_embd} * s.n_embd_kv(), down = uint64_t{s.n_ff} * s.n_embd;
  const uint64_t six = output + 16 * (v + down);
  EXPECT_EQ(weight_bytes(s, FileType::q4_K_M),
            (matrices - six) / 256 * 144 + six / 256 * 210 + norms * 4);
  // Case 5: a 7B model in f16 does not fit 16 GB with a 4096 context; in q4_0 it does.
  const uint64_t budget = 15ull << 30;
  auto f16 = plan_memory(s, {FileType::f16, 4096, 1, KvPrecision::f16});
  auto q4 = plan_memory(s, {FileType::q4_0, 4096, 1, KvPrecision::f16});
  EXPECT_GT(f16.steady_state, 13ull << 30);
  EXPECT_LT(q4.steady_state, budget);
  EXPECT_LT(q4.steady_state, f16.steady_state / 2);
}

TEST(Planner, KvCacheFormula) {
  auto s = model::preset_shape("llama-3.1-8b").value();
  // 2 * 32 layers * 8 kv heads * 128 * 8192 * 1 * 2 bytes = 1 GiB.
  EXPECT_EQ(kv_cache_bytes(s, 8192, 1, KvPrecision::f16), 1ull << 30);
  EXPECT_EQ(kv_cache_bytes(s, 8192, 2, KvPrecision::f32), 4ull << 30);
  auto t = model::preset_shape("tinyllama-1.1b").value();
  EXPECT_EQ(kv_cache_bytes(t, 2048, 1, KvPrecision::f32), 2ull * 22 * 4 * 64 * 2048 * 4);
}

TEST(Planner, PlanAddsUp) {
  auto s = model::preset_shape("tinyllama-1.1b").value();
  auto p = plan_memory(s, {FileType::q8_0, 1024, 2, KvPrecision::f16, 16ull << 20});
  EXPECT_EQ(p.steady_state, p.weights + p.kv_cache + p.activations);
  EXPECT_EQ(p.staging, 16ull << 20);
  EXPECT_EQ(p.load_peak, p.weights + p.staging);
  EXPECT_EQ(p.peak, std::max(p.steady_state, p.load_peak));
  // Activations: x, xb, xb2, q (4 * 2048), k, v (2 * 256), scores (32 * 1024), two ff vectors
  // (2 * 5632), logits (32000), in floats, for 2 sequences.
  EXPECT_EQ(p.activations, (4ull * 2048 + 2 * 256 + 32 * 1024 + 2 * 5632 + 32000) * 4 * 2);
  // The staging chunk never exceeds the largest tensor.
  auto tiny = model::preset_shape("test-tiny").value();
  EXPECT_EQ(staging_bytes(model::model_tensors(tiny, FileType::f32), 16ull << 20), 256ull * 64 * 4);
}

TEST(Planner, LocalMemoryOfKernelVariants) {
  KernelVariant whole;  // matvec, whole f32 activation vector, workgroup 64
  whole.local_reduction = false;
  // Case 2's arithmetic: an 11008-wide f32 vector needs 44032 bytes, over 32 KiB, and its sums of
  // 16 elements 16 floats per 256 (43 blocks) more.
  EXPECT_EQ(activation_tile_bytes(whole, 11008), 44032u);
  EXPECT_EQ(tile_sums_bytes(whole, 11008), 43u * 64);
  EXPECT_EQ(local_mem_bytes(whole, {11008, 0, 0}), 44032u + 43 * 64);
  whole.local_reduction = true;
  EXPECT_EQ(local_mem_bytes(whole, {11008, 0, 0}), 44032u + 43 * 64 + 64 * 4);
  KernelVariant half = whole;
  half.activation_type = ActivationType::f16;
  EXPECT_EQ(activation_tile_bytes(half, 11008), 22016u);
  EXPECT_LE(local_mem_bytes(half, {11008, 0, 0}), 32768u);
  KernelVariant chunked = whole;
  chunked.activation_tile = 4096;
  EXPECT_EQ(local_mem_bytes(chunked, {11008, 0, 0}), 4096u * 4 + 16 * 64 + 256);
  // 1000 elements: the sums of 4 blocks (the last one part of a block).
  EXPECT_EQ(local_mem_bytes(chunked, {1000, 0, 0}), 1000u * 4 + 4 * 64 + 256);
  // An iq1 decoder's grid in local memory (Vulkan): 1024 words beside the tile, in a matvec and a
  // matmul alike.
  EXPECT_EQ(core::vulkan_decoder_table_bytes(core::TensorType::iq1_m), 4096u);
  EXPECT_EQ(core::vulkan_decoder_table_bytes(core::TensorType::iq2_xxs), 512u);
  EXPECT_EQ(core::vulkan_decoder_table_bytes(core::TensorType::q4_K), 0u);
  EXPECT_EQ(local_mem_bytes(chunked, {1000, 0, 0, 1, 4096}), 1000u * 4 + 4 * 64 + 256 + 4096);
  KernelVariant mm = chunked;
  mm.op = KernelOp::matmul;
  mm.tokens = 8;
  mm.activation_tile = 256;
  EXPECT_EQ(local_mem_bytes(mm, {4096, 0, 0, 1, 2048}), 8u * 1024 + 2048);
  KernelVariant half_chunk = chunked;
  half_chunk.activation_type = ActivationType::f16;
  // 100 f16 elements: 200 bytes rounded to 208, then one block's sums.
  EXPECT_EQ(local_mem_bytes(half_chunk, {100, 0, 0}), 208u + 64 + 256);
  KernelVariant att;
  att.op = KernelOp::attention;
  att.workgroup = 128;
  att.score_tile = 256;
  EXPECT_EQ(local_mem_bytes(att, {0, 128, 4096}), 128u * 4 + 256 * 4 + 128 * 4);
  att.score_tile = 0;
  EXPECT_EQ(score_tile_bytes(att, 4096), 16384u);
  EXPECT_EQ(whole.name(), "matvec.wg64.whole.f32");
  EXPECT_EQ(chunked.name(), "matvec.wg64.t4096.f32");
  // Over a whole llama-7b decode step the widest matvec is n_ff = 11008.
  auto s = model::preset_shape("llama-7b").value();
  KernelVariant att256 = att;
  att256.score_tile = 256;
  EXPECT_EQ(decode_local_mem_bytes(whole, att256, s, 4096), 44032u + 43 * 64 + 256);
  EXPECT_LE(decode_local_mem_bytes(chunked, att256, s, 4096), 32768u);
}

}  // namespace
}  // namespace gauntlet::engine
