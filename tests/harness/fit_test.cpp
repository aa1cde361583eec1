// The fit answers (field case 5 with real shapes): which formats of a preset fit a budget, and up
// to which context.
#include "harness/fit.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "engine/placement/deployment.h"
#include "engine/placement/expert_placement.h"
#include "engine/planner/planner.h"
#include "harness/memory_pool.h"
#include "harness/quick_model.h"
#include "tests/support/temp_dir.h"

namespace gauntlet::harness {
namespace {

using engine::model::FileType;

reports::FitAnswer fit_of(const std::string& preset, FileType format, uint64_t budget) {
  const auto shape = engine::model::preset_shape(preset).value();
  const auto tensors = engine::model::model_tensors(shape, format);
  return fit_format(shape, format, tensors, {budget, "test"});
}

// What llama.cpp would hold on the device with the last `slots` layer slots there, and the
// routed experts of the first `expert_layers` layers in host memory.
uint64_t device_bytes(const std::string& preset, FileType format, uint32_t slots, uint32_t context,
                      uint32_t expert_layers = 0) {
  const auto shape = engine::model::preset_shape(preset).value();
  const auto tensors = engine::model::model_tensors(shape, format);
  auto p = engine::placement::from_gpu_layers(
      shape.n_layer, {static_cast<int>(slots), {"device"}, {}, engine::placement::kHost});
  if (expert_layers > 0) {
    EXPECT_TRUE(engine::placement::experts_on_host(*p, shape, expert_layers));
  }
  return engine::placement::deployment_bytes(shape, tensors, *p, {context, 512, 1})[0].total();
}

// A 16 GiB card (arc-16g): a standard level's budget is 0.9 * 0.9 * 16 GiB.
TEST(Fit, Llama31On16GiBQ4KMFitsWithItsContextF16IsPlacedAcrossTheHost) {
  const uint64_t budget = static_cast<uint64_t>((16ull << 30) * 0.81);
  const auto q4 = fit_of("llama-3.1-8b", FileType::q4_K_M, budget);
  ASSERT_GT(q4.largest_context, 4096u);
  EXPECT_FALSE(q4.placement.has_value());
  EXPECT_EQ(q4.largest_context % 256, 0u);
  EXPECT_LT(q4.largest_context, 131072u);
  // The answer is the largest: it fits, 256 more does not.
  EXPECT_LE(device_bytes("llama-3.1-8b", FileType::q4_K_M, 33, q4.largest_context), budget);
  EXPECT_GT(device_bytes("llama-3.1-8b", FileType::q4_K_M, 33, q4.largest_context + 256), budget);
  // Llama 3.1 8B keeps 8 KV heads of 128: 128 KiB of f16 KV cache per position.
  const uint64_t kv_per_position = 2ull * 32 * 8 * 128 * 2;
  EXPECT_EQ(q4.kv_bytes, kv_per_position * q4.largest_context);

  const auto q8 = fit_of("llama-3.1-8b", FileType::q8_0, budget);
  EXPECT_GT(q8.largest_context, 0u);
  EXPECT_LT(q8.largest_context, q4.largest_context);

  // F16 (15 GiB of weights) does not fit whole: at context 4096, the most layer slots that fit.
  const auto f16 = fit_of("llama-3.1-8b", FileType::f16, budget);
  ASSERT_TRUE(f16.placement.has_value()) << f16.why;
  const auto& p = *f16.placement;
  EXPECT_EQ(p.layer_slots, 33u);
  EXPECT_EQ(p.context, 4096u);
  EXPECT_EQ(f16.largest_context, 4096u);
  ASSERT_GT(p.device_slots, 20u);
  ASSERT_LT(p.device_slots, 33u);
  EXPECT_LE(device_bytes("llama-3.1-8b", FileType::f16, p.device_slots, 4096), budget);
  EXPECT_GT(device_bytes("llama-3.1-8b", FileType::f16, p.device_slots + 1, 4096), budget);
  ASSERT_EQ(p.bytes.size(), 2u);
  EXPECT_EQ(p.bytes[0].second, f16.planned_bytes);
  EXPECT_GT(p.bytes[1].second, 1ull << 30);  // the host's layers and the input embedding
}

TEST(Fit, TheWholeTrainedContextAndNotOneLayer) {
  const auto small = fit_of("qwen2.5-0.5b", FileType::q8_0, 16ull << 30);
  EXPECT_EQ(small.largest_context, 32768u);
  EXPECT_EQ(small.why, "the whole trained context fits");
  // 64 MiB: not one layer of qwen3-0.6b beside its compute buffer.
  const auto tight = fit_of("qwen3-0.6b", FileType::f16, 64ull << 20);
  EXPECT_EQ(tight.largest_context, 0u);
  EXPECT_FALSE(tight.placement.has_value());
  EXPECT_NE(tight.why.find("not one layer fits"), std::string::npos) << tight.why;
}

// Qwen3-30B-A3B in Q4_K_M (about 17 GiB of weights, every expert counted) does not fit a 16 GiB
// card whole: every layer stays on the device and the experts of the fewest first layers go to
// the host, as --fit parks experts before it gives up layers.
TEST(Fit, AMixtureThatDoesNotFitWholeParksTheFirstLayersExpertsOnTheHost) {
  const uint64_t budget = static_cast<uint64_t>((16ull << 30) * 0.81);
  const auto q4 = fit_of("qwen3-30b-a3b", FileType::q4_K_M, budget);
  ASSERT_TRUE(q4.placement.has_value()) << q4.why;
  const auto& p = *q4.placement;
  EXPECT_EQ(p.device_slots, 49u);  // 48 layers and the output layer
  EXPECT_EQ(p.layer_slots, 49u);
  ASSERT_GT(p.expert_layers_on_host, 0u);
  ASSERT_LT(p.expert_layers_on_host, 48u);
  const uint32_t n = p.expert_layers_on_host;
  EXPECT_LE(device_bytes("qwen3-30b-a3b", FileType::q4_K_M, 49, p.context, n), budget);
  EXPECT_GT(device_bytes("qwen3-30b-a3b", FileType::q4_K_M, 49, p.context, n - 1), budget);
  ASSERT_EQ(p.bytes.size(), 2u);
  EXPECT_EQ(p.bytes[0].second, q4.planned_bytes);
  // The host holds n layers' expert stacks: 128 experts of 3 matrices 2048 x 768 each.
  EXPECT_GT(p.bytes[1].second, n * 128ull * 3 * 2048 * 768 / 2);
  EXPECT_NE(q4.why.find("--n-cpu-moe " + std::to_string(n)), std::string::npos) << q4.why;
}

// The 16 GB recipes of Qwen3.6-35B-A3B (`run --shape qwen3.6-35b-a3b --simulate arc-16g`): the
// i-quant mixes are planned as made with an importance matrix; IQ2_M (iq2_s experts) fits the card
// whole, IQ3_XXS and Q4_K_M only with the experts of their first layers on the host, Q4_K_M more
// of them.
TEST(Fit, TheIQuantRecipesOfQwen36MoeOnA16GiBCard) {
  const auto shape = engine::model::preset_shape("qwen3.6-35b-a3b").value();
  const auto formats = planned_formats(shape);
  for (FileType f : {FileType::iq2_m, FileType::iq3_xxs, FileType::iq3_m}) {
    EXPECT_NE(std::find(formats.begin(), formats.end(), f), formats.end())
        << engine::model::to_string(f);
  }
  const uint64_t budget = static_cast<uint64_t>((16ull << 30) * 0.81);
  auto fit = [&](FileType f) {
    const auto tensors = engine::model::model_tensors(shape, f, {}, true);
    return fit_format(shape, f, tensors, {budget, "test"});
  };
  const auto iq2 = fit(FileType::iq2_m), iq3 = fit(FileType::iq3_xxs);
  const auto q4 = fit_of("qwen3.6-35b-a3b", FileType::q4_K_M, budget);
  EXPECT_LT(engine::planner::weight_bytes(shape, FileType::iq2_m),
            engine::planner::weight_bytes(shape, FileType::iq3_xxs));
  EXPECT_LT(engine::planner::weight_bytes(shape, FileType::iq3_xxs),
            engine::planner::weight_bytes(shape, FileType::iq3_m));
  EXPECT_LT(engine::planner::weight_bytes(shape, FileType::iq3_m),
            engine::planner::weight_bytes(shape, FileType::q4_K_M));
  EXPECT_FALSE(iq2.placement.has_value()) << iq2.why;  // whole, at a context of its own
  EXPECT_GE(iq2.largest_context, 4096u);
  ASSERT_TRUE(iq3.placement.has_value() && q4.placement.has_value());
  EXPECT_GT(iq3.placement->expert_layers_on_host, 0u) << iq3.why;
  EXPECT_GT(q4.placement->expert_layers_on_host, iq3.placement->expert_layers_on_host);
}

// Qwen3.6-27B on a 16 GiB card (`run --shape qwen3.6-27b --simulate arc-16g`): no format fits
// whole, so each is placed at context 4096 with the most layer slots that fit, the device holding
// the KV cache of its attention layers and the recurrent state of its recurrent layers. Q4_K_M's
// 15.4 GiB take 53 of 65 slots; the answer's state is the whole model's 149.6 MiB per sequence.
TEST(Fit, Qwen36_27bOn16GiBIsPlacedWithItsRecurrentState) {
  const uint64_t budget = static_cast<uint64_t>((16ull << 30) * 0.81);
  const auto q4 = fit_of("qwen3.6-27b", FileType::q4_K_M, budget);
  ASSERT_TRUE(q4.placement.has_value()) << q4.why;
  EXPECT_EQ(q4.placement->layer_slots, 65u);
  EXPECT_EQ(q4.placement->context, 4096u);
  EXPECT_EQ(q4.placement->device_slots, 53u);
  EXPECT_LE(device_bytes("qwen3.6-27b", FileType::q4_K_M, 53, 4096), budget);
  EXPECT_GT(device_bytes("qwen3.6-27b", FileType::q4_K_M, 54, 4096), budget);
  EXPECT_EQ(q4.state_bytes, 48ull * 3268608);
}

// The fit answer on a --simulate target, through the memory pool the run plans against.
reports::FitAnswer simulated_fit(const SimulateClamps& clamps, const std::string& preset,
                                 FileType format) {
  PoolInputs in;
  in.clamps = clamps;
  const auto pool = memory_pool(in);
  const auto budget = fit_budget(core::DeviceInfo{}, DeviceFacts{}, clamps, pool);
  const auto shape = engine::model::preset_shape(preset).value();
  const auto tensors = engine::model::model_tensors(shape, format);
  return fit_format(shape, format, tensors, budget);
}

SimulateClamps discrete(const std::string& name, uint64_t vram) {
  return parse_simulate(
             R"({"name": ")" + name + R"(", "global_mem_size": )" + std::to_string(vram) + "}",
             name)
      .value();
}

// Strix Halo's GPU side (120 GiB by ttm.pages_limit) and host side share 128 GiB. gpt-oss-120b
// fits that pool whole; a discrete plan on the 512 MiB that amdgpu states as its VRAM puts
// nearly all of it in host memory ("VRAM + RAM"), and one on a 24 GiB card most of it.
TEST(Fit, ASharedMemoryPresetPlacesAModelThatFitsThePoolWholeWhereDiscreteOnesSplitIt) {
  const auto strix = load_simulate("strix-halo-128g").value();
  const auto shared = simulated_fit(strix, "gpt-oss-120b", FileType::mxfp4_moe);
  EXPECT_GT(shared.largest_context, 0u) << shared.why;
  EXPECT_FALSE(shared.placement.has_value()) << shared.why;
  const uint64_t pool = static_cast<uint64_t>(static_cast<double>(128ull << 30) * 0.81);
  EXPECT_EQ(shared.pool_bytes, pool);
  EXPECT_EQ(shared.pool_basis, "0.9 of 128.00 GiB of host memory, less a 10% margin");
  EXPECT_EQ(shared.budget_bytes, static_cast<uint64_t>(static_cast<double>(120ull << 30) * 0.81));
  EXPECT_NE(shared.budget_basis.find("(ttm.pages_limit)"), std::string::npos)
      << shared.budget_basis;
  EXPECT_GT(shared.host_bytes, 0u);  // the input embedding, in the same pool
  EXPECT_LE(shared.planned_bytes + shared.host_bytes, pool);
  EXPECT_NE(shared.why.find("within the one pool shared with the host"), std::string::npos)
      << shared.why;

  // The 512 MiB carve-out read as VRAM: not one layer on the GPU, everything left to the host.
  const auto carve_out =
      simulated_fit(discrete("carve-out-512m", 512ull << 20), "gpt-oss-120b", FileType::mxfp4_moe);
  EXPECT_EQ(carve_out.largest_context, 0u) << carve_out.why;
  EXPECT_EQ(carve_out.pool_bytes, 0u);
  // A 24 GiB card: every layer on it, the experts of the first 26 layers in host memory.
  const auto card =
      simulated_fit(load_simulate("rtx-24g").value(), "gpt-oss-120b", FileType::mxfp4_moe);
  ASSERT_TRUE(card.placement.has_value()) << card.why;
  EXPECT_EQ(card.placement->expert_layers_on_host, 26u);
  EXPECT_GT(card.placement->bytes[1].second, 30ull << 30);
  EXPECT_EQ(card.pool_bytes, 0u);
  EXPECT_EQ(card.host_bytes, 0u);
}

// Qwen3-235B-A22B in Q4_K_M (133 GiB in all): a discrete plan with Strix Halo's 120 GiB as its
// VRAM parks experts in host memory and calls it a fit ("VRAM + RAM"); on the shared preset the
// host side is the same memory, so it does not fit, and the answer names the pool.
TEST(Fit, ASharedMemoryPresetRefusesWhatOnlyANaiveVramPlusRamSumWouldHold) {
  const auto naive =
      simulated_fit(discrete("vram-120g", 120ull << 30), "qwen3-235b-a22b", FileType::q4_K_M);
  ASSERT_TRUE(naive.placement.has_value()) << naive.why;
  EXPECT_GT(naive.placement->expert_layers_on_host, 0u);
  EXPECT_EQ(naive.pool_bytes, 0u);

  const auto strix = load_simulate("strix-halo-128g").value();
  const auto shared = simulated_fit(strix, "qwen3-235b-a22b", FileType::q4_K_M);
  EXPECT_EQ(shared.largest_context, 0u);
  EXPECT_FALSE(shared.placement.has_value());
  EXPECT_GT(shared.planned_bytes + shared.host_bytes, shared.pool_bytes);
  EXPECT_NE(shared.why.find("more than the pool they share"), std::string::npos) << shared.why;
  EXPECT_NE(shared.why.find("of host memory"), std::string::npos) << shared.why;

  // GB10: the same pool with no GPU-side bound of its own.
  const auto gb10 =
      simulated_fit(load_simulate("gb10-128g").value(), "qwen3-235b-a22b", FileType::q4_K_M);
  EXPECT_EQ(gb10.largest_context, 0u);
  EXPECT_NE(gb10.budget_basis.find("(host memory)"), std::string::npos) << gb10.budget_basis;
}

// Memory other processes hold, as the driver says it, comes off the budget with its name.
TEST(Fit, MemoryHeldByOtherProcessesIsSubtractedAndNamed) {
  const auto busy = parse_simulate(R"({"name": "busy-24g", "global_mem_size": 25769803776,
      "other_processes_mem_size": 4294967296})",
                                   "busy-24g")
                        .value();
  PoolInputs in;
  in.clamps = busy;
  const auto budget = fit_budget(core::DeviceInfo{}, DeviceFacts{}, busy, memory_pool(in));
  EXPECT_EQ(budget.bytes, static_cast<uint64_t>(static_cast<double>(20ull << 30) * 0.81));
  EXPECT_EQ(budget.basis,
            "0.9 of the simulated busy-24g's 24.00 GiB (VRAM), less 4.00 GiB other processes "
            "hold (simulate busy-24g other_processes_mem_size), less a 10% margin");
  EXPECT_EQ(budget.pool_bytes, 0u);
}

