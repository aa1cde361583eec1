#include "harness/profiles.h"

#include <gtest/gtest.h>

#include <set>
#include <utility>

#include "engine/device/config.h"
#include "harness/quick_model.h"

namespace gauntlet::harness {
namespace {

using reports::FeatureVerdict;
using reports::ProfileVerdict;

DeviceFacts facts(core::Api api, uint64_t local, uint64_t budget, bool f16_arithmetic) {
  DeviceFacts f;
  f.info.id = {api, 0};
  for (const char* key : {"f32", "f16", "f16.storage", "bf16"}) {
    f.features[key] = FeatureVerdict::verified;
  }
  for (const auto& t : core::all_tensor_types()) f.features[t.name] = FeatureVerdict::verified;
  f.features["f16.arithmetic"] =
      f16_arithmetic ? FeatureVerdict::verified : FeatureVerdict::unsupported;
  f.local_mem_verified_bytes = local;
  f.safe_budget_bytes = budget;
  return f;
}

// The synthetic run's formats, each with the tensor types llama.cpp's rules give it.
WeightMixes mixes(const engine::model::ModelShape& shape) {
  WeightMixes m;
  for (auto format : planned_formats(shape))
    m[format] =
        engine::model::model_tensors(shape, format, {}, engine::model::made_with_imatrix(format));
  return m;
}

const Candidate& find(const std::vector<Candidate>& all, const std::string& name) {
  for (const auto& c : all) {
    if (c.profile.name == name) return c;
  }
  ADD_FAILURE() << "no profile " << name;
  return all.front();
}

TEST(Profiles, WholeF32VectorOverLlvmpipeLocalMemoryIsUnsafeWithBothNumbers) {
  auto shape = quick_shape();
  auto all = plan_profiles(shape, mixes(shape), facts(core::Api::vulkan, 32768, 1ull << 30, true),
                           "vk", core::Level::quick);
  const auto& whole = find(all, "F32/f32/kv-f32/wg64-whole/ctx512/b1");
  const uint64_t need = engine::planner::decode_local_mem_bytes(
      engine::device::effective_matvec(whole.setup.config),
      engine::device::effective_attention(whole.setup.config), shape, 512);
  EXPECT_GT(need, 32768u);
  EXPECT_EQ(whole.profile.verdict, ProfileVerdict::unsafe);
  EXPECT_FALSE(whole.runnable);
  EXPECT_EQ(whole.profile.reason.rfind("local memory " + std::to_string(need) + " > 32768", 0), 0u)
      << whole.profile.reason;
  EXPECT_NE(whole.profile.reason.find("these fit: "), std::string::npos) << whole.profile.reason;
  const auto& tiled = find(all, "F32/f32/kv-f32/wg64-t1024-s256/ctx512/b1");
  EXPECT_TRUE(tiled.runnable) << tiled.profile.reason;
  EXPECT_LE(tiled.profile.variant.local_mem_bytes, 32768u);
  // f16 activations halve the whole vector: it fits, as field case 2 says.
  EXPECT_TRUE(find(all, "F32/f16/kv-f32/wg64-whole/ctx512/b1").runnable);
}

TEST(Profiles, F16ComputeOnPoclIsUnsafeBecauseF16IsUnsupported) {
  auto all =
      plan_profiles(quick_shape(), mixes(quick_shape()),
                    facts(core::Api::opencl, 1 << 20, 1ull << 30, false), "cl", core::Level::quick);
  int f16_compute = 0;
  for (const auto& c : all) {
    if (c.profile.compute_precision != "f16") continue;
    ++f16_compute;
    EXPECT_EQ(c.profile.verdict, ProfileVerdict::unsafe);
    EXPECT_EQ(c.profile.reason.rfind("f16 unsupported", 0), 0u) << c.profile.reason;
  }
  EXPECT_GT(f16_compute, 0);
  EXPECT_TRUE(find(all, "F16/f32/kv-f16/wg64-whole/ctx512/b1").runnable);
}

TEST(Profiles, A7bModelFitsA16GbDeviceInQ4ButNotInF16) {
  auto shape = engine::model::preset_shape("llama-7b");
  ASSERT_TRUE(shape.is_ok());
  const uint64_t budget = 15ull << 30;  // a 16 GB card less its margin
  auto all = plan_profiles(*shape, mixes(*shape), facts(core::Api::vulkan, 65536, budget, true),
                           "arc", core::Level::quick);
  const auto& f16 = find(all, "F16/f32/kv-f32/wg64-t1024-s256/ctx4096/b1");
  EXPECT_EQ(f16.profile.verdict, ProfileVerdict::unsafe);
  EXPECT_EQ(f16.profile.reason.rfind("needs ", 0), 0u) << f16.profile.reason;
  EXPECT_NE(f16.profile.reason.find("> budget 15.0 GiB"), std::string::npos) << f16.profile.reason;
  EXPECT_TRUE(find(all, "Q4_0/f32/kv-f32/wg64-t1024-s256/ctx4096/b1").runnable);
  EXPECT_TRUE(find(all, "Q8_0/f32/kv-f16/wg64-t1024-s256/ctx4096/b1").runnable);
}

TEST(Profiles, OverABudgetCappedByTheLevelIsUntestedNotUnsafe) {
  auto f = facts(core::Api::opencl, 1 << 20, 64ull << 20, true);
  f.budget_capped_by_level = true;
  auto all = plan_profiles(quick_shape(), mixes(quick_shape()), f, "cl", core::Level::quick);
  const auto& big = find(all, "F32/f32/kv-f32/wg64-whole/ctx65536/b1");
  EXPECT_EQ(big.profile.verdict, ProfileVerdict::untested);
  EXPECT_FALSE(big.runnable);
  EXPECT_NE(big.profile.reason.find("needs "), std::string::npos);
}

TEST(Profiles, ContextsArePowersOfTwoUpToTheModel) {
  auto contexts = planned_contexts(quick_shape());
  ASSERT_FALSE(contexts.empty());
  EXPECT_EQ(contexts.front(), 512u);
  EXPECT_EQ(contexts.back(), 65536u);
  for (size_t i = 1; i < contexts.size(); ++i) EXPECT_EQ(contexts[i], 2 * contexts[i - 1]);
}

TEST(Profiles, TheHostPlansOnlyReferenceConfigurations) {
  auto all = plan_profiles(quick_shape(), mixes(quick_shape()),
                           facts(core::Api::host, UINT32_MAX, 8ull << 30, true), "host",
                           core::Level::quick);
  for (const auto& c : all) {
    EXPECT_EQ(c.profile.compute_precision, "f32");
    EXPECT_EQ(c.setup.tiled, false);
  }
}

// A gated-DeltaNet hybrid's profiles sweep the recurrent kernels' chunk edges (micro-batches 32, 64
// and 65 beside 1 and 512) and 4 sequences at every level, each runnable on a device with 64 KiB
// of local memory; a dense model's quick level plans only 1, 512 and 4 sequences.
TEST(Profiles, AHybridSweepsMicroBatches1To512AndFourSequences) {
  using Passes = std::set<std::pair<uint32_t, uint32_t>>;  // {micro-batch, sequences}
  auto passes_of = [](const engine::model::ModelShape& shape, core::Level level) {
    const bool hybrid = shape.recurrent_layers() > 0;
    auto all = plan_profiles(shape, mixes(shape), facts(core::Api::opencl, 65536, 1ull << 30, true),
                             "cl", level);
    Passes passes;
    for (const auto& c : all) {
      if (c.setup.placement || c.profile.weight_format != "Q8_0" ||
          c.profile.kv_precision != "f32" || c.profile.compute_precision != "f32") {
        continue;
      }
      if (hybrid) {
        EXPECT_TRUE(c.runnable) << c.profile.name << ": " << c.profile.reason;
      }
      passes.insert({c.profile.micro_batch, c.profile.batch});
    }
    return passes;
  };
  auto hybrid = engine::model::parse_dims(
      "arch=qwen35,n_embd=128,n_layer=4,n_head=2,n_head_kv=1,head_dim=64,rope_dim=16,n_ff=256,"
      "n_vocab=256,context=1024");
  ASSERT_TRUE(hybrid.is_ok()) << hybrid.error().describe();
  const Passes sweep = {{1, 1}, {32, 1}, {64, 1}, {65, 1}, {512, 1}, {1, 4}};
  EXPECT_EQ(passes_of(*hybrid, core::Level::quick), sweep);
  Passes standard = sweep;
  standard.insert({{31, 1}, {33, 1}});
  EXPECT_EQ(passes_of(*hybrid, core::Level::standard), standard);
  EXPECT_EQ(passes_of(quick_shape(), core::Level::quick), (Passes{{1, 1}, {512, 1}, {1, 4}}));
}

// gemma4's shared-KV layers stay with the layer whose cache they read: of six layers (S S G S S
// G, the last three shared: 3 and 4 read layer 1, 5 reads layer 2) the default -ngl 4 would put
// layers 3-5 on the device apart from 1 and 2, so the placed profile takes -ngl 6 (layers 1-5); a
// -ngl the user gives is kept.
TEST(PlacedProfiles, AGemma4SplitKeepsSharedKvLayersWithTheirSource) {
  auto shape = engine::model::parse_dims(
      "arch=gemma4,n_embd=256,n_layer=6,n_head=4,n_head_kv=2,head_dim=128,head_dim_swa=64,"
      "n_head_kv_global=1,swa_pattern=3,n_ff=512,n_vocab=256,context=64,window=8,shared_kv=3,"
      "k_as_v=1,tied=1");
  ASSERT_TRUE(shape.is_ok()) << shape.error().describe();
  auto p = placed_profile_placement(*shape, "opencl:0", engine::model::FileType::q8_0, {});
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->label, "ngl=6");
  EXPECT_EQ(p->devices[p->slot_device[0]], "host");
  for (uint32_t slot = 1; slot <= 6; ++slot)
    EXPECT_EQ(p->devices[p->slot_device[slot]], "opencl:0");
  PlacedRequest asked;
  asked.user.n_gpu_layers = 4;
  p = placed_profile_placement(*shape, "opencl:0", engine::model::FileType::q8_0, asked);
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->label, "ngl=4");
}

}  // namespace
}  // namespace gauntlet::harness
