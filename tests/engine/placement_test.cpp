// Placement as data: llama.cpp's -ngl and -ts rule (src/llama-model.cpp load_tensors), the shares
// each device runs, and the bad inputs refused with the flag named.
#include "engine/placement/placement.h"

#include <gtest/gtest.h>

#include "engine/model/shape.h"
#include "engine/placement/placement_plan.h"

namespace gauntlet::engine::placement {
namespace {

TEST(Placement, NglPutsTheLastSlotsOnTheDeviceAndTheOutputCountsAsOne) {
  // 32 layers: -ngl 10 -> i_gpu_start = 33 - 10 = 23: layers 23..31 and the output on the GPU.
  auto p = from_gpu_layers(32, {10, {"vulkan:0"}, {}, kHost});
  ASSERT_TRUE(p.is_ok()) << p.error().describe();
  EXPECT_EQ(p->slots_per_device(), (std::vector<uint32_t>{10, 23}));
  EXPECT_EQ(p->describe(), "host: layers 0-22; vulkan:0: layers 23-31 + output");
  EXPECT_EQ(p->label, "ngl=10");
  auto none = from_gpu_layers(32, {0, {"vulkan:0"}, {}, kHost});
  ASSERT_TRUE(none.is_ok());
  EXPECT_EQ(none->slots_per_device(), (std::vector<uint32_t>{0, 33}));
  EXPECT_TRUE(none->whole());
}

TEST(Placement, NglPastTheSlotsIsClampedAndSaidSo) {
  auto p = from_gpu_layers(4, {99, {"opencl:0"}, {}, kHost});
  ASSERT_TRUE(p.is_ok());
  EXPECT_TRUE(p->whole());
  ASSERT_EQ(p->notes.size(), 1u);
  EXPECT_EQ(p->notes[0], "--n-gpu-layers 99 clamped to 5 (4 layers and the output layer)");
}

TEST(Placement, TensorSplitSharesTheOffloadedSlotsByCumulativeShares) {
  // 4 layers, all 5 slots offloaded, -ts 3,1: cumulative 0.75, 1.0; slot i goes to the first
  // device whose share exceeds i / 5: 0, 0.2, 0.4, 0.6 -> first; 0.8 -> second.
  auto p = from_gpu_layers(4, {-1, {"opencl:0", "vulkan:0"}, {3, 1}, kHost});
  ASSERT_TRUE(p.is_ok());
  EXPECT_EQ(p->slot_device, (std::vector<uint32_t>{0, 0, 0, 0, 1}));
  EXPECT_EQ(p->label, "ngl=5 ts=3,1");
  auto even = from_gpu_layers(3, {-1, {"opencl:0", "vulkan:0"}, {}, kHost});
  ASSERT_TRUE(even.is_ok());
  EXPECT_EQ(even->describe(), "opencl:0: layers 0-1; vulkan:0: layer 2 + output");
  // A zero share takes nothing.
  auto zero = from_gpu_layers(3, {-1, {"opencl:0", "vulkan:0"}, {0, 1}, kHost});
  ASSERT_TRUE(zero.is_ok());
  EXPECT_EQ(zero->slots_per_device(), (std::vector<uint32_t>{0, 4, 0}));
}

TEST(Placement, BadFlagsAreRefusedNamingTheFlag) {
  auto message = [](const GpuLayers& r) {
    auto p = from_gpu_layers(8, r);
    EXPECT_FALSE(p.is_ok());
    return p.is_ok() ? std::string() : p.error().message;
  };
  EXPECT_EQ(message({-1, {"opencl:0", "vulkan:0"}, {1}, kHost}),
            "--tensor-split has 1 shares for 2 devices");
  EXPECT_EQ(message({-1, {"opencl:0", "vulkan:0"}, {1, -2}, kHost}),
            "--tensor-split share -2 is negative");
  EXPECT_EQ(message({-1, {"opencl:0", "vulkan:0"}, {0, 0}, kHost}),
            "--tensor-split shares are all 0");
  EXPECT_EQ(message({-1, {"opencl:0", "opencl:0"}, {}, kHost}), "--device names opencl:0 twice");
  EXPECT_EQ(message({-3, {"opencl:0"}, {}, kHost}), "--n-gpu-layers -3 is negative");
  EXPECT_EQ(message({2, {}, {}, kHost}), "--n-gpu-layers needs a --device to offload to");
}

TEST(Placement, SharesAreRunsInLayerOrderAndARepeatedDeviceIsRefused) {
  Placement p{{"host", "opencl:0"}, {0, 0, 1, 1, 1}, "", {}};
  auto shares = p.shares();
  ASSERT_TRUE(shares.is_ok());
  ASSERT_EQ(shares->size(), 2u);
  EXPECT_EQ((*shares)[0].layers.first, 0u);
  EXPECT_EQ((*shares)[0].layers.last, 2u);
  EXPECT_FALSE((*shares)[0].layers.output);
  EXPECT_FALSE((*shares)[0].layers.embed);
  EXPECT_EQ((*shares)[1].layers.first, 2u);
  EXPECT_EQ((*shares)[1].layers.last, 4u);
  EXPECT_TRUE((*shares)[1].layers.output);
  Placement twice{{"host", "opencl:0"}, {0, 1, 0, 1}, "", {}};
  EXPECT_FALSE(twice.shares().is_ok());
}

TEST(Placement, PlannedBytesSplitWeightsAndKvByLayerAndKeepTheEmbeddingOnTheHost) {
  auto shape = model::parse_dims(
      "n_embd=256,n_layer=4,n_head=4,n_head_kv=2,n_ff=512,n_vocab=1000,context=1024");
  ASSERT_TRUE(shape.is_ok());
  auto p = from_gpu_layers(4, {3, {"vulkan:0"}, {}, kHost});  // layers 2, 3 and the output
  ASSERT_TRUE(p.is_ok());
  planner::PlanOptions o;
  o.format = model::FileType::q8_0;
  o.context = 1024;
  const auto bytes = plan_placement(*shape, *p, o);
  ASSERT_EQ(bytes.size(), 2u);
  const auto whole = planner::plan_memory(*shape, o);
  EXPECT_EQ(bytes[0].weights + bytes[1].weights, whole.weights);
  EXPECT_EQ(bytes[0].kv_cache, whole.kv_cache / 2);
  EXPECT_EQ(bytes[1].kv_cache, whole.kv_cache / 2);
  EXPECT_EQ(bytes[1].handover, 256u * 4);
  EXPECT_EQ(bytes[0].handover, 0u);
}

}  // namespace
}  // namespace gauntlet::engine::placement