// A draft model (-md) is planned beside the model on the device at each answer's context and
// slots: llama-3.2-1b drafting for llama-3.1-8b (Q4_K_M) on a 16 GiB card. The draft's bytes are
// its own deployment at that context (every layer on the device), part of the planned bytes, and
// the context shrinks for them; with 4 slots (-np) the context is shared and each slot holds its
// output row.
TEST(Fit, ADraftModelIsPlannedBesideTheModelAtTheAnswersContext) {
  const uint64_t budget = static_cast<uint64_t>((16ull << 30) * 0.81);
  const auto shape = engine::model::preset_shape("llama-3.1-8b").value();
  const auto tensors = engine::model::model_tensors(shape, FileType::q4_K_M);
  const auto draft_shape = engine::model::preset_shape("llama-3.2-1b").value();
  const FitDraft draft{"llama-1b.gguf", draft_shape,
                       engine::model::model_tensors(draft_shape, FileType::q8_0)};
  FitCompanions with;
  with.draft = draft;
  const auto alone = fit_format(shape, FileType::q4_K_M, tensors, {budget, "test"});
  const auto beside = fit_format(shape, FileType::q4_K_M, tensors, {budget, "test"}, {}, with);
  EXPECT_EQ(alone.draft_bytes, 0u);
  EXPECT_EQ(beside.draft_model, "llama-1b.gguf");
  ASSERT_GT(beside.largest_context, 4096u);
  EXPECT_LT(beside.largest_context, alone.largest_context);
  auto whole = engine::placement::from_gpu_layers(draft_shape.n_layer,
                                                  {-1, {"device"}, {}, engine::placement::kHost});
  const auto draft_bytes = engine::placement::deployment_bytes(draft_shape, draft.tensors, *whole,
                                                               {beside.largest_context, 512, 1});
  EXPECT_EQ(beside.draft_bytes, draft_bytes[0].total());
  EXPECT_GT(beside.draft_bytes, 1ull << 30);  // 1.3 GiB of Q8_0 weights on the device alone
  EXPECT_EQ(beside.planned_bytes,
            device_bytes("llama-3.1-8b", FileType::q4_K_M, 33, beside.largest_context) +
                beside.draft_bytes);
  EXPECT_LE(beside.planned_bytes, budget);

  FitCache four;
  four.sequences = 4;
  const auto slots = fit_format(shape, FileType::q4_K_M, tensors, {budget, "test"}, four, with);
  const auto slot_bytes = engine::placement::deployment_bytes(draft_shape, draft.tensors, *whole,
                                                              {slots.largest_context, 512, 4});
  EXPECT_EQ(slots.draft_bytes, slot_bytes[0].total());
}

