// Gemma 4 (llama.cpp's src/models/gemma4.cpp) on the device against the host reference: per-layer
// head sizes and head counts (32-wide sliding heads with 2 KV heads, 64-wide global heads with 1,
// K as V), a window of 8, RoPE of its own on the sliding layers and proportional RoPE on the
// global ones, attention scale 1 with Q/K norm and the unweighted V norm, two shared-KV layers
// (one sliding, one global) reading an earlier layer's cache, layer_output_scale and the final
// soft-cap: greedy tokens and their logits past the window in F32, Q8_0 and Q4_K_M, every token's
// logits of a prompt fed in passes of 1, 32 and 512 tokens, sequences decoded together, a step
// over a filled cache, and flash attention over a quantized cache.
#include "device_fixture.h"
#include "engine/device/profile_check.h"
#include "engine/make_decoder.h"
#include "tests/engine_device/split_check.h"

namespace gauntlet::engine::test {
namespace {

using model::FileType;

// Layers 0 and 2 slide, 1 and 3 are global (swa_pattern 2); layers 2 and 3 store no KV: 2 reads
// layer 0's ring, 3 reads layer 1's cache (llama.cpp's layer_reuse_cb).
model::ModelShape gemma4_shape() {
  auto s = model::parse_dims(
      "arch=gemma4,n_embd=128,n_layer=4,n_head=4,n_head_kv=2,head_dim=64,head_dim_swa=32,"
      "n_head_kv_global=1,swa_pattern=2,n_ff=256,n_vocab=256,context=640,window=8,shared_kv=2,"
      "k_as_v=1,tied=1");
  EXPECT_TRUE(s.is_ok()) << s.error().describe();
  s->name = "device-gemma4";
  return *s;
}

class EngineGemma4 : public DeviceAndHostTest {
 protected:
  void expect_decode(FileType format, bool flash = false,
                     planner::KvPrecision kv = planner::KvPrecision::f32) {
    const auto shape = gemma4_shape();
    SCOPED_TRACE(std::string(model::to_string(format)) + (flash ? " -fa" : ""));
    auto file = synthetic_file(shape, format);
    ASSERT_NE(file, nullptr);
    auto config =
        device::default_config(device().info(), device().info().local_mem_size, shape, format);
    config.weights = format;
    config.flash_attention = flash;
    config.kv = kv;
    ASSERT_TRUE(device::check_config(device().info(), device().info().local_mem_size, shape, config)
                    .is_ok());
    // 4 prompt tokens and 24 generated: 20 positions past the window.
    expect_decode_check_matches(device(), *file, config, {1, 7, 42, 3}, 24);
  }
};

TEST_F(EngineGemma4, GreedyTokensAndLogitsPastTheWindowAreTheReferencesInEveryFormat) {
  for (FileType format : {FileType::f32, FileType::q8_0, FileType::q4_K_M}) expect_decode(format);
}

// Teacher-forced: every token's logits of a prompt past the window, fed in passes of the
// micro-batch (70 tokens at 1 and 32, 520 at 512), then 8 greedy tokens. One format per
// micro-batch; Q4_K_M's 256-element blocks do not divide this model's 128-wide rows, which a pass
// of several tokens needs, so it runs token by token.
class EngineGemma4Passes : public EngineGemma4 {
 protected:
  void expect_passes(FileType format, uint32_t micro_batch) {
    const auto shape = gemma4_shape();
    SCOPED_TRACE(std::string(model::to_string(format)) + " ub " + std::to_string(micro_batch));
    auto file = synthetic_file(shape, format);
    ASSERT_NE(file, nullptr);
    expect_split_matches_reference(placement::whole(shape.n_layer, device().name()), {&device()},
                                   *file, micro_batch);
  }
};

TEST_F(EngineGemma4Passes, PassesOf1And32TokensGiveTheReferenceLogits) {
  expect_passes(FileType::q4_K_M, 1);
  expect_passes(FileType::q8_0, 32);
}

TEST_F(EngineGemma4Passes, APassOf512TokensGivesTheReferenceLogits) {
  expect_passes(FileType::f32, 512);
}

TEST_F(EngineGemma4, FourSequencesKeepTheirOwnCaches) {
  const auto shape = gemma4_shape();
  auto file = synthetic_file(shape, FileType::q8_0);
  ASSERT_NE(file, nullptr);
  expect_sequences_match_reference(placement::whole(shape.n_layer, device().name()), {&device()},
                                   *file, 4);
}

// A step at position 639 over a cache filled directly: rows of each layer's own width, none for
// the shared layers.
TEST_F(EngineGemma4, LongContextStepOverAFilledCacheGivesTheReference) {
  const auto shape = gemma4_shape();
  auto file = synthetic_file(shape, FileType::q8_0);
  ASSERT_NE(file, nullptr);
  expect_filled_cache_step_matches(device(), *file, shape, FileType::q8_0, 640);
}

// Flash attention over q8_0 K and V: the global layers' 64-wide heads are turned by the
// Walsh-Hadamard rotation, the sliding layers' 32-wide ones are not, and the shared layers round
// their Q against the quantized K they read.
TEST_F(EngineGemma4, FlashAttentionOverAQuantizedCacheGivesTheReference) {
  expect_decode(FileType::q8_0, true, {model::TensorType::q8_0, model::TensorType::q8_0});
}

// Head dimension 512 (gemma4's global layers) against llvmpipe's 32 KiB of local memory, on any
// device: the whole-context attention tile at 8192 positions (2048 + 32768 + 256 bytes) and a
// flash K/V tile of 32 positions for 2 query heads (4 * (1024 + 2 * 32 * 512 + 64 + 6) bytes) are
// refused with their bytes; default_config picks 128 work-items (4 dimensions each) and a score
// tile of 4096 that fit, which runs a step over a filled cache of 8192 positions to the
// reference's logits (with 64 work-items, 8 dimensions each, llvmpipe's logits went wrong from
// about 6144 positions on, PoCL's did not), and a flash tile of 4. gemma-4-31b's group of 8 heads
// of 512 needs a flash workgroup of 128 (the kernel holds 32 outputs per work-item) and a tile
// of 2.
TEST_F(EngineGemma4, HeadDim512TilesOverLlvmpipesLimitAreRefusedAndTheOnesThatFitRun) {
  constexpr uint64_t kLlvmpipeLocal = 32768;
  if (testing_vulkan()) {
    EXPECT_EQ(device().info().local_mem_size, kLlvmpipeLocal);
  }
  auto shape = model::parse_dims(
      "arch=gemma4,n_embd=128,n_layer=2,n_head=2,n_head_kv=1,head_dim=512,head_dim_swa=256,"
      "n_head_kv_global=1,swa_pattern=2,n_ff=256,n_vocab=256,context=8192,window=16,tied=1");
  ASSERT_TRUE(shape.is_ok()) << shape.error().describe();
  shape->name = "device-gemma4-hd512";
  const auto& info = device().info();
  auto fits = device::default_config(info, kLlvmpipeLocal, *shape, FileType::q8_0);
  fits.weights = FileType::q8_0;
  EXPECT_EQ(fits.attention.workgroup, 128u);
  EXPECT_EQ(fits.attention.score_tile, 4096u);
  EXPECT_EQ(fits.flash.score_tile, 4u);
  auto whole = fits;
  whole.attention.workgroup = 64;
  whole.attention.score_tile = 0;
  auto refused = device::check_config(info, kLlvmpipeLocal, *shape, whole);
  ASSERT_FALSE(refused.is_ok());
  EXPECT_EQ(refused.error().message,
            "local memory 35072 > 32768 (attention.wg64.sall.f32, head_dim 512, context 8192)");
  auto flash32 = fits;
  flash32.flash_attention = true;
  flash32.flash.score_tile = 32;
  refused = device::check_config(info, kLlvmpipeLocal, *shape, flash32);
  ASSERT_FALSE(refused.is_ok());
  EXPECT_EQ(
      refused.error().message,
      "local memory 135448 > 32768 (flash.wg64.s32.f32, head_dim 512, context 8192, group 2)");
  auto flash = fits;
  flash.flash_attention = true;
  EXPECT_TRUE(device::check_config(info, kLlvmpipeLocal, *shape, flash).is_ok());

  ASSERT_TRUE(device::check_config(info, kLlvmpipeLocal, *shape, fits).is_ok());
  auto file = synthetic_file(*shape, FileType::q8_0);
  ASSERT_NE(file, nullptr);
  auto r = device::check_context(device(), *file, fits, 8192);
  ASSERT_TRUE(r.is_ok()) << r.error().describe();
  EXPECT_TRUE(r->tokens_match) << r->reason;
  EXPECT_LE(r->logits_nmse, r->nmse_bound);

  auto g31 = model::preset_shape("gemma-4-31b");
  ASSERT_TRUE(g31.is_ok());
  g31->context = 8192;
  auto c31 = device::default_config(info, kLlvmpipeLocal, *g31, FileType::q8_0);
  c31.weights = FileType::q8_0;
  c31.flash_attention = true;
  EXPECT_EQ(c31.flash.workgroup, 128u);
  EXPECT_EQ(c31.flash.score_tile, 2u);
  EXPECT_TRUE(device::check_config(info, kLlvmpipeLocal, *g31, c31).is_ok());
  c31.flash.workgroup = 64;
  refused = device::check_config(info, kLlvmpipeLocal, *g31, c31);
  ASSERT_FALSE(refused.is_ok());
  EXPECT_EQ(refused.error().message,
            "flash.wg64.s2.f32: 8 query heads of 512 need 64 output elements per work-item; the "
            "kernel holds 32 (a larger workgroup fits)");
}

// Six layers (S G S G S G), the last two shared: 4 reads layer 2's ring, 5 reads layer 3's cache.
// -ngl 5 puts layers 2-5 and the output on the device (each shared layer with its source) and
// gives the reference's logits; -ngl 4 would part layer 4 from layer 2 and is refused by name.
TEST_F(EngineGemma4, HostThenDeviceSplitKeepsSharedLayersWithTheirSource) {
  auto shape = model::parse_dims(
      "arch=gemma4,n_embd=128,n_layer=6,n_head=4,n_head_kv=2,head_dim=64,head_dim_swa=32,"
      "n_head_kv_global=1,swa_pattern=2,n_ff=256,n_vocab=256,context=640,window=8,shared_kv=2,"
      "k_as_v=1,tied=1");
  ASSERT_TRUE(shape.is_ok()) << shape.error().describe();
  shape->name = "device-gemma4-split";
  auto file = synthetic_file(*shape, FileType::q8_0);
  ASSERT_NE(file, nullptr);
  expect_host_then_device_split_matches(device(), *host_, *file, shape->n_layer, 5);

  auto parted =
      placement::from_gpu_layers(shape->n_layer, {4, {device().name()}, {}, placement::kHost});
  ASSERT_TRUE(parted.is_ok());
  const std::vector<backends::Device*> devices = {&device(), host_.get()};
  auto d = make_decoder(*parted, devices, *file, {0, planner::KvPrecision::f32, 64, 1, 1});
  ASSERT_FALSE(d.is_ok());
  EXPECT_NE(d.error().message.find(
                "layer 4 reads the KV cache of layer 2, which this share does not hold"),
            std::string::npos)
      << d.error().describe();
}

}  // namespace
}  // namespace gauntlet::engine::test
