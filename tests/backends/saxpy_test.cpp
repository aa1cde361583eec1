// saxpy on the host reference and on opencl:0 must agree.
#include "backends/saxpy.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "backends/host/host_device.h"
#include "backends/opencl/opencl_device.h"
#include "core/rng.h"

namespace gauntlet {
namespace {

std::vector<float> inputs(size_t n, float scale, float shift) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = scale * static_cast<float>(i % 997) + shift;
  return v;
}

TEST(Saxpy, HostComputesExactSmallCase) {
  auto host = backends::host::open();
  auto out = backends::run_saxpy(*host, 3.0f, {1, 2, 3}, {0.5f, -1, 100});
  ASSERT_TRUE(out.is_ok()) << out.error().describe();
  EXPECT_EQ(*out, (std::vector<float>{3.5f, 5, 109}));
}

TEST(Saxpy, OpenClMatchesHost) {
  auto cl = backends::opencl::open(0);
  ASSERT_TRUE(cl.is_ok()) << cl.error().describe();
  auto host = backends::host::open();
  // Not a multiple of the workgroup size, so the bounds check in the kernel matters.
  const size_t n = 10000 + 17;
  auto x = inputs(n, 0.37f, -50.0f);
  auto y = inputs(n, -1.25f, 7.5f);
  auto expect = backends::run_saxpy(*host, 1.75f, x, y);
  auto got = backends::run_saxpy(**cl, 1.75f, x, y);
  ASSERT_TRUE(expect.is_ok()) << expect.error().describe();
  ASSERT_TRUE(got.is_ok()) << got.error().describe();
  ASSERT_EQ(got->size(), n);
  size_t mismatches = 0;
  for (size_t i = 0; i < n; ++i) {
    // The device may contract a*x+y into one fma: allow one rounding of difference.
    const float tol = 2e-7f * std::max(1.0f, std::fabs((*expect)[i]) + std::fabs(1.75f * x[i]));
    if (std::fabs((*got)[i] - (*expect)[i]) > tol && mismatches++ < 5) {
      ADD_FAILURE() << "index " << i << ": x=" << x[i] << " y=" << y[i]
                    << " expected=" << (*expect)[i] << " actual=" << (*got)[i];
    }
  }
  EXPECT_EQ(mismatches, 0u);
  EXPECT_EQ((*cl)->bytes_in_use(), 0u);  // run_saxpy's buffers are gone
  EXPECT_GE((*cl)->peak_bytes(), 2 * n * sizeof(float));
}

}  // namespace
}  // namespace gauntlet