// A vision projector (--mmproj) is planned on the device beside the model: qwen3.6-27b's tower
// (884.6 MiB of f16 weights and the 248.1 MiB compute buffer llama.cpp reserved for its warmup
// image) beside qwen3.6-27b at IQ2_M on a 16 GiB card. Its bytes are the same at every context,
// part of the planned bytes, and the context shrinks for them.
TEST(Fit, AVisionProjectorIsPlannedOnTheDeviceBesideTheModel) {
  const uint64_t budget = static_cast<uint64_t>((16ull << 30) * 0.81);
  const auto shape = engine::model::preset_shape("qwen3.6-27b").value();
  const auto tensors = engine::model::model_tensors(shape, FileType::iq2_m);
  const auto tower = engine::model::projector_for("qwen3.6-27b", shape.n_embd);
  FitCompanions with;
  with.projector = FitProjector{"mmproj.gguf", {tower, engine::model::projector_tensors(tower)}};
  const auto alone = fit_format(shape, FileType::iq2_m, tensors, {budget, "test"});
  const auto beside = fit_format(shape, FileType::iq2_m, tensors, {budget, "test"}, {}, with);
  EXPECT_EQ(alone.projector_bytes, 0u);
  EXPECT_EQ(beside.projector_model, "mmproj.gguf");
  const double mib = static_cast<double>(beside.projector_bytes) / (1 << 20);
  EXPECT_GE(mib, 884.62 + 248.10);
  EXPECT_LE(mib, (884.62 + 248.10) * 1.01);
  ASSERT_GE(beside.largest_context, 4096u);
  EXPECT_LT(beside.largest_context, alone.largest_context);
  EXPECT_LE(beside.planned_bytes, budget);
  EXPECT_EQ(beside.planned_bytes, device_bytes("qwen3.6-27b", FileType::iq2_m, shape.n_layer + 1,
                                               beside.largest_context) +
                                      beside.projector_bytes);
}

