// The cpu device's fast products (engine/cpu): each integer dot kernel against its definition
// (the weights and the 8-bit activations decoded, summed in double), and the whole decode against
// the exact host reference on Q8_0, Q4_0 and Q4_K_M files (Q4_K and Q6_K tensors).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <random>
#include <set>

#include "backends/catalog.h"
#include "backends/host/host_device.h"
#include "core/half.h"
#include "engine/cpu/attention_rows.h"
#include "engine/cpu/dot_kernels.h"
#include "engine/cpu/lattice_dots.h"
#include "engine/cpu/quantized_acts.h"
#include "engine/cpu/round_acts.h"
#include "engine/cpu/swiglu.h"
#include "engine/device/profile_check.h"
#include "engine/host_decoder.h"
#include "engine/make_decoder.h"
#include "engine/model/imatrix.h"
#include "engine/reference/decoder.h"
#include "hwy/targets.h"
#include "reference_checks.h"
#include "test_models.h"

namespace gauntlet::engine {
namespace {

using model::FileType;
using model::TensorType;

std::vector<float> random_floats(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> dist(0.0f, 1.0f);
  std::vector<float> v(n);
  for (auto& x : v) x = dist(rng);
  return v;
}

// Token t's activation i as the kernels see it: its code times its block's scale.
double act_value(const cpu::QuantizedActs& a, size_t t, uint64_t i) {
  const uint64_t block = a.kind == cpu::ActKind::q8_0 ? 32 : 256;
  return static_cast<double>(a.codes(t)[i]) * a.scale(t)[i / block];
}

// llama.cpp's quantize_row_q8_0 as its x86 CPU backend runs it (ggml-cpu/arch/x86/quants.c,
// rounding to nearest even), and quantize_row_q8_K_ref (ggml-quants.c), one element at a time.
void q8_0_definition(const float* x, uint64_t n, int8_t* qs, float* d, int16_t* sums) {
  for (uint64_t b = 0; b < n / 32; ++b) {
    float amax = 0;
    for (int j = 0; j < 32; ++j) amax = std::max(amax, std::fabs(x[b * 32 + j]));
    const float scale = amax / 127.0f;
    const float inv = scale != 0 ? 1.0f / scale : 0.0f;
    int sum = 0;
    for (int j = 0; j < 32; ++j) {
      qs[b * 32 + j] = static_cast<int8_t>(std::nearbyint(x[b * 32 + j] * inv));
      sum += qs[b * 32 + j];
    }
    d[b] = core::f16_to_f32(core::f32_to_f16(scale));
    sums[b] = static_cast<int16_t>(sum);
  }
}

void q8_K_definition(const float* x, uint64_t n, int8_t* qs, float* d, int16_t* sums) {
  for (uint64_t b = 0; b < n / 256; ++b) {
    const float* xb = x + b * 256;
    float max = 0, amax = 0;
    for (int j = 0; j < 256; ++j) {
      if (std::fabs(xb[j]) > amax) {
        amax = std::fabs(xb[j]);
        max = xb[j];
      }
    }
    const float iscale = amax == 0 ? 0.0f : -127.0f / max;
    for (int j = 0; j < 256; ++j) {
      qs[b * 256 + j] =
          static_cast<int8_t>(std::min(127, static_cast<int>(std::nearbyint(iscale * xb[j]))));
    }
    for (int j = 0; j < 16; ++j) {
      int sum = 0;
      for (int i = 0; i < 16; ++i) sum += qs[b * 256 + j * 16 + i];
      sums[b * 16 + j] = static_cast<int16_t>(sum);
    }
    d[b] = amax == 0 ? 0.0f : 1 / iscale;
  }
}

TEST(CpuActs, SimdRoundingIsTheDefinition) {
  const uint64_t n = 1024;
  auto x = random_floats(n, 5);
  std::fill(x.begin() + 256, x.begin() + 512, 0.0f);  // an all-zero block of each kind
  x[600] = -50.0f;                                    // a negative maximum,
  x[700] = 50.0f;                                     // tied with a later positive one
  for (const bool k : {false, true}) {
    const uint64_t scales = k ? n / 256 : n / 32, sums = k ? n / 16 : n / 32;
    std::vector<int8_t> q(n), q_want(n);
    std::vector<float> d(scales), d_want(scales);
    std::vector<int16_t> s(sums), s_want(sums);
    (k ? cpu::round_q8_K : cpu::round_q8_0)(x.data(), n, q.data(), d.data(), s.data());
    (k ? q8_K_definition : q8_0_definition)(x.data(), n, q_want.data(), d_want.data(),
                                            s_want.data());
    EXPECT_EQ(q, q_want) << (k ? "q8_K" : "q8_0");
    EXPECT_EQ(d, d_want) << (k ? "q8_K" : "q8_0");
    EXPECT_EQ(s, s_want) << (k ? "q8_K" : "q8_0");
  }
}

// Whether this processor must run the interleaved q4_0 kernels: any x86-64 with Highway's AVX2
// target (AVX2, FMA, F16C, BMI2), as CI's machines are. Elsewhere the tests that need them skip.
bool interleaved_kernels_expected() {
#if defined(__x86_64__)
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
         __builtin_cpu_supports("f16c") && __builtin_cpu_supports("bmi2");
#else
  return cpu::interleaved_kernels();
#endif
}

class CpuKernel : public ::testing::TestWithParam<TensorType> {};

// The rows in their file's layout against six tokens: the kernel's sums are the decoded rows'
// against the rounded activations.
void expect_kernel_equals_decoded(TensorType type) {
  const uint64_t n = 512, rows = 5;
  const size_t tokens = 6;  // one group of four and one of two
  const auto kind = cpu::fast_kernel_acts(type);
  ASSERT_TRUE(kind.has_value());
  const uint64_t rb = model::row_bytes(type, n);
  std::vector<std::byte> w(rows * rb);
  std::vector<std::vector<float>> decoded(rows, std::vector<float>(n));
  for (uint64_t r = 0; r < rows; ++r) {
    const auto f = random_floats(n, static_cast<uint32_t>(r + 1));
    model::quantize_row(type, f.data(), w.data() + r * rb, n);
    model::dequantize_row(type, w.data() + r * rb, decoded[r].data(), n);
  }
  const uint64_t stride = n + 64;  // activations and outputs share each token's block
  std::vector<float> act(tokens * stride);
  const auto x = random_floats(tokens * stride, 99);
  std::copy(x.begin(), x.end(), act.begin());
  reference::ThreadPool pool(2);
  cpu::QuantizedActs q;
  cpu::quantize_acts(*kind, act.data(), stride, tokens, n, pool, q);
  std::vector<float> out(tokens * stride, -1.0f);
  // Rows in two ranges, as two threads would take them.
  cpu::fast_rows(type, w.data(), rb, 0, 2, q, out.data() + n, stride);
  cpu::fast_rows(type, w.data(), rb, 2, rows, q, out.data() + n, stride);
  for (size_t t = 0; t < tokens; ++t) {
    for (uint64_t r = 0; r < rows; ++r) {
      double want = 0, exact = 0, scale = 0;
      for (uint64_t i = 0; i < n; ++i) {
        want += decoded[r][i] * act_value(q, t, i);
        exact += static_cast<double>(decoded[r][i]) * act[t * stride + i];
        scale += std::fabs(decoded[r][i] * act[t * stride + i]);
      }
      const double got = out[t * stride + n + r];
      // The kernel's integer sums are exact; only the float scaling rounds.
      EXPECT_NEAR(got, want, 1e-5 * scale) << "token " << t << " row " << r;
      // And the 8-bit activations stay close to the float ones.
      EXPECT_NEAR(got, exact, 2e-2 * scale) << "token " << t << " row " << r;
    }
  }
}

TEST_P(CpuKernel, EqualsDecodedDotProducts) { expect_kernel_equals_decoded(GetParam()); }

// A single token takes its rows four at a time (a decode step's tiles), several tokens two rows
// by four tokens: the same sums, bit for bit.
TEST_P(CpuKernel, OneTokenEqualsItsPlaceInATile) {
  const TensorType type = GetParam();
  const uint64_t n = 512, rows = 9;
  const auto kind = cpu::fast_kernel_acts(type).value();
  const uint64_t rb = model::row_bytes(type, n);
  std::vector<std::byte> w(rows * rb);
  for (uint64_t r = 0; r < rows; ++r) {
    model::quantize_row(type, random_floats(n, static_cast<uint32_t>(r + 7)).data(),
                        w.data() + r * rb, n);
  }
  const auto x = random_floats(3 * n, 42);
  reference::ThreadPool pool(1);
  cpu::QuantizedActs three, one;
  cpu::quantize_acts(kind, x.data(), n, 3, n, pool, three);
  cpu::quantize_acts(kind, x.data() + n, n, 1, n, pool, one);  // the middle token
  std::vector<float> tile(3 * rows), single(rows);
  cpu::fast_rows(type, w.data(), rb, 0, rows, three, tile.data(), rows);
  cpu::fast_rows(type, w.data(), rb, 0, rows, one, single.data(), rows);
  for (uint64_t r = 0; r < rows; ++r) EXPECT_EQ(single[r], tile[rows + r]) << "row " << r;
}

INSTANTIATE_TEST_SUITE_P(Types, CpuKernel,
                         ::testing::Values(TensorType::q8_0, TensorType::q4_0, TensorType::mxfp4,
                                           TensorType::q4_K, TensorType::q6_K),
                         [](const auto& info) {
                           return std::string(model::to_string(info.param));
                         });

TEST(CpuKernel, OnlyItsTypesHaveKernels) {
  EXPECT_EQ(cpu::fast_kernel_acts(TensorType::q8_0), cpu::ActKind::q8_0);
  EXPECT_EQ(cpu::fast_kernel_acts(TensorType::mxfp4), cpu::ActKind::q8_0);
  EXPECT_EQ(cpu::fast_kernel_acts(TensorType::q4_K), cpu::ActKind::q8_K);
  EXPECT_EQ(cpu::fast_kernel_acts(TensorType::iq2_xxs), cpu::ActKind::q8_K);
  EXPECT_EQ(cpu::fast_kernel_acts(TensorType::iq4_nl), cpu::ActKind::q8_0);
  EXPECT_EQ(cpu::fast_kernel_acts(TensorType::nvfp4), cpu::ActKind::q8_0);
  EXPECT_EQ(cpu::fast_kernel_acts(TensorType::q1_0), cpu::ActKind::q8_0);
  EXPECT_EQ(cpu::fast_kernel_acts(TensorType::tq2_0), cpu::ActKind::q8_K);
  EXPECT_FALSE(cpu::fast_kernel_acts(TensorType::f32).has_value());
  EXPECT_FALSE(cpu::fast_kernel_acts(TensorType::q5_K).has_value());
  EXPECT_NE(std::string(cpu::simd_target()), "");
}

// The i-quants' kernels (lattice_dots.h), rows quantized with an even importance row (iq2_xxs,
// iq2_xs and iq1_s need one), and tq1_0, tq2_0, nvfp4, q1_0 and q2_0's: against Q8_K activations
// (Q8_0 for iq4_nl, nvfp4, q1_0 and q2_0, as llama.cpp's vec_dot_type), the integer sums times
// the scales are the decoded rows' dot products with the decoded activations (code * d) to float
// rounding, rows in two ranges as two threads take them, and lattice_row_dot gives each bit for
// bit.
class CpuLatticeKernel : public ::testing::TestWithParam<TensorType> {};

TEST_P(CpuLatticeKernel, EqualsDecodedDotProducts) {
  const TensorType type = GetParam();
  const uint64_t n = 512, rows = 5;
  const size_t tokens = 3;
  const auto kind = cpu::fast_kernel_acts(type);
  const bool q8_0 = type == TensorType::iq4_nl || type == TensorType::nvfp4 ||
                    type == TensorType::q1_0 || type == TensorType::q2_0;
  ASSERT_EQ(kind, q8_0 ? cpu::ActKind::q8_0 : cpu::ActKind::q8_K);
  const uint64_t rb = model::row_bytes(type, n);
  const std::vector<float> importance(n, 1.0f);
  std::vector<std::byte> w(rows * rb);
  std::vector<std::vector<float>> decoded(rows, std::vector<float>(n));
  for (uint64_t r = 0; r < rows; ++r) {
    const auto f = random_floats(n, static_cast<uint32_t>(r + 21));
    model::quantize_row(type, f.data(), w.data() + r * rb, n, importance.data());
    model::dequantize_row(type, w.data() + r * rb, decoded[r].data(), n);
  }
  const auto x = random_floats(tokens * n, 77);
  reference::ThreadPool pool(1);
  cpu::QuantizedActs q;
  cpu::quantize_acts(*kind, x.data(), n, tokens, n, pool, q);
  std::vector<float> out(tokens * rows, -1.0f);
  cpu::fast_rows(type, w.data(), rb, 0, 2, q, out.data(), rows);
  cpu::fast_rows(type, w.data(), rb, 2, rows, q, out.data(), rows);
  for (size_t t = 0; t < tokens; ++t) {
    for (uint64_t r = 0; r < rows; ++r) {
      double want = 0, scale = 0;
      for (uint64_t i = 0; i < n; ++i) {
        const double p = decoded[r][i] * act_value(q, t, i);
        want += p;
        scale += std::fabs(p);
      }
      EXPECT_GT(scale, 0.0);
      EXPECT_NEAR(out[t * rows + r], want, 1e-5 * scale) << "token " << t << " row " << r;
      const auto* row = reinterpret_cast<const uint8_t*>(w.data() + r * rb);
      EXPECT_EQ(cpu::lattice_row_dot(type, row, q, t), out[t * rows + r]);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Types, CpuLatticeKernel,
    ::testing::Values(TensorType::iq2_xxs, TensorType::iq2_xs, TensorType::iq2_s,
                      TensorType::iq3_xxs, TensorType::iq3_s, TensorType::iq1_s, TensorType::iq1_m,
                      TensorType::iq4_nl, TensorType::iq4_xs, TensorType::nvfp4, TensorType::q1_0,
                      TensorType::q2_0, TensorType::tq1_0, TensorType::tq2_0),
    [](const auto& info) { return std::string(model::to_string(info.param)); });

// q4_0, q8_0, mxfp4 and q4_K rows interleaved eight at a time (interleaved.h): the same sums as the
// rows decoded, groups split as two threads take them, and a token alone gives its place in a tile
// bit for bit.
class CpuInterleaved : public ::testing::TestWithParam<TensorType> {};

void expect_interleaved_equals_decoded(TensorType type) {
  const uint64_t n = 512, rows = 16;
  const size_t tokens = 6;
  const uint64_t rb = model::row_bytes(type, n);
  std::vector<std::byte> w(rows * rb);
  std::vector<std::vector<float>> decoded(rows, std::vector<float>(n));
  for (uint64_t r = 0; r < rows; ++r) {
    const auto f = random_floats(n, static_cast<uint32_t>(r + 3));
    model::quantize_row(type, f.data(), w.data() + r * rb, n);
  }
  if (type == TensorType::q8_0) {
    // A code of -128 (ggml's quantizer never writes one; a file may hold it): |w| is 128.
    w[2 + 5] = std::byte{0x80};
  }
  if (type == TensorType::mxfp4) {
    // E8M0 scales 0 and 1, whose halves are subnormal, in every block of rows 0 and 9.
    for (uint64_t b = 0; b < n / 32; ++b) {
      w[b * 17] = std::byte{0};
      w[9 * rb + b * 17] = std::byte{1};
    }
  }
  for (uint64_t r = 0; r < rows; ++r) {
    model::dequantize_row(type, w.data() + r * rb, decoded[r].data(), n);
  }
  EXPECT_TRUE(cpu::interleaves(type, "blk.3.ffn_up.weight", rows, 1));
  EXPECT_TRUE(cpu::interleaves(type, "blk.3.ssm_in.weight", rows, 1));  // a recurrent projection
  EXPECT_TRUE(cpu::interleaves(type, "blk.3.shortconv.out_proj.weight", rows, 1));
  EXPECT_FALSE(cpu::interleaves(type, "blk.3.ffn_up.weight", rows + 4, 1));  // not whole groups
  EXPECT_FALSE(cpu::interleaves(type, "blk.3.ffn_up_exps.weight", rows, 4));
  EXPECT_FALSE(cpu::interleaves(type, "token_embd.weight", rows, 1));
  EXPECT_FALSE(cpu::interleaves(TensorType::q6_K, "blk.3.ffn_up.weight", rows, 1));
  std::vector<std::byte> laid(w.size());
  cpu::interleave(type, w.data(), rows, n, laid.data());
  const cpu::InterleavedMatrix m(type, rows, n, laid.data());
  const cpu::ActKind kind = *cpu::fast_kernel_acts(type);
  const auto x = random_floats(tokens * n, 5);
  reference::ThreadPool pool(2);
  cpu::QuantizedActs q, one;
  cpu::quantize_acts(kind, x.data(), n, tokens, n, pool, q);
  cpu::quantize_acts(kind, x.data() + n, n, 1, n, pool, one);  // token 1
  std::vector<float> out(tokens * rows, -1.0f), single(rows, -1.0f);
  cpu::interleaved_rows(m, 0, 1, q, out.data(), rows);
  cpu::interleaved_rows(m, 1, 2, q, out.data(), rows);
  cpu::interleaved_rows(m, 0, 2, one, single.data(), rows);
  for (size_t t = 0; t < tokens; ++t) {
    for (uint64_t r = 0; r < rows; ++r) {
      double want = 0, scale = 0;
      for (uint64_t i = 0; i < n; ++i) {
        want += decoded[r][i] * act_value(q, t, i);
        scale += std::fabs(decoded[r][i] * act_value(q, t, i));
      }
      EXPECT_NEAR(out[t * rows + r], want, 1e-5 * scale) << "token " << t << " row " << r;
    }
  }
  for (uint64_t r = 0; r < rows; ++r) EXPECT_EQ(single[r], out[rows + r]) << "row " << r;
  // Both groups in one call (q4_0 on AVX-512 VNNI takes them as one pair of 16 rows): the same
  // sums, bit for bit.
  std::vector<float> both(tokens * rows, -1.0f);
  cpu::interleaved_rows(m, 0, 2, q, both.data(), rows);
  EXPECT_EQ(both, out);
}

TEST_P(CpuInterleaved, EqualsDecodedDotProducts) {
  if (!interleaved_kernels_expected())
    GTEST_SKIP() << "the interleaved kernels need 8-float vectors (AVX2 and up), not "
                 << cpu::simd_target();
  ASSERT_TRUE(cpu::interleaved_kernels()) << cpu::simd_target();
  expect_interleaved_equals_decoded(GetParam());
}

// The attention's row loops: a tile of 1..4 queries gives each query the sums it gets alone, bit
// for bit (so a pass's tokens do not depend on their neighbours), and those are the dot products
// and weighted sums (in double) to float rounding. hd 72 leaves a tail past the vector lanes.
TEST(CpuAttentionRows, TilesOfQueriesGiveEachQuerysOwnSums) {
  const uint32_t n = 13, hd = 72;
  const auto rows = random_floats(uint64_t{n} * hd, 21);
  const auto q = random_floats(4 * hd, 22);
  const auto weights = random_floats(4 * n, 23);
  for (uint32_t nq = 1; nq <= 4; ++nq) {
    SCOPED_TRACE(nq);
    std::vector<const float*> queries;
    std::vector<std::vector<float>> outs(nq, std::vector<float>(hd, 0.5f));
    std::vector<float*> out_ptrs;
    for (uint32_t k = 0; k < nq; ++k) {
      queries.push_back(q.data() + k * hd);
      out_ptrs.push_back(outs[k].data());
    }
    std::vector<float> dots(nq * n);
    cpu::dot_rows(queries, rows.data(), n, hd, dots.data());
    cpu::add_rows(weights.data(), out_ptrs, rows.data(), n, hd);
    for (uint32_t k = 0; k < nq; ++k) {
      std::vector<float> alone(n), out_alone(hd, 0.5f);
      const float* qk = queries[k];
      float* ok = out_alone.data();
      cpu::dot_rows({&qk, 1}, rows.data(), n, hd, alone.data());
      cpu::add_rows(weights.data() + k * n, {&ok, 1}, rows.data(), n, hd);
      EXPECT_EQ(std::vector<float>(dots.begin() + k * n, dots.begin() + (k + 1) * n), alone);
      EXPECT_EQ(outs[k], out_alone);
      for (uint32_t j = 0; j < n; ++j) {
        double dot = 0;
        for (uint32_t i = 0; i < hd; ++i) dot += double{qk[i]} * rows[j * hd + i];
        EXPECT_NEAR(alone[j], dot, 1e-5 * hd) << "row " << j;
      }
      for (uint32_t i = 0; i < hd; ++i) {
        double sum = 0.5;
        for (uint32_t j = 0; j < n; ++j) sum += double{weights[k * n + j]} * rows[j * hd + i];
        EXPECT_NEAR(out_alone[i], sum, 1e-5 * n) << "element " << i;
      }
    }
  }
}

// SwiGLU in SIMD against the exact silu(g) * up, to float rounding, with gates past Highway's
// exp range (-100: silu is -0; 100: g itself); 37 leaves a tail past the vector lanes.
TEST(CpuSwiglu, IsSiluTimesUpToFloatRounding) {
  auto gate = random_floats(37, 31);
  for (auto& g : gate) g *= 4.0f;
  gate[3] = -100.0f;
  gate[4] = 100.0f;
  gate[36] = -100.0f;
  const auto up = random_floats(37, 32);
  auto fast = gate;
  cpu::swiglu(fast.data(), up.data(), 37);
  for (size_t i = 0; i < gate.size(); ++i) {
    const double g = gate[i], want = g / (1.0 + std::exp(-g)) * up[i];
    EXPECT_NEAR(fast[i], want, 2e-6 * std::max(1.0, std::abs(want))) << "gate " << g;
  }
}

// Highway's per-target pattern: every instruction set this build compiles and this processor
// runs (here AVX3_DL with VNNI, AVX3, AVX2, SSE4, SSSE3 and the scalar one; NEON under
// qemu-aarch64, ci/arm64-qemu.sh), each in turn, gives
// the decoded sums, in the file's layout and interleaved where the target interleaves.
TEST(CpuTargets, EveryTargetThisProcessorRunsGivesTheDecodedSums) {
  const auto targets = hwy::SupportedAndGeneratedTargets();
  ASSERT_FALSE(targets.empty());
  std::string names;
  for (const auto target : targets)
    names += std::string(names.empty() ? "" : " ") + hwy::TargetName(target);
  std::printf("targets this processor runs: %s\n", names.c_str());
  for (const auto target : targets) {
    hwy::SetSupportedTargetsForTest(target);
    SCOPED_TRACE(hwy::TargetName(target));
    EXPECT_EQ(std::string(cpu::simd_target()), hwy::TargetName(target));
    for (const TensorType type : {TensorType::q8_0, TensorType::q4_0, TensorType::mxfp4,
                                  TensorType::q4_K, TensorType::q6_K}) {
      SCOPED_TRACE(model::to_string(type));
      expect_kernel_equals_decoded(type);
      if (cpu::interleaved_kernels() && cpu::has_interleaved_layout(type)) {
        expect_interleaved_equals_decoded(type);
      }
    }
  }
  hwy::SetSupportedTargetsForTest(0);
#if defined(__x86_64__)
  if (__builtin_cpu_supports("avx512vnni") && __builtin_cpu_supports("avx512vbmi")) {
    EXPECT_EQ(std::string(cpu::simd_target()), "AVX3_DL");  // the VNNI products are dispatched
  }
#endif
}

INSTANTIATE_TEST_SUITE_P(Types, CpuInterleaved,
                         ::testing::Values(TensorType::q4_0, TensorType::q8_0, TensorType::mxfp4,
                                           TensorType::q4_K),
                         [](const auto& info) {
                           return std::string(model::to_string(info.param));
                         });

class CpuDecode : public ::testing::TestWithParam<FileType> {};

TEST_P(CpuDecode, MatchesTheExactReference) {
  const auto shape = model::preset_shape("test-gqa").value();
  auto bytes = test::synthetic_bytes(shape, GetParam(), 11);
  auto m = model::load_model(model::parse_gguf(bytes).value(), bytes).value();
  if (GetParam() == FileType::q4_K_M) {
    std::set<TensorType> types;
    for (const auto& t : m.tensors) types.insert(t.type);
    EXPECT_TRUE(types.count(TensorType::q4_K) && types.count(TensorType::q6_K));
  }
  const auto r = test::expect_fast_products_within_bound(m);
  reference::DecodeOptions fast_options{2, planner::KvPrecision::f32, 32};
  fast_options.products = cpu::make_fast_products();
  auto fast = reference::Decoder::create(m, fast_options).value();
  EXPECT_EQ(r.nmse_bound, device::kQ8ActivationsNmseBound);
  std::printf("%s: logits NMSE %.3e, tokens %s %s\n", model::to_string(GetParam()), r.logits_nmse,
              r.tokens_match ? "match" : "part:", r.note.c_str());

  // A pass of several tokens gives the token-by-token logits bit for bit.
  fast_options.micro_batch = 5;
  auto batched = reference::Decoder::create(m, fast_options).value();
  std::vector<BatchToken> batch;
  for (int32_t t : {1, 2, 3, 4, 9, 17, 33}) batch.push_back({t, 0, true});
  auto passes = batched->forward(batch);
  ASSERT_TRUE(passes.is_ok()) << passes.error().describe();
  fast->reset();
  for (size_t i = 0; i < batch.size(); ++i) {
    auto one = fast->step(batch[i].token);
    ASSERT_TRUE(one.is_ok());
    EXPECT_TRUE(std::equal(one->begin(), one->end(), passes->begin() + i * shape.n_vocab))
        << "token " << i;
  }
}

// TQ1_0 and TQ2_0: the ternary matrices have no fast kernel and take the exact products; the
// output (q6_K) and the token table (q4_K) take the fast ones.
INSTANTIATE_TEST_SUITE_P(Files, CpuDecode,
                         ::testing::Values(FileType::q8_0, FileType::q4_0, FileType::q4_K_M,
                                           FileType::tq1_0, FileType::tq2_0),
                         [](const auto& info) {
                           return std::string(model::to_string(info.param));
                         });

// The i-quant files, made with an importance matrix as llama-quantize --imatrix makes them: a
// qwen35moe IQ2_M file (iq2_s experts) and a llama IQ3_XXS file. Their lattice matrices take the
// lattice kernels (lattice_dots.h) as the rest take theirs: the greedy tokens and logits within
// the bound, and
// passes of 32 and 512 tokens give the token-by-token logits bit for bit.
model::Imatrix even_importance(const model::ModelShape& shape) {
  model::Imatrix m;
  for (const auto& t : model::model_tensors(shape, FileType::f32)) {
    if (t.is_vector || t.ne.size() < 2) continue;
    std::vector<float> v(t.ne[0] * (t.ne.size() > 2 ? t.ne[2] : 1));
    for (size_t i = 0; i < v.size(); ++i) v[i] = 1.0f + static_cast<float>(i % 7) * 0.25f;
    m.values[t.name] = std::move(v);
  }
  return m;
}

TEST(CpuDecode, IquantFilesMatchTheExactReferenceInPassesOf1And32And512) {
  const std::pair<const char*, FileType> files[] = {
      {"arch=qwen35moe,n_expert=4,n_expert_used=2,n_ff_exp=256,n_ff_shexp=256,n_layer=2,"
       "full_attention_interval=2,n_embd=256,n_head=2,n_head_kv=1,head_dim=256,rope_dim=64,"
       "n_ff=256,n_vocab=256,context=640,ssm_state=64,ssm_groups=2,ssm_heads=4,ssm_inner=256",
       FileType::iq2_m},
      {"arch=llama,n_embd=256,n_layer=2,n_head=4,n_head_kv=2,n_ff=512,n_vocab=256,context=640",
       FileType::iq3_xxs}};
  for (const auto& [dims, format] : files) {
    SCOPED_TRACE(model::to_string(format));
    const auto shape = model::parse_dims(dims).value();
    const auto imatrix = even_importance(shape);
    auto w = model::synthetic_writer(shape, format, 11, {}, &imatrix);
    ASSERT_TRUE(w.is_ok()) << w.error().describe();
    auto bytes = w->to_bytes().value();
    auto m = model::load_model(model::parse_gguf(bytes).value(), bytes).value();
    std::set<TensorType> types;
    for (const auto& t : m.tensors) types.insert(t.type);
    EXPECT_TRUE(types.count(model::base_type(format)));
    test::expect_fast_products_within_bound(m);
    std::vector<BatchToken> prompt;
    for (int32_t i = 0; i < 520; ++i) prompt.push_back({(i * 37 + 11) % 256, 0, true});
    reference::DecodeOptions one_options{2, planner::KvPrecision::f32, 0};
    one_options.products = cpu::make_fast_products();
    auto one = reference::Decoder::create(m, one_options).value();
    std::vector<float> steps;
    for (const auto& t : prompt) {
      auto logits = one->step(t.token);
      ASSERT_TRUE(logits.is_ok());
      steps.insert(steps.end(), logits->begin(), logits->end());
    }
    for (uint32_t micro_batch : {32u, 512u}) {
      SCOPED_TRACE("ub " + std::to_string(micro_batch));
      reference::DecodeOptions options = one_options;
      options.micro_batch = micro_batch;
      options.products = cpu::make_fast_products();
      auto batched = reference::Decoder::create(m, options).value();
      auto passes = batched->forward(prompt);
      ASSERT_TRUE(passes.is_ok()) << passes.error().describe();
      ASSERT_EQ(passes->size(), steps.size());
      EXPECT_TRUE(std::equal(steps.begin(), steps.end(), passes->begin()));
    }
  }
}

// The logits of steps of tokens 5, 9 and 100 from a model loaded on the cpu device and from the
// in-memory decoder with the fast products over the same file, side by side.
std::vector<std::pair<std::vector<float>, std::vector<float>>> cpu_beside_in_memory(
    backends::Device& device, const loader::DeviceModel& loaded, const model::GgufFile& file) {
  reference::DecodeOptions options{2, planner::KvPrecision::f32, 16};
  auto on_device = HostDeviceDecoder::create(device, loaded, options, true);
  EXPECT_TRUE(on_device.is_ok()) << on_device.error().describe();
  if (!on_device) return {};
  auto m = model::load_model(file.info(), file.bytes()).value();
  options.products = cpu::make_fast_products();
  auto in_memory = reference::Decoder::create(m, options).value();
  std::vector<std::pair<std::vector<float>, std::vector<float>>> out;
  for (int32_t t : {5, 9, 100}) {
    auto a = (*on_device)->step(t);
    auto b = in_memory->step(t);
    EXPECT_TRUE(a.is_ok() && b.is_ok());
    if (!a || !b) return {};
    out.emplace_back(std::vector<float>(a->begin(), a->end()),
                     std::vector<float>(b->begin(), b->end()));
  }
  return out;
}

TEST(CpuDevice, IsAddressedListedAndDecodesWithTheFastProducts) {
  const auto id = core::DeviceId::parse("cpu");
  ASSERT_TRUE(id.has_value());
  EXPECT_TRUE(backends::host::is_cpu(*id));
  EXPECT_EQ(id->to_string(), "cpu");
  // Listed beside the host, through the host API.
  auto listed = backends::enumerate(core::Api::host, {});
  ASSERT_TRUE(listed.is_ok());
  ASSERT_EQ(listed->size(), 2u);
  EXPECT_EQ((*listed)[0].id.to_string(), "host");
  EXPECT_EQ((*listed)[1].id, *id);
  // What each computes with is in its description, for the decode, the loader and the checks.
  EXPECT_EQ((*listed)[0].products, core::Products::exact);
  EXPECT_EQ((*listed)[1].products, core::Products::int8_simd);
  auto device = backends::open(*id, {});
  ASSERT_TRUE(device.is_ok()) << device.error().describe();
  EXPECT_EQ((*device)->name(), "cpu");

  auto shape = model::preset_shape("test-gqa").value();
  auto path = test::temp_path("cpudev.gguf");
  // Q6_K: no matrix interleaved (interleaved.h), so the same sums in the same order.
  ASSERT_TRUE(model::write_synthetic_model(shape, FileType::q6_K, 3, path, true).is_ok());
  auto file = model::GgufFile::open(path).value();
  auto loaded = loader::load_to_device(*file, **device, {4096});
  ASSERT_TRUE(loaded.is_ok()) << loaded.error().describe();
  for (const auto& t : loaded->tensors) EXPECT_FALSE(t.interleaved) << t.info.name;
  const auto steps = cpu_beside_in_memory(**device, *loaded, *file);
  EXPECT_EQ(steps.size(), 3u);
  for (const auto& [a, b] : steps) EXPECT_EQ(a, b);
  std::filesystem::remove(path);
}

// On the cpu device the loader lays the q4_0, q8_0 and q4_K projections out interleaved (as
// llama.cpp repacks q4_0 and q4_K): the embedding table keeps the file's layout, the exact products
// refuse the model, and the fast ones give the in-memory decoder's logits to float rounding.
class CpuDeviceInterleaved : public ::testing::TestWithParam<FileType> {};

TEST_P(CpuDeviceInterleaved, LoadsAndDecodesAsTheFileLayout) {
  if (!interleaved_kernels_expected())
    GTEST_SKIP() << "the interleaved kernels need 8-float vectors (AVX2 and up), not "
                 << cpu::simd_target();
  ASSERT_TRUE(cpu::interleaved_kernels()) << cpu::simd_target();
  auto device = backends::open(*core::DeviceId::parse("cpu"), {});
  ASSERT_TRUE(device.is_ok()) << device.error().describe();
  auto shape = model::preset_shape("test-gqa").value();
  auto path = test::temp_path("cpu_interleaved.gguf");
  ASSERT_TRUE(model::write_synthetic_model(shape, GetParam(), 5, path, true).is_ok());
  auto file = model::GgufFile::open(path).value();
  // A small staging chunk: the tensors go in several slices of whole groups (q8_0's ffn_down
  // groups are 4352 bytes).
  auto loaded = loader::load_to_device(*file, **device, {8192});
  ASSERT_TRUE(loaded.is_ok()) << loaded.error().describe();
  std::set<std::string> interleaved;
  for (const auto& t : loaded->tensors) {
    if (t.interleaved) interleaved.insert(t.info.name);
  }
  EXPECT_TRUE(interleaved.count("blk.0.attn_q.weight"));
  // Q4_K_M's ffn_down of the first layers is q6_K, which keeps the file's layout.
  EXPECT_EQ(interleaved.count("blk.1.ffn_down.weight"), GetParam() == FileType::q4_K_M ? 0u : 1u);
  EXPECT_FALSE(interleaved.count("token_embd.weight"));
  reference::DecodeOptions exact{2, planner::KvPrecision::f32, 16};
  EXPECT_FALSE(HostDeviceDecoder::create(**device, *loaded, exact).is_ok());
  const auto steps = cpu_beside_in_memory(**device, *loaded, *file);
  EXPECT_EQ(steps.size(), 3u);
  for (const auto& [a, b] : steps) {
    ASSERT_EQ(a.size(), b.size());
    double err = 0, norm = 0;
    for (size_t i = 0; i < a.size(); ++i) {
      err += (a[i] - b[i]) * (a[i] - b[i]);
      norm += b[i] * b[i];
    }
    EXPECT_GT(norm, 0.0);
    EXPECT_LT(err / norm, 1e-10);
  }
  std::filesystem::remove(path);
}

INSTANTIATE_TEST_SUITE_P(Files, CpuDeviceInterleaved,
                         ::testing::Values(FileType::q4_0, FileType::q8_0, FileType::q4_K_M),
                         [](const auto& info) {
                           return std::string(model::to_string(info.param));
                         });

// llama.cpp's first-token logits (fixtures/llama_cpp_logits/README.md) for a file whose every
// layer matrix is nvfp4: the cpu device's are within 1e-12 (NMSE; the same bits when written). With
// the generic function's float order (one integer sum per sub-block of 16) they were 1.3e-4 away:
// llama.cpp's x86 builds sum nvfp4 in eight lanes of four elements.
TEST(CpuDevice, Nvfp4LogitsAreLlamaCppsX86Ones) {
  auto shape =
      model::parse_dims("n_embd=256,n_layer=8,n_head=8,n_head_kv=2,n_ff=512,n_vocab=512,context=64")
          .value();
  const auto every_layer = model::parse_tensor_type_override("blk\\..*=nvfp4").value();
  auto writer = model::synthetic_writer(shape, FileType::q8_0, 1, {&every_layer, 1}).value();
  const auto bytes = writer.to_bytes().value();
  const auto m = test::load(bytes);
  reference::DecodeOptions options{2, planner::KvPrecision::f16, 64};
  options.products = cpu::make_fast_products();
  auto decoder = reference::Decoder::create(m, options).value();
  const auto logits = decoder->step(1).value();
  std::ifstream in(std::string(GAUNTLET_SOURCE_DIR) +
                       "/tests/engine/fixtures/llama_cpp_logits/nvfp4_first_token.f32",
                   std::ios::binary);
  std::vector<float> want(512);
  in.read(reinterpret_cast<char*>(want.data()), 512 * 4);
  ASSERT_EQ(in.gcount(), 512 * 4);
  ASSERT_EQ(logits.size(), want.size());
  double err = 0, norm = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    err += (double{logits[i]} - want[i]) * (double{logits[i]} - want[i]);
    norm += double{want[i]} * want[i];
  }
  EXPECT_LT(err / norm, 1e-12);
}

// llama.cpp's logits (fixtures/llama_cpp_logits/README.md) over 10 tokens of a Q8_0 file with its
// default cache: f16 K and V, flash attention on (-fa auto's choice on the CPU). Through the cpu
// device as `decode --device cpu -ctk f16 -ctv f16 -fa on` runs it, every step is within 1e-12
// (NMSE; 7.8e-15 when written). Before, the cpu device dropped -fa and attended as without flash
// attention: 1.7-3.1e-4 from the second token, where llama.cpp's one_chunk path rounds Q and the
// weighted sum of V to f16.
TEST(CpuDevice, DecodesLlamaCppsLogitsWithItsDefaultCache) {
  auto device = backends::open(core::DeviceId::parse("cpu").value(), {}).value();
  const auto shape =
      model::parse_dims("n_embd=256,n_layer=4,n_head=4,n_head_kv=2,n_ff=512,n_vocab=256,context=64")
          .value();
  const auto path = test::temp_path("cpu-f16-flash.gguf");
  ASSERT_TRUE(model::write_synthetic_model(shape, FileType::q8_0, 1, path, true).is_ok());
  auto file = model::GgufFile::open(path).value();
  auto loaded = loader::load_to_device(*file, *device, {4096}).value();
  DecoderSettings options;
  options.threads = 2;
  options.kv = {TensorType::f16, TensorType::f16};
  options.context = 64;
  options.flash_attention = true;
  auto decoder = make_decoder(*device, loaded, options).value();
  std::ifstream in(std::string(GAUNTLET_SOURCE_DIR) +
                       "/tests/engine/fixtures/llama_cpp_logits/q8_0_f16_cache_flash.f32",
                   std::ios::binary);
  std::vector<float> want(10 * 256);
  in.read(reinterpret_cast<char*>(want.data()), static_cast<std::streamsize>(want.size() * 4));
  ASSERT_EQ(in.gcount(), static_cast<std::streamsize>(want.size() * 4));
  const int32_t tokens[] = {1, 185, 146, 64, 16, 70, 70, 122, 145, 70};
  for (size_t step = 0; step < 10; ++step) {
    const auto logits = decoder->step(tokens[step]).value();
    ASSERT_EQ(logits.size(), 256u);
    double err = 0, norm = 0;
    for (size_t i = 0; i < 256; ++i) {
      const double w = want[step * 256 + i];
      err += (logits[i] - w) * (logits[i] - w);
      norm += w * w;
    }
    EXPECT_LT(err / norm, 1e-12) << "step " << step;
  }
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace gauntlet::engine
