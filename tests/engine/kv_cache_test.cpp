// The engine's KV cache types on the host reference: rows stored as llama.cpp's CPU stores them
// (engine/reference/kv_rows.h), the Walsh-Hadamard rotation of a quantized cache, and greedy
// decodes that agree with llama.cpp's own for each cache type.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "core/half.h"
#include "engine/model/loaded_model.h"
#include "engine/reference/decoder.h"
#include "engine/reference/kv_rows.h"
#include "tests/engine/test_models.h"

namespace gauntlet::engine::test {
namespace {

using model::FileType;
using model::TensorType;
using planner::KvPrecision;

KvPrecision both(TensorType t) { return {t, t}; }

// q8_0 as llama.cpp's x86 CPU writes a KV row (quantize_row_q8_0 with AVX): codes round to the
// nearest even, where ggml's reference rounds half away from zero.
TEST(KvRows, Q8_0RoundsHalfToEvenAsLlamaCppsCpu) {
  std::vector<float> x(32, 0.0f);
  x[0] = 127.0f;  // amax: d = 1, codes are x itself
  x[1] = 0.5f;
  x[2] = 1.5f;
  x[3] = 2.5f;
  x[4] = -2.5f;
  std::vector<std::byte> row(34);
  reference::store_kv_row(TensorType::q8_0, x.data(), row.data(), 32);
  uint16_t d;
  std::memcpy(&d, row.data(), 2);
  EXPECT_EQ(core::f16_to_f32(d), 1.0f);
  const int8_t want[] = {127, 0, 2, 2, -2};
  for (int j = 0; j < 5; ++j) EXPECT_EQ(static_cast<int8_t>(row[2 + j]), want[j]) << j;
  // ggml's reference quantizer (what a q8_0 weight file holds) rounds 0.5 to 1, 2.5 to 3.
  std::vector<std::byte> ref(34);
  model::quantize_row(TensorType::q8_0, x.data(), ref.data(), 32);
  EXPECT_EQ(static_cast<int8_t>(ref[3]), 1);
  EXPECT_EQ(static_cast<int8_t>(ref[5]), 3);
}

// The rotation of unit vector e_j is column j of the Sylvester-Hadamard matrix over sqrt(n):
// (-1)^popcount(i & j) / 8 for n = 64, exactly; twice is the identity (the matrix is its own
// inverse).
TEST(KvRows, HadamardRotationIsSylvestersMatrix) {
  std::vector<float> x(128, 0.0f);
  x[5] = 1.0f;
  x[64 + 3] = 2.0f;
  reference::hadamard_rotate(x.data(), 128, 64);
  for (uint32_t i = 0; i < 64; ++i) {
    EXPECT_EQ(x[i], (__builtin_popcount(i & 5) % 2 ? -1.0f : 1.0f) * 0.125f) << i;
    EXPECT_EQ(x[64 + i], (__builtin_popcount(i & 3) % 2 ? -1.0f : 1.0f) * 0.25f) << i;
  }
  reference::hadamard_rotate(x.data(), 128, 64);
  for (uint32_t i = 0; i < 128; ++i) {
    EXPECT_NEAR(x[i], i == 5 ? 1.0f : i == 67 ? 2.0f : 0.0f, 1e-6f) << i;
  }
}

// llama.cpp's rules (llama_kv_cache): K and Q turn in chunks of the largest power of two >= 64
// dividing head_dim, V and the output in chunks of 64, only for a quantized type and head_dim a
// multiple of 64.
TEST(KvRows, RotationChunksFollowLlamaCpp) {
  auto shape = [](uint32_t head_dim) {
    auto s = model::parse_dims("n_embd=256,n_layer=1,n_head=4,n_head_kv=2,head_dim=" +
                               std::to_string(head_dim) + ",n_ff=64,n_vocab=32,context=16");
    EXPECT_TRUE(s.is_ok());
    return *s;
  };
  EXPECT_EQ(reference::k_rotation(shape(64), both(TensorType::q8_0)), 64u);
  EXPECT_EQ(reference::k_rotation(shape(128), both(TensorType::q4_0)), 128u);
  EXPECT_EQ(reference::k_rotation(shape(192), both(TensorType::q8_0)), 64u);
  EXPECT_EQ(reference::k_rotation(shape(96), both(TensorType::q8_0)), 0u);
  EXPECT_EQ(reference::v_rotation(shape(128), both(TensorType::q8_0)), 64u);
  EXPECT_EQ(reference::k_rotation(shape(128), both(TensorType::f16)), 0u);
  EXPECT_EQ(reference::k_rotation(shape(128), {TensorType::f16, TensorType::q8_0}), 0u);
  EXPECT_EQ(reference::v_rotation(shape(128), {TensorType::f16, TensorType::q8_0}), 64u);
}

TEST(KvRows, CacheOfAQuantizedTypeNeedsWholeBlocksPerHead) {
  auto s =
      model::parse_dims("n_embd=96,n_layer=1,n_head=2,n_head_kv=1,n_ff=64,n_vocab=32,context=16");
  ASSERT_TRUE(s.is_ok());  // head_dim 48
  auto status = reference::check_kv_cache(*s, both(TensorType::q4_0));
  ASSERT_FALSE(status.is_ok());
  EXPECT_NE(status.error().message.find("q4_0 needs head_dim a multiple of 32; it is 48"),
            std::string::npos)
      << status.error().message;
  EXPECT_TRUE(reference::check_kv_cache(*s, both(TensorType::f16)).is_ok());
}

std::vector<int32_t> greedy(const model::LoadedModel& m, KvPrecision kv,
                            std::vector<std::vector<float>>* logits = nullptr) {
  auto decoder = reference::Decoder::create(m, {2, kv, 64});
  EXPECT_TRUE(decoder.is_ok()) << decoder.error().describe();
  const int32_t prompt[] = {1, 7, 42, 3};
  auto out = reference::greedy_decode([&](int32_t t) { return (*decoder)->step(t); }, prompt, 9,
                                      [&](uint32_t, int32_t, std::span<const float> l) {
                                        if (logits != nullptr)
                                          logits->emplace_back(l.begin(), l.end());
                                      });
  EXPECT_TRUE(out.is_ok()) << out.error().describe();
  return out.is_ok() ? *out : std::vector<int32_t>{};
}

// `gauntlet model make --dims n_embd=256,n_layer=2,n_head=4,n_head_kv=2,n_ff=512,n_vocab=256,
// context=64 --format F32` (seed 1; head_dim 64, so a quantized cache is turned): llama.cpp
// (node-llama-cpp 3.22.1's libllama on the CPU, n_ctx 64, flash attention on but for f32, prompt
// 1,7,42,3 fed one token at a time, then greedy) gave these tokens for each cache type. The
// model's logits lie close together, so the types part ways after one to five tokens: the same
// tokens show each cache written, turned and read as llama.cpp does. Teacher-forced over 12
// tokens, the reference's logits were llama.cpp's to a worst-step NMSE of 2.9e-13 with an f32
// cache, 1.8e-13 with q8_0, 1.7e-13 with q4_0 and iq4_nl, 6.8e-8 with q5_0, 1.4e-6 with q5_1 and
// 6.4e-5 with q4_1 (llama.cpp's Q8_1 dot adds the block sums as f16), 3.7e-7 with f16 (llama.cpp
// rounds Q to f16 there); without the Q8_0 rounding of Q, 2.9e-5 with q8_0 (a scratch program
// against libllama, not part of the tests).
struct LlamaRun {
  KvPrecision kv;
  std::vector<int32_t> tokens;
};

model::ModelShape llama_shape() {
  auto s = model::parse_dims(
      "n_embd=256,n_layer=2,n_head=4,n_head_kv=2,n_ff=512,n_vocab=256,"
      "context=64");
  EXPECT_TRUE(s.is_ok());
  return *s;
}

TEST(KvCache, HostReferenceGivesLlamaCppsTokensForEachCacheType) {
  auto bytes = synthetic_bytes(llama_shape(), FileType::f32, 1);
  auto m = model::load_model(model::parse_gguf(bytes).value(), bytes).value();
  const LlamaRun runs[] = {
      {both(TensorType::f32), {64, 184, 35, 2, 3, 197, 162, 22, 171}},
      {both(TensorType::f16), {64, 184, 35, 2, 3, 197, 162, 22, 171}},
      {both(TensorType::q8_0), {64, 184, 35, 2, 3, 197, 162, 22, 171}},
      {both(TensorType::q4_0), {64, 218, 155, 167, 109, 129, 109, 129, 119}},
      {both(TensorType::q4_1), {64, 47, 234, 216, 122, 2, 28, 5, 102}},
      {both(TensorType::q5_0), {64, 184, 35, 2, 3, 231, 134, 150, 3}},
      {both(TensorType::q5_1), {64, 47, 234, 216, 122, 226, 63, 252, 43}},
      {both(TensorType::iq4_nl), {64, 184, 170, 143, 253, 233, 242, 203, 165}},
      {{TensorType::q8_0, TensorType::f16}, {64, 184, 35, 2, 3, 197, 162, 22, 171}},
  };
  for (const auto& run : runs) {
    SCOPED_TRACE(planner::to_string(run.kv));
    EXPECT_EQ(greedy(m, run.kv), run.tokens);
  }
}

// Every cache type stays close to an f32 cache's logits and is not bit for bit the same (its rows
// really are rounded); the 8-bit cache is closer than the 4-bit ones.
TEST(KvCache, QuantizedCachesRoundTheirRows) {
  auto bytes = synthetic_bytes(llama_shape(), FileType::q8_0, 1);
  auto m = model::load_model(model::parse_gguf(bytes).value(), bytes).value();
  auto nmse_vs_f32 = [&](KvPrecision kv) {
    // Teacher-forced: the same tokens for both caches, so the steps compare like with like.
    auto f32 = reference::Decoder::create(m, {2, KvPrecision::f32, 64}).value();
    auto other = reference::Decoder::create(m, {2, kv, 64}).value();
    double num = 0, den = 0;
    for (int32_t t : {1, 7, 42, 3, 64, 184, 35, 2}) {
      auto a = f32->step(t).value();
      std::vector<float> ref(a.begin(), a.end());
      auto b = other->step(t).value();
      for (size_t i = 0; i < ref.size(); ++i) {
        num += (b[i] - ref[i]) * double(b[i] - ref[i]);
        den += double(ref[i]) * ref[i];
      }
    }
    return num / den;
  };
  const double q8 = nmse_vs_f32(both(TensorType::q8_0));
  for (TensorType t : {TensorType::q8_0, TensorType::q4_0, TensorType::q4_1, TensorType::q5_0,
                       TensorType::q5_1, TensorType::iq4_nl}) {
    SCOPED_TRACE(model::to_string(t));
    const double e = nmse_vs_f32(both(t));
    EXPECT_GT(e, 0.0);
    EXPECT_LT(e, 5e-2);
    if (t != TensorType::q8_0) {
      EXPECT_LT(q8, e);
    }
  }
  const double mixed = nmse_vs_f32({TensorType::f16, TensorType::q8_0});
  EXPECT_GT(mixed, 0.0);
  EXPECT_LT(mixed, 1e-3);
}

}  // namespace
}  // namespace gauntlet::engine::test
