// Gemma 4's per-layer embeddings (E2B/E4B) and its 26B-A4B layer (routed GELU experts beside the
// dense feed-forward) on the device against the host reference (llama.cpp's src/models/gemma4.cpp,
// reference/gemma4_layer.h): greedy tokens and their logits in F32, Q8_0 and Q4_K_M, every
// token's logits of a prompt fed in passes of 1, 32 and 512 tokens, and the placements: split with
// the host by -ngl (a device share without the embedding still holds token_embd for the per-layer
// inputs) and the 26B-A4B's experts in host memory.
#include "device_fixture.h"
#include "engine/device/profile_check.h"
#include "engine/make_decoder.h"
#include "tests/engine_device/split_check.h"

namespace gauntlet::engine::test {
namespace {

using model::FileType;

// gemma4_test.cpp's four layers (S G S G, the last two sharing KV, K as V), with per-layer
// embeddings of 64 and the shared layers' feed-forward twice as wide (the E2B's).
constexpr const char* kBase =
    "arch=gemma4,n_embd=128,n_head=4,n_head_kv=2,head_dim=64,head_dim_swa=32,n_head_kv_global=1,"
    "swa_pattern=2,n_ff=256,n_vocab=256,context=640,window=8,k_as_v=1,";

model::ModelShape shape_of(const std::string& dims, const std::string& name) {
  auto s = model::parse_dims(std::string(kBase) + dims);
  EXPECT_TRUE(s.is_ok()) << s.error().describe();
  s->name = name;
  return *s;
}

model::ModelShape per_layer_shape() {
  return shape_of("n_layer=4,shared_kv=2,n_embd_per_layer=64,double_wide_mlp=1,tied=1",
                  "device-gemma4-ple");
}

// 8 experts of 64, 2 picked, beside the dense feed-forward of 256.
model::ModelShape experts_shape() {
  return shape_of("n_layer=2,n_expert=8,n_expert_used=2,n_ff_exp=64,tied=1",
                  "device-gemma4-experts");
}

class EngineGemma4Variants : public DeviceAndHostTest {
 protected:
  void expect_decode(const model::ModelShape& shape, FileType format) {
    SCOPED_TRACE(shape.name + " " + model::to_string(format));
    auto file = synthetic_file(shape, format);
    ASSERT_NE(file, nullptr);
    auto config =
        device::default_config(device().info(), device().info().local_mem_size, shape, format);
    config.weights = format;
    config.context = 64;
    expect_decode_check_matches(device(), *file, config, {1, 7, 42, 3}, 24);
  }
  void expect_passes(const model::ModelShape& shape, FileType format, uint32_t micro_batch) {
    SCOPED_TRACE(shape.name + " " + model::to_string(format) + " ub " +
                 std::to_string(micro_batch));
    auto file = synthetic_file(shape, format);
    ASSERT_NE(file, nullptr);
    expect_split_matches_reference(placement::whole(shape.n_layer, device().name()), {&device()},
                                   *file, micro_batch);
  }
};

// Micro-batch 1 (24 greedy steps, their logits) in Q4_K_M, whose 256-element blocks do not divide
// these 128-wide rows, which a pass of several tokens needs; Q8_0 in passes of 32, F32 of 512.
TEST_F(EngineGemma4Variants, PerLayerEmbeddingsGiveTheReferenceAtMicroBatches1And32And512) {
  expect_decode(per_layer_shape(), FileType::q4_K_M);
  expect_passes(per_layer_shape(), FileType::q8_0, 32);
  // The long pass over two layers (one sliding, one global) only.
  expect_passes(shape_of("n_layer=2,n_embd_per_layer=64,tied=1", "device-gemma4-ple-2"),
                FileType::f32, 512);
}

// Q4_K_M token by token, F32 in passes of 32 (Q8_0 with the experts in host memory, below).
TEST_F(EngineGemma4Variants, ExpertsBesideTheDenseFeedForwardGiveTheReferenceAtMicroBatches1And32) {
  expect_decode(experts_shape(), FileType::q4_K_M);
  expect_passes(experts_shape(), FileType::f32, 32);
}

// Three layers without shared KV and an untied output: -ngl 3 puts layers 1 and 2 and the output on
// the device, which holds token_embd only for the per-layer inputs.
TEST_F(EngineGemma4Variants, PerLayerEmbeddingsSplitWithTheHost) {
  const auto shape = shape_of("n_layer=3,n_embd_per_layer=64,tied=0", "device-gemma4-ple-split");
  auto file = synthetic_file(shape, FileType::q8_0);
  ASSERT_NE(file, nullptr);
  expect_host_then_device_split_matches(device(), *host_, *file, shape.n_layer, 3);
}

// --n-cpu-moe 1 in Q8_0: the first layer's experts in host memory (the router's own input handed
// over with the experts'), the second's on the device.
TEST_F(EngineGemma4Variants, ExpertsInHostMemoryGiveTheReference) {
  const auto shape = experts_shape();
  auto file = synthetic_file(shape, FileType::q8_0);
  ASSERT_NE(file, nullptr);
  backends::Device* devices[] = {&device()};
  PlacementRequest request;
  request.n_cpu_moe = 1;
  auto placed = place(shape, request, devices, host_.get());
  ASSERT_TRUE(placed.is_ok()) << placed.error().describe();
  ASSERT_FALSE(placed->placement.whole());
  expect_split_matches_reference(placed->placement, placed->devices, *file, 32);
}

}  // namespace
}  // namespace gauntlet::engine::test
