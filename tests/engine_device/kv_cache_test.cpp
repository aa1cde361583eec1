// The KV cache types and flash attention on the device against the host reference: each
// quantized type written by engine_kv_store (after the Walsh-Hadamard rotation of
// engine_hadamard) and read by today's attention kernel or the flash kernel, one token at a time
// and in passes of several tokens; a quantized V is refused without flash attention, as llama.cpp
// refuses it; a flash tile over the local-memory limit is refused before dispatch.
#include "device_fixture.h"
#include "engine/device/profile_check.h"

namespace gauntlet::engine::test {
namespace {

using model::FileType;
using model::TensorType;
using planner::KvPrecision;

// head_dim 64: the rotations apply (K and V in chunks of 64); n_embd_kv 128, four blocks a row.
model::ModelShape kv_shape() {
  auto s = model::parse_dims(
      "n_embd=256,n_layer=2,n_head=4,n_head_kv=2,n_ff=512,n_vocab=256,context=96");
  EXPECT_TRUE(s.is_ok());
  s->name = "kv-cache";
  return *s;
}

struct CacheCase {
  KvPrecision kv;
  bool flash;
};

std::string describe(const CacheCase& c) {
  return planner::to_string(c.kv) + (c.flash ? " fa on" : " fa off");
}

class EngineKvCache : public DeviceTest {
 protected:
  device::DecodeConfig config(const model::ModelShape& shape, const CacheCase& c) {
    auto config = device::default_config(device().info(), device().info().local_mem_size, shape,
                                         FileType::q8_0);
    config.weights = FileType::q8_0;
    config.kv = c.kv;
    config.flash_attention = c.flash;
    config.flash.score_tile = 8;  // several K/V tiles over the 19 positions: the online softmax
    return config;
  }
};

// Each type x flash attention where llama.cpp allows it (a quantized V only with it on).
TEST_F(EngineKvCache, EachCacheTypeGivesTheReferenceOneTokenAtATime) {
  const auto shape = kv_shape();
  auto file = synthetic_file(shape, FileType::q8_0);
  ASSERT_NE(file, nullptr);
  const CacheCase cases[] = {
      {{TensorType::q8_0, TensorType::q8_0}, true},
      {{TensorType::q8_0, TensorType::f16}, false},
      {{TensorType::q8_0, TensorType::f16}, true},
      {{TensorType::q4_0, TensorType::q4_0}, true},
      {{TensorType::q4_1, TensorType::q4_1}, true},
      {{TensorType::q5_0, TensorType::q5_0}, true},
      {{TensorType::q5_1, TensorType::q5_1}, true},
      {{TensorType::iq4_nl, TensorType::iq4_nl}, true},
      {{TensorType::f16, TensorType::q4_0}, true},
      {{TensorType::f32, TensorType::f16}, false},
      {KvPrecision::f32, true},
      {KvPrecision::f16, true},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(describe(c));
    auto r = device::check_decode(device(), *file, config(shape, c), {1, 7, 42}, 16);
    ASSERT_TRUE(r.is_ok()) << r.error().describe();
    EXPECT_EQ(r->device_tokens, r->host_tokens);
    EXPECT_LE(r->logits_nmse, r->nmse_bound);
    EXPECT_TRUE(r->reason.empty()) << r->reason;
    std::set<int32_t> distinct(r->host_tokens.begin(), r->host_tokens.end());
    EXPECT_GT(distinct.size(), 3u);
  }
}

// A pass of 16 prompt tokens writes every token's rows before any attends (the matmul path), and
// two sequences keep their caches apart.
TEST_F(EngineKvCache, PassesAndSequencesGiveTheReference) {
  const auto shape = kv_shape();
  auto file = synthetic_file(shape, FileType::q8_0);
  ASSERT_NE(file, nullptr);
  for (const CacheCase& c : {CacheCase{{TensorType::q8_0, TensorType::q8_0}, true},
                             CacheCase{{TensorType::q4_0, TensorType::q5_1}, true}}) {
    SCOPED_TRACE(describe(c));
    auto one = config(shape, c);
    one.micro_batch = 16;
    auto r = device::check_pass(device(), *file, one, 48, 8);
    ASSERT_TRUE(r.is_ok()) << r.error().describe();
    EXPECT_TRUE(r->reason.empty()) << r->reason;
    EXPECT_LE(r->logits_nmse, r->nmse_bound);
    auto two = config(shape, c);
    two.sequences = 2;
    auto s = device::check_pass(device(), *file, two, 8, 8);
    ASSERT_TRUE(s.is_ok()) << s.error().describe();
    EXPECT_TRUE(s->reason.empty()) << s->reason;
  }
}

TEST_F(EngineKvCache, QuantizedVWithoutFlashAttentionIsRefused) {
  const auto shape = kv_shape();
  auto file = synthetic_file(shape, FileType::q8_0);
  ASSERT_NE(file, nullptr);
  auto r = device::check_decode(
      device(), *file, config(shape, {{TensorType::f16, TensorType::q8_0}, false}), {1}, 2);
  ASSERT_FALSE(r.is_ok());
  EXPECT_NE(r.error().message.find("a q8_0 V cache needs flash attention (-fa)"), std::string::npos)
      << r.error().message;
}

// The flash variant's local memory: the group's queries, K and V tiles of 4096 positions, the
// scores and 3 floats per head, all f32, named in bytes and refused before anything is built.
TEST_F(EngineKvCache, FlashTileOverTheLocalMemoryLimitIsRefusedByItsBytes) {
  auto shape = model::parse_dims(
      "n_embd=256,n_layer=2,n_head=4,n_head_kv=2,n_ff=512,n_vocab=256,context=8192");
  ASSERT_TRUE(shape.is_ok());
  auto c = config(*shape, {KvPrecision::f32, true});
  c.flash.score_tile = 4096;
  const uint64_t bytes = (2 * 64 + 2 * 4096 * 64 + 2 * 4096 + 3 * 2) * 4;  // 2 heads a group
  EXPECT_EQ(bytes, 2130456u);
  auto s = device::check_config(device().info(), 65536, *shape, c);
  ASSERT_FALSE(s.is_ok());
  EXPECT_NE(s.error().message.find("local memory 2130456 > 65536 (flash.wg64.s4096.f32"),
            std::string::npos)
      << s.error().message;
  c.flash.score_tile = 32;
  EXPECT_TRUE(device::check_config(device().info(), 65536, *shape, c).is_ok());
}

}  // namespace
}  // namespace gauntlet::engine::test

