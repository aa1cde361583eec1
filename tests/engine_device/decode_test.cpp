// Whole decode on the device against the host reference, local-memory refusal before dispatch
// and the default variant choice, long context through a directly filled KV cache.
#include <set>

#include "device_fixture.h"
#include "engine/device/ops.h"
#include "engine/device/profile_check.h"

namespace gauntlet::engine::test {
namespace {

using device::DecodeConfig;
using model::FileType;

model::ModelShape tiny() {
  auto s = model::preset_shape("test-tiny");
  EXPECT_TRUE(s.is_ok());
  return *s;
}

class EngineDecode : public DeviceTest {
 protected:
  void expect_decode(FileType format, DecodeConfig config, uint32_t steps = 32,
                     const model::ModelShape& shape = tiny()) {
    auto file = synthetic_file(shape, format);
    ASSERT_NE(file, nullptr);
    config.weights = format;
    auto r = device::check_decode(device(), *file, config, {1, 7, 42}, steps);
    ASSERT_TRUE(r.is_ok()) << r.error().describe();
    EXPECT_EQ(r->device_tokens.size(), steps);
    EXPECT_EQ(r->device_tokens, r->host_tokens) << model::to_string(format);
    EXPECT_TRUE(r->tokens_match);
    EXPECT_LE(r->logits_nmse, r->nmse_bound) << model::to_string(format);
    EXPECT_EQ(r->nmse_bound, device::logits_nmse_bound(config));
    EXPECT_TRUE(r->reason.empty()) << r->reason;
    EXPECT_GT(r->tokens_per_second, 0);
    EXPECT_GE(r->device_peak_bytes, r->planned_peak_bytes);
    // Beyond the plan only the rope table (and backend rounding) may be allocated.
    EXPECT_LE(r->device_peak_bytes, r->planned_peak_bytes + (64u << 10));
    // The tokens must vary, or the comparison proves little.
    std::set<int32_t> distinct(r->host_tokens.begin(), r->host_tokens.end());
    EXPECT_GT(distinct.size(), 3u);
  }
  // A synthetic model of `dims` in F32, Q8_0 and Q4_K_M, each with the device's default variant.
  void expect_decode_in_deployed_formats(const std::string& dims, uint32_t steps) {
    auto shape = model::parse_dims(dims);
    ASSERT_TRUE(shape.is_ok()) << shape.error().describe();
    shape->name = dims;
    for (FileType t : {FileType::f32, FileType::q8_0, FileType::q4_K_M}) {
      SCOPED_TRACE(dims + " " + model::to_string(t));
      expect_decode(
          t, device::default_config(device().info(), device().info().local_mem_size, *shape, t),
          steps, *shape);
    }
  }
};

// Every file type llama.cpp writes that holds a tensor type no earlier one held, on a shape whose
// rows of 256 take the k-quants (test-tiny's rows of 64 fall back to q5_0, q5_1 and q8_0): every
// tensor type runs in some file. (All 20 file types took 86 s on llvmpipe with cold caches; the
// file types' rules are the host tests'.)
TEST_F(EngineDecode, SameGreedyTokensAsHostInEveryFileType) {
  const auto shape = model::preset_shape("test-gqa").value();
  std::set<model::TensorType> tensor_types_run;
  size_t file_types_run = 0;
  for (FileType t : model::all_file_types()) {
    SCOPED_TRACE(model::to_string(t));
    bool holds_a_new_type = false;
    for (const auto& tensor : model::model_tensors(shape, t)) {
      holds_a_new_type |= tensor_types_run.insert(tensor.type).second;
    }
    if (!holds_a_new_type) continue;
    ++file_types_run;
    expect_decode(t,
                  device::default_config(device().info(), device().info().local_mem_size, shape, t),
                  32, shape);
  }
  // Every tensor type but MXFP4, which only a mixture's experts hold, and NVFP4, which no file
  // type of llama.cpp's holds (EngineMixedTypes has both); TQ2_0 and TQ1_0 run last.
  EXPECT_EQ(tensor_types_run.size(), 17u);
  EXPECT_LT(file_types_run, model::all_file_types().size());
}

// Each architecture's features against the host: llama with rope_freqs factors, qwen2 (biases,
// NEOX) with a tied output, qwen3 with head_dim 64 where n_embd / n_head is 32 (Q/K norm), phi3's
// fused attn_qkv and gate/up; in F32, Q8_0 and Q4_K_M.
TEST_F(EngineDecode, SameGreedyTokensAsHostInEveryArchitecture) {
  const std::string dims =
      ",n_embd=256,n_layer=2,n_head=8,n_head_kv=2,n_ff=512,n_vocab=1000,context=512";
  for (const char* arch :
       {"arch=llama,rope_freqs=1", "arch=qwen2,tied=1", "arch=qwen3,head_dim=64", "arch=phi3"}) {
    expect_decode_in_deployed_formats(arch + dims, 32);
  }
}

// gemma2 (soft-caps, GELU, post norms, embedding scale, even layers sliding) and gemma3 (Q/K norm,
// five sliding layers to one global with their own RoPE base) with a window of 16 over 48
// positions, so the window really slides, in F32, Q8_0 and Q4_K_M.
TEST_F(EngineDecode, GemmaSameGreedyTokensAsHostPastTheWindow) {
  const std::string dims =
      ",n_embd=256,n_head=4,n_head_kv=2,head_dim=64,n_ff=512,n_vocab=1000,context=64,window=16,"
      "tied=1";
  for (const char* arch : {"arch=gemma2,n_layer=2", "arch=gemma3,n_layer=6"}) {
    expect_decode_in_deployed_formats(arch + dims, 45);
  }
}

// Gemma's head_dim 256 doubles what the attention's query tile holds: on a 32 KiB device (field
// case 2, llvmpipe) the whole-context variant at 8192 positions needs 256 * 4 + 8192 * 4 + 64 * 4
// bytes and is refused with both numbers before dispatch; the default's score tile fits and runs.
TEST_F(EngineDecode, GemmaAttentionTileOverThirtyTwoKibIsRefusedAndATiledOneRuns) {
  auto shape = model::parse_dims(
      "arch=gemma2,n_embd=256,n_layer=2,n_head=4,n_head_kv=2,head_dim=256,n_ff=512,n_vocab=256,"
      "context=8192,window=16,tied=1");
  ASSERT_TRUE(shape.is_ok()) << shape.error().describe();
  const uint64_t limit = 32768;
  DecodeConfig whole;
  whole.weights = FileType::f32;
  whole.matvec.activation_tile = 256;
  auto st = device::check_config(device().info(), limit, *shape, whole);
  ASSERT_FALSE(st.is_ok());
  EXPECT_EQ(st.error().message,
            "local memory 34048 > 32768 (attention.wg64.sall.f32, head_dim 256, context 8192)");
  const DecodeConfig def = device::default_config(device().info(), limit, *shape, FileType::f32);
  ASSERT_TRUE(device::check_config(device().info(), limit, *shape, def).is_ok());
  EXPECT_LE(planner::local_mem_bytes(device::effective_attention(def), {0, 256, 8192}), limit);
  auto file = synthetic_file(*shape, FileType::f32);
  ASSERT_NE(file, nullptr);
  auto r = device::check_decode(device(), *file, def, {3}, 20);
  ASSERT_TRUE(r.is_ok()) << r.error().describe();
  EXPECT_TRUE(r->tokens_match) << r->reason;
  EXPECT_LE(r->logits_nmse, r->nmse_bound);
}

TEST_F(EngineDecode, ChunkedTilesAndF16KvCache) {
  DecodeConfig c;
  c.matvec.activation_tile = 32;  // two passes over n_embd 64, four over n_ff 128
  c.matvec.workgroup = 32;
  c.attention.score_tile = 8;  // several passes over the positions
  c.attention.workgroup = 16;
  c.kv = planner::KvPrecision::f16;
  expect_decode(FileType::q8_0, c);
}

TEST_F(EngineDecode, F16ComputeNeedsClaimedF16Arithmetic) {
  DecodeConfig c;
  c.compute = planner::ActivationType::f16;
  c.weights = FileType::q4_0;
  const auto& info = device().info();
  auto st = device::check_config(info, info.local_mem_size, tiny(), c);
  if (!info.features.fp16_arithmetic) {
    ASSERT_FALSE(st.is_ok());
    EXPECT_EQ(st.error().message, "f16 arithmetic not supported by " + device().name());
    auto file = synthetic_file(tiny(), FileType::q4_0);
    auto r = device::check_decode(device(), *file, c, {1}, 4);
    ASSERT_FALSE(r.is_ok());
    EXPECT_NE(r.error().message.find("f16 arithmetic"), std::string::npos);
  } else {
    ASSERT_TRUE(st.is_ok()) << st.error().describe();
    expect_decode(FileType::q4_0, c);
  }
}

// Field case 2 on a 32 KiB device: an 11008-wide f32 activation vector in local memory needs
// 44032 bytes, its sums of 16 2752 and the reduction 256. The whole-vector variant is refused
// before dispatch with both numbers; the default picks a chunk that fits, and that decodes
// correctly.
TEST_F(EngineDecode, WideActivationOverLocalMemoryIsRefusedAndDefaultRuns) {
  auto shape = model::parse_dims(
      "n_embd=64,n_layer=1,n_head=4,n_head_kv=4,n_ff=11008,n_vocab=128,context=64");
  ASSERT_TRUE(shape.is_ok());
  shape->name = "wide-ff";
  const uint64_t limit = 32768;
  DecodeConfig whole;
  whole.weights = FileType::f32;
  auto st = device::check_config(device().info(), limit, *shape, whole);
  ASSERT_FALSE(st.is_ok());
  EXPECT_EQ(st.error().message, "local memory 47040 > 32768 (matvec.wg64.whole.f32, n_in 11008)");

  const DecodeConfig def = device::default_config(device().info(), limit, *shape, FileType::f32);
  EXPECT_NE(def.matvec.activation_tile, planner::kWholeVector);
  EXPECT_LE(planner::local_mem_bytes(device::effective_matvec(def), {11008, 0, 0}), limit);
  ASSERT_TRUE(device::check_config(device().info(), limit, *shape, def).is_ok());
  // The whole vector (n_embd 64) would fit for the other products: the default is per model, so
  // one chunk size for all of them.
  auto file = synthetic_file(*shape, FileType::f32);
  ASSERT_NE(file, nullptr);
  auto r = device::check_decode(device(), *file, def, {3}, 8);
  ASSERT_TRUE(r.is_ok()) << r.error().describe();
  EXPECT_TRUE(r->tokens_match) << r->reason;
  EXPECT_LE(r->logits_nmse, r->nmse_bound);
  if (device().info().local_mem_size <= limit) {
    // The device itself has the small limit (llvmpipe): check_decode refuses the whole vector.
    auto refused = device::check_decode(device(), *file, whole, {3}, 2);
    ASSERT_FALSE(refused.is_ok());
    EXPECT_NE(refused.error().message.find("47040 > 32768"), std::string::npos)
        << refused.error().message;
  }
}

TEST_F(EngineDecode, LongContextFromAFilledKvCache) {
  auto file = synthetic_file(tiny(), FileType::q4_0);
  ASSERT_NE(file, nullptr);
  for (auto kv : {planner::KvPrecision::f32, planner::KvPrecision::f16}) {
    DecodeConfig c = device::default_config(device().info(), device().info().local_mem_size, tiny(),
                                            FileType::q4_0);
    c.kv = kv;
    c.attention.score_tile = 32;  // four passes over 128 positions
    auto r = device::check_context(device(), *file, c, 128);
    ASSERT_TRUE(r.is_ok()) << r.error().describe();
    EXPECT_TRUE(r->tokens_match) << r->reason;
    EXPECT_LE(r->logits_nmse, r->nmse_bound) << planner::to_string(kv);
    EXPECT_TRUE(r->reason.empty()) << r->reason;
  }
}

TEST_F(EngineDecode, BadConfigurationsAreRefusedBeforeDispatch) {
  const auto& info = device().info();
  DecodeConfig c;
  c.micro_batch = 0;
  auto st = device::check_config(info, info.local_mem_size, tiny(), c);
  ASSERT_FALSE(st.is_ok());
  EXPECT_NE(st.error().message.find("micro-batch"), std::string::npos);
  c = {};
  c.context = 1000;
  EXPECT_FALSE(device::check_config(info, info.local_mem_size, tiny(), c).is_ok());
  c = {};
  c.attention.score_tile = 0;
  st = device::check_config(info, 100, tiny(), c);
  ASSERT_FALSE(st.is_ok());
  EXPECT_NE(st.error().message.find("> 100"), std::string::npos) << st.error().message;
  // A model whose format is not the configuration's.
  auto file = synthetic_file(tiny(), FileType::q8_0);
  c = {};
  c.weights = FileType::f16;
  auto r = device::check_decode(device(), *file, c, {1}, 2);
  ASSERT_FALSE(r.is_ok());
  EXPECT_NE(r.error().message.find("Q8_0"), std::string::npos);
}

}  // namespace
}  // namespace gauntlet::engine::test
