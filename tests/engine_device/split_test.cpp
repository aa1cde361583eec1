// A model placed across the host and the device under test (llama.cpp's -ngl), or with the
// device first and the host holding the output layer: the split gives the host reference's
// logits for every token (teacher-forced) and its greedy tokens, for llama, qwen3 and gemma3
// (sliding layers on both sides of the boundary), in F32, Q8_0 and Q4_K_M, at micro-batches 1,
// 32 and 512, and for 4 sequences decoded together.
#include "device_fixture.h"
#include "engine/make_decoder.h"
#include "tests/engine_device/split_check.h"

namespace gauntlet::engine::test {
namespace {

class EngineSplit : public DeviceAndHostTest {
 protected:
  // -ngl over the device under test, the rest on the host.
  placement::Placement ngl(uint32_t n_layer, int n) {
    auto p = placement::from_gpu_layers(n_layer, {n, {device().name()}, {}, placement::kHost});
    EXPECT_TRUE(p.is_ok()) << p.error().describe();
    return *p;
  }
  std::vector<backends::Device*> devices() { return {&device(), host_.get()}; }
};

TEST_F(EngineSplit, HostThenDeviceGivesTheReferenceForEveryArchitectureTypeAndMicroBatch) {
  const auto archs = split_architectures();
  for (const auto& c : split_cases()) {
    const auto& arch = archs[c.arch_index];
    auto file = synthetic_file(arch.shape, c.format);
    ASSERT_NE(file, nullptr);
    // The last ngl slots on the device: layers from n_layer + 1 - ngl and the output.
    const auto placement = ngl(arch.shape.n_layer, static_cast<int>(arch.device_slots));
    ASSERT_FALSE(placement.whole());
    SCOPED_TRACE(arch.shape.name + " " + model::to_string(c.format) + " ub " +
                 std::to_string(c.micro_batch) + " " + placement.describe());
    expect_split_matches_reference(placement, devices(), *file, c.micro_batch);
  }
}

TEST_F(EngineSplit, DeviceThenHostWithTheOutputLayerOnTheHost) {
  const auto arch = split_architectures().back();  // gemma3: sliding layers on both sides
  auto file = synthetic_file(arch.shape, model::FileType::q8_0);
  ASSERT_NE(file, nullptr);
  const uint32_t n = arch.shape.n_layer;
  placement::Placement p{{device().name(), placement::kHost}, {}, "device first", {}};
  for (uint32_t slot = 0; slot <= n; ++slot) p.slot_device.push_back(slot < n / 2 ? 0 : 1);
  for (uint32_t micro_batch : {1u, 32u}) {
    SCOPED_TRACE(p.describe() + " ub " + std::to_string(micro_batch));
    expect_split_matches_reference(p, devices(), *file, micro_batch);
  }
}

TEST_F(EngineSplit, FourSequencesTogetherEachGiveTheirOwnDecode) {
  for (const auto& arch : split_architectures()) {
    SCOPED_TRACE(arch.shape.name);
    auto file = synthetic_file(arch.shape, model::FileType::q4_K_M);
    ASSERT_NE(file, nullptr);
    expect_sequences_match_reference(ngl(arch.shape.n_layer, 2), devices(), *file, 4);
  }
}

TEST_F(EngineSplit, OnlyTheOutputLayerOnTheDevice) {
  const auto arch = split_architectures().front();
  auto file = synthetic_file(arch.shape, model::FileType::f32);
  ASSERT_NE(file, nullptr);
  const auto p = ngl(arch.shape.n_layer, 1);
  EXPECT_EQ(p.describe(), "host: layers 0-" + std::to_string(arch.shape.n_layer - 1) + "; " +
                              device().name() + ": output");
  expect_split_matches_reference(p, devices(), *file, 32);
}

}  // namespace
}  // namespace gauntlet::engine::test