namespace gauntlet::engine::test {
namespace {

// Flash attention over a long, directly filled cache (check_context, the profiles' attention
// check): 256 K/V tiles. On llvmpipe this check fails from about 12288 positions on, with
// results that differ from run to run, even with LP_NUM_THREADS=1, while PoCL and the same
// SPIR-V on an NVIDIA H200 pass at 65536: a workgroup's long loop of barriers goes wrong on
// llvmpipe (the delta rule met it at 442 tokens too). The profiles' context check reports it
// there; this test stays below it.
TEST_F(EngineKvCache, FlashAttentionOverALongFilledCacheGivesTheReference) {
  auto shape = model::parse_dims(
      "n_embd=256,n_layer=2,n_head=4,n_head_kv=4,n_ff=512,n_vocab=256,context=8192");
  ASSERT_TRUE(shape.is_ok());
  shape->name = "kv-long";
  auto file = synthetic_file(*shape, FileType::q8_0);
  ASSERT_NE(file, nullptr);
  for (const CacheCase c :
       {CacheCase{{TensorType::q8_0, TensorType::q8_0}, true}, CacheCase{KvPrecision::f16, true}}) {
    SCOPED_TRACE(describe(c));
    auto cfg = device::default_config(device().info(), device().info().local_mem_size, *shape,
                                      FileType::q8_0);
    cfg.weights = FileType::q8_0;
    cfg.kv = c.kv;
    cfg.flash_attention = c.flash;
    auto r = device::check_context(device(), *file, cfg, 8192);
    ASSERT_TRUE(r.is_ok()) << r.error().describe();
    EXPECT_TRUE(r->tokens_match) << r->reason;
    EXPECT_LE(r->logits_nmse, r->nmse_bound);
  }
}

}  // namespace
}  // namespace gauntlet::engine::test