// The model's own MTP head in use (--spec-type draft-mtp): its block's weights and an MTP context
// at each answer's context, on the device, part of the planned bytes.
TEST(Fit, AnMtpHeadIsPlannedAtTheAnswersContext) {
  auto shape = engine::model::parse_dims(
                   "arch=qwen35,n_embd=512,n_layer=5,n_head=8,n_head_kv=2,head_dim=64,n_ff=1024,"
                   "n_vocab=4000,context=65536,ssm_state=32,ssm_groups=2,ssm_heads=8,"
                   "ssm_inner=256,full_attention_interval=4,nextn=1")
                   .value();
  const auto tensors = engine::model::model_tensors(shape, FileType::q8_0);
  const uint64_t budget = 600ull << 20;
  FitCompanions with;
  with.mtp = true;
  const auto alone = fit_format(shape, FileType::q8_0, tensors, {budget, "test"});
  const auto beside = fit_format(shape, FileType::q8_0, tensors, {budget, "test"}, {}, with);
  EXPECT_EQ(alone.mtp_layers, 0u);
  EXPECT_EQ(beside.mtp_layers, 1u);
  ASSERT_GT(beside.largest_context, 4096u);
  EXPECT_LT(beside.largest_context, alone.largest_context);
  engine::placement::DeploymentOptions o;
  o.context = beside.largest_context;
  const auto mtp = engine::placement::mtp_deployment_bytes(shape, tensors, o);
  EXPECT_EQ(beside.mtp_bytes, mtp[0].total());
  EXPECT_GT(mtp[0].weights, 3u << 20);  // the block's 3.07 MiB of Q8_0 weights
  EXPECT_LE(beside.planned_bytes, budget);
}

TEST(Fit, AProjectorOfAnotherWidthIsRefusedNamingBoth) {
  gauntlet::testing::TempDir dir("fit-projector");
  const auto path = dir / "mmproj.gguf";
  ASSERT_TRUE(engine::model::write_projector(engine::model::projector_for("", 64),
                                             core::TensorType::f16, path)
                  .is_ok());
  const auto refused = read_fit_projector(path, engine::model::preset_shape("qwen3.6-27b").value());
  ASSERT_FALSE(refused.is_ok());
  EXPECT_EQ(refused.error().message,
            "the vision projector's output (64 wide) is not the model's width (5120): a "
            "projector writes the model's input embeddings");
}

}  // namespace
}  // namespace gauntlet::harness
