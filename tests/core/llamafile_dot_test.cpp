// The f32 dot product in llamafile tinyBLAS's order (core/llamafile_dot.h).
#include "core/llamafile_dot.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "core/tensor_type.h"

namespace gauntlet::core {
namespace {

// The lane tree adds lane 1 to lane 3 before lane 0: 2^24 at element 0 and ones at elements 1 and
// 3 give 2^24 + 2, where eight lanes added pairwise ((0 + 1) + (2 + 3)) lose both ones.
TEST(LlamafileDot, AddsTheLanesAsTheAvx512Reduction) {
  std::vector<float> w(32, 0.0f), x(32, 0.0f);
  w[0] = x[0] = 4096.0f;
  w[1] = x[1] = w[3] = x[3] = 1.0f;
  EXPECT_EQ(dot_f32_as_llamafile(w.data(), x.data(), 32), 16777218.0f);
  EXPECT_EQ(dot_f32_as_llamafile_portable(w.data(), x.data(), 32), 16777218.0f);
}

// Each element is one fused multiply-add: -1, then (1 + 2^-12)^2 = 1 + 2^-11 + 2^-24 in lane 0
// leaves 2^-11 + 2^-24, which a rounded product would cut to 2^-11.
TEST(LlamafileDot, FusesEachMultiplyAndAdd) {
  std::vector<float> w(32, 0.0f), x(32, 0.0f);
  w[0] = 1.0f, x[0] = -1.0f;
  w[16] = x[16] = 1.0f + 0x1p-12f;
  EXPECT_EQ(dot_f32_as_llamafile(w.data(), x.data(), 32), 0x1p-11f + 0x1p-24f);
}

// Whichever vector loop this processor takes gives the portable loop's bits, and dot_row sends
// an f32 row of whole 16s through it (other lengths keep the eight-lane order).
TEST(LlamafileDot, EveryProcessorGivesThePortableBits) {
  uint32_t state = 12345;
  auto next = [&] {
    state = state * 1664525u + 1013904223u;
    return static_cast<float>(static_cast<int32_t>(state >> 8) - (1 << 23)) * 0x1p-20f;
  };
  for (uint64_t n : {16u, 48u, 256u, 4096u}) {
    std::vector<float> w(n), x(n);
    for (uint64_t i = 0; i < n; ++i) w[i] = next(), x[i] = next();
    const float fast = dot_f32_as_llamafile(w.data(), x.data(), n);
    EXPECT_EQ(fast, dot_f32_as_llamafile_portable(w.data(), x.data(), n)) << n;
    EXPECT_EQ(dot_row(TensorType::f32, reinterpret_cast<const std::byte*>(w.data()), x.data(), n),
              fast)
        << n;
  }
  EXPECT_FALSE(sums_in_llamafile_order(40));
  EXPECT_TRUE(sums_in_llamafile_order(64));
}

}  // namespace
}  // namespace gauntlet::core
