// Error-bound logic on hand-worked values, failure evidence text, globs, verdict JSON.
#include "conformance/compare.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "conformance/conformance.h"
#include "conformance/registry.h"
#include "conformance/run_kernel.h"

namespace gauntlet::conformance {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNan = std::numeric_limits<float>::quiet_NaN();

TEST(UlpDistance, F32HandWorked) {
  EXPECT_EQ(ulp_distance(1.0f, 1.0f), 0u);
  EXPECT_EQ(ulp_distance(1.0f, std::nextafter(1.0f, 2.0f)), 1u);
  EXPECT_EQ(ulp_distance(1.0f, 1.0f + 3 * std::ldexp(1.0f, -23)), 3u);
  EXPECT_EQ(ulp_distance(0.0f, -0.0f), 0u);  // signed zeros are one value apart of none
  const float tiny = std::numeric_limits<float>::denorm_min();
  EXPECT_EQ(ulp_distance(tiny, -tiny), 2u);  // across zero: -tiny, 0, +tiny
  EXPECT_EQ(ulp_distance(0.0f, tiny), 1u);
  EXPECT_EQ(ulp_distance(std::numeric_limits<float>::max(), kInf), 1u);
  EXPECT_EQ(ulp_distance(kInf, kInf), 0u);
  EXPECT_EQ(ulp_distance(kNan, kNan), 0u);
  EXPECT_EQ(ulp_distance(kNan, 1.0f), std::numeric_limits<uint64_t>::max());
  EXPECT_EQ(ulp_distance(-kInf, kInf), 2ull * 0x7f800000u);
}

TEST(UlpDistance, F64AndSixteenBit) {
  EXPECT_EQ(ulp_distance(1.0, std::nextafter(1.0, 0.0)), 1u);
  EXPECT_EQ(ulp_distance(-0.0, 0.0), 0u);
  EXPECT_EQ(ulp_distance_f16(0x3c00, 0x3c01), 1u);  // 1.0 and the next half
  EXPECT_EQ(ulp_distance_f16(0x0000, 0x8000), 0u);  // +0, -0
  EXPECT_EQ(ulp_distance_f16(0x0001, 0x8001), 2u);  // smallest subnormals, both signs
  EXPECT_EQ(ulp_distance_f16(0x7bff, 0x7c00), 1u);  // 65504 and inf
  EXPECT_EQ(ulp_distance_f16(0x7e00, 0x7c01), 0u);  // two NaNs
  EXPECT_EQ(ulp_distance_f16(0x7e00, 0x3c00), std::numeric_limits<uint64_t>::max());
  EXPECT_EQ(ulp_distance_bf16(0x3f80, 0x3f82), 2u);
  EXPECT_EQ(ulp_distance_bf16(0x7fc0, 0x7f80), std::numeric_limits<uint64_t>::max());
}

TEST(Nmse, HandWorked) {
  std::vector<double> e{1.0, 2.0}, a{1.0, 2.5};
  EXPECT_DOUBLE_EQ(nmse(e, a), 0.25 / 5.0);
  EXPECT_DOUBLE_EQ(nmse(e, e), 0.0);
  std::vector<double> zeros{0.0, 0.0}, small{0.1, -0.2};
  EXPECT_DOUBLE_EQ(nmse(zeros, small), 0.01 + 0.04);
  std::vector<double> with_nan{1.0, std::nan("")};
  EXPECT_TRUE(std::isinf(nmse(e, with_nan)));
  std::vector<double> inf_e{1.0, kInf}, inf_a{1.0, kInf}, minus{1.0, -kInf};
  EXPECT_DOUBLE_EQ(nmse(inf_e, inf_a), 0.0);
  EXPECT_TRUE(std::isinf(nmse(inf_e, minus)));
}

TEST(Evidence, HexFloatText) {
  EXPECT_EQ(hex_float(1.5f), "0x1.8p+0 (1.5)");
  EXPECT_EQ(hex_f16(0x3e00), "0x3e00 = 0x1.8p+0 (1.5)");
  EXPECT_EQ(hex_bf16(0xbfc0), "0xbfc0 = -0x1.8p+0 (-1.5)");
}

// A deliberately wrong reference (2.25 for 1.5 + 1.0) gives a message with every part of the
// evidence: index, inputs, expected, actual, bound, seed.
TEST(Evidence, MismatchNamesIndexInputsExpectedActualSeed) {
  const float a = 1.5f, b = 1.0f;
  const float wrong_reference = 2.25f, actual = a + b;
  Mismatch m{17,
             {{"a", hex_float(a)}, {"b", hex_float(b)}},
             hex_float(wrong_reference),
             hex_float(actual),
             "ulp " + std::to_string(ulp_distance(wrong_reference, actual)) + " > 0",
             0x2a};
  EXPECT_EQ(describe(m),
            "index 17: a = 0x1.8p+0 (1.5), b = 0x1p+0 (1); expected 0x1.2p+1 (2.25), actual "
            "0x1.4p+1 (2.5) (ulp 1048576 > 0); seed 0x2a");
}

TEST(Guard, CheckNamesTheOverwrittenByte) {
  Bytes whole(16 + kGuardBytes, kCanary);
  EXPECT_EQ(check_guard(whole, 16, 3), "");
  whole[16 + 4] = std::byte{0};
  EXPECT_EQ(check_guard(whole, 16, 3),
            "guard region of buffer 3 overwritten at byte 4 past its 16-byte payload (canary "
            "0xa5, found 0x00)");
}

TEST(Registry, GlobAndCases) {
  EXPECT_TRUE(glob_match("conform.f16.*", "conform.f16.emulated.add"));
  EXPECT_FALSE(glob_match("conform.f16.*", "conform.f32.add"));
  EXPECT_TRUE(glob_match("*q?_0", "conform.gguf.q8_0"));
  EXPECT_TRUE(glob_match("*", ""));
  // Every case speaks for known feature keys only.
  const auto& keys = feature_keys();
  size_t cases = 0;
  for (const Family& f : families()) {
    for (const CaseSpec& c : f.cases) {
      ++cases;
      for (const auto& feature : c.features) {
        EXPECT_NE(std::find(keys.begin(), keys.end(), feature), keys.end()) << c.id;
      }
    }
  }
  EXPECT_GT(cases, 40u);
  ASSERT_NE(find_case("conform.gguf.q4_0"), nullptr);
  EXPECT_EQ(find_case("conform.gguf.q4_0")->features, std::vector<std::string>{"q4_0"});
}

TEST(Verdicts, JsonRoundTrip) {
  ConformanceResult r;
  r.device = "vulkan:0";
  r.rows.push_back(core::make_row("conform.f32.add", "vulkan:0", core::RowStatus::pass));
  r.features["f16"] = {{Verdict::emulated, {"conform.f16.emulated.add"}}, "not native"};
  r.local_mem_verified_bytes = 32768;
  r.max_workgroup_verified = 1024;
  r.subgroup_size_observed = 8;
  core::Json j = r;
  EXPECT_EQ(j["features"]["f16"]["verdict"], "emulated");
  auto back = j.get<ConformanceResult>();
  EXPECT_EQ(back.device, "vulkan:0");
  EXPECT_EQ(back.features.at("f16").verdict, Verdict::emulated);
  EXPECT_EQ(back.features.at("f16").rows.front(), "conform.f16.emulated.add");
  EXPECT_EQ(back.local_mem_verified_bytes, 32768u);
  EXPECT_EQ(back.subgroup_size_observed, 8u);
  EXPECT_EQ(back.features.at("f16").reason, "not native");
  EXPECT_FALSE(core::feature_verdict_from_string("maybe").has_value());
  // Journals written before the verdict moved to core spelt it with a space.
  EXPECT_EQ(core::feature_verdict_from_string("not tested"), Verdict::not_tested);
  EXPECT_STREQ(core::to_string(Verdict::not_tested), "not_tested");
}

TEST(ErrorBounds, DeclaredOnceCheckedAndPrinted) {
  const ErrorBound add = find_case("conform.f32.add")->bound;
  EXPECT_EQ(add.describe(), "0 ulp");
  EXPECT_TRUE(add.allows(true, 0));
  EXPECT_FALSE(add.allows(false, 1));
  EXPECT_EQ(add.exceeded(3), "ulp 3 > 0");
  EXPECT_EQ(find_case("conform.f32.fma")->bound.describe(),
            "0 ulp; on Vulkan fused or unfused (mul, add)");

  const ErrorBound storage = find_case("conform.f16.emulated.storage")->bound;
  EXPECT_EQ(storage.kind, ErrorBound::Kind::exact);
  // Bits that differ fail a bit-exact bound even 0 ulp apart (+0 and -0).
  EXPECT_FALSE(storage.allows(false, 0));
  EXPECT_EQ(storage.exceeded(0), "bit-exact");

  const ErrorBound reduce = find_case("conform.f16.emulated.reduce")->bound;
  EXPECT_EQ(reduce.kind, ErrorBound::Kind::nmse);
  EXPECT_DOUBLE_EQ(reduce.limit, 1e-6);
  EXPECT_EQ(reduce.describe(), "nmse <= 1e-06");
  EXPECT_TRUE(reduce.allows_nmse(1e-7));
  EXPECT_FALSE(reduce.allows_nmse(2.5e-5));
  EXPECT_FALSE(reduce.allows_nmse(std::nan("")));
  EXPECT_EQ(reduce.exceeded(2.5e-5), "nmse 2.5e-05 > 1e-06");
  EXPECT_DOUBLE_EQ(find_case("conform.f32.reduce")->bound.limit, 1e-10);
  EXPECT_EQ(find_case("conform.local.limit")->bound.kind, ErrorBound::Kind::none);
}

}  // namespace
}  // namespace gauntlet::conformance
