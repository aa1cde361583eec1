// The Vulkan device on vulkan:0: saxpy against the host, the staging path, batched dispatch,
// specialization and push constants, timing.
#include <cmath>
#include <cstring>
#include <vector>

#include "backends/host/host_device.h"
#include "backends/saxpy.h"
#include "kernels/vk_spec_push_comp.h"
#include "tests/backends/vulkan_fixture.h"

namespace gauntlet::testing {
namespace {

std::vector<float> ramp(size_t n, float scale, float shift) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = scale * static_cast<float>(i % 1009) + shift;
  return v;
}

void expect_matches_host(const core::Options& options, size_t n) {
  auto device = backends::vulkan::open(0, options);
  ASSERT_TRUE(device.is_ok()) << device.error().describe();
  auto host = backends::host::open();
  auto x = ramp(n, 0.25f, -3.0f);
  auto y = ramp(n, -1.5f, 7.0f);
  auto expected = backends::run_saxpy(*host, 2.5f, x, y);
  auto actual = backends::run_saxpy(**device, 2.5f, x, y);
  ASSERT_TRUE(expected.is_ok()) << expected.error().describe();
  ASSERT_TRUE(actual.is_ok()) << actual.error().describe();
  ASSERT_EQ(actual->size(), n);
  size_t mismatches = 0;
  for (size_t i = 0; i < n; ++i) {
    const float want = (*expected)[i];
    // One rounding apart at most: the device may fuse the multiply and add.
    if (std::fabs((*actual)[i] - want) > 1e-6f * std::max(1.0f, std::fabs(want))) {
      if (++mismatches <= 5) {
        ADD_FAILURE() << "index " << i << ": x=" << x[i] << " y=" << y[i] << " expected " << want
                      << " got " << (*actual)[i];
      }
    }
  }
  EXPECT_EQ(mismatches, 0u);
}

TEST_F(VulkanTest, SaxpyMatchesHost) { expect_matches_host(options_, 100003); }

TEST_F(VulkanTest, SaxpyMatchesHostThroughStagingBuffers) {
  options_.vulkan_force_staging = true;
  expect_matches_host(options_, 100003);
}

TEST_F(VulkanTest, LargeRoundTripThroughStagingBuffers) {
  options_.vulkan_force_staging = true;
  auto device = backends::vulkan::open(0, options_);
  ASSERT_TRUE(device.is_ok()) << device.error().describe();
  // More than two 16 MiB staging chunks, at an offset, so the chunked copy runs both ways.
  const size_t n = (40u << 20) / sizeof(uint32_t) + 3;
  std::vector<uint32_t> data(n);
  for (size_t i = 0; i < n; ++i) data[i] = static_cast<uint32_t>(i * 2654435761u);
  auto buffer = (*device)->allocate((n + 1) * sizeof(uint32_t));
  ASSERT_TRUE(buffer.is_ok()) << buffer.error().describe();
  auto up = (*device)->upload(**buffer, std::as_bytes(std::span(data)), sizeof(uint32_t));
  ASSERT_TRUE(up.is_ok()) << up.describe();
  std::vector<uint32_t> back(n);
  auto down =
      (*device)->download(**buffer, std::as_writable_bytes(std::span(back)), sizeof(uint32_t));
  ASSERT_TRUE(down.is_ok()) << down.describe();
  for (size_t i = 0; i < n; ++i) ASSERT_EQ(back[i], data[i]) << "index " << i;
}

struct SpecPushParams {
  int32_t add;
  uint32_t n;
};

backends::KernelSource spec_push_kernel(uint32_t wg, int scale, int offset) {
  backends::KernelSource source;
  source.name = "vk_spec_push";
  source.spirv = kernels::vk_spec_push_comp;
  source.workgroup = {wg, 1, 1};
  source.buffer_count = 1;
  source.params_bytes = sizeof(SpecPushParams);
  source.constants = {{"SCALE", scale}, {"OFFSET", offset}};
  return source;
}

TEST_F(VulkanTest, SpecializationAndPushConstantsReachTheKernel) {
  for (bool staging : {false, true}) {
    options_.vulkan_force_staging = staging;
    auto device = backends::vulkan::open(0, options_);
    ASSERT_TRUE(device.is_ok()) << device.error().describe();
    auto& d = **device;
    const uint32_t wg = 32;
    auto kernel = d.build(spec_push_kernel(wg, 3, -7));
    ASSERT_TRUE(kernel.is_ok()) << kernel.error().describe();
    const uint32_t n = 1000;
    auto out = d.allocate(n * sizeof(int32_t));
    ASSERT_TRUE(out.is_ok()) << out.error().describe();
    SpecPushParams params{11, n};
    backends::DispatchArgs args;
    args.buffers = {out->get()};
    args.params = std::as_bytes(std::span(&params, 1));
    args.groups = {(n + wg - 1) / wg, 1, 1};
    ASSERT_TRUE(d.dispatch(**kernel, args).is_ok());
    std::vector<int32_t> values(n);
    auto status = d.download(**out, std::as_writable_bytes(std::span(values)));
    ASSERT_TRUE(status.is_ok()) << status.describe();
    for (uint32_t i = 0; i < n; ++i) {
      ASSERT_EQ(values[i], static_cast<int32_t>(i) * 3 - 7 + 11 + 1000000 * 32)
          << "index " << i << " staging " << staging;
    }
  }
}

TEST_F(VulkanTest, ThousandsOfDispatchesInARow) {
  auto device = backends::vulkan::open(0, options_);
  ASSERT_TRUE(device.is_ok()) << device.error().describe();
  auto& d = **device;
  auto kernel = d.build(backends::saxpy_kernel());
  ASSERT_TRUE(kernel.is_ok()) << kernel.error().describe();
  const uint32_t n = 4096;
  std::vector<float> ones(n, 1.0f), start(n, 0.5f);
  auto x = d.allocate(n * sizeof(float));
  auto y = d.allocate(n * sizeof(float));
  ASSERT_TRUE(x.is_ok() && y.is_ok());
  ASSERT_TRUE(d.upload(**x, std::as_bytes(std::span(ones))).is_ok());
  ASSERT_TRUE(d.upload(**y, std::as_bytes(std::span(start))).is_ok());
  backends::SaxpyParams params{1.0f, n};
  backends::DispatchArgs args;
  args.buffers = {x->get(), y->get()};
  args.params = std::as_bytes(std::span(&params, 1));
  args.groups = {n / 64, 1, 1};
  // Each dispatch reads what the one before wrote: y ends at 0.5 + 2000 only if every barrier
  // held and no descriptor pool ran dry.
  const int dispatches = 2000;
  for (int i = 0; i < dispatches; ++i) {
    auto status = d.dispatch(**kernel, args);
    ASSERT_TRUE(status.is_ok()) << "dispatch " << i << ": " << status.describe();
  }
  std::vector<float> result(n);
  ASSERT_TRUE(d.download(**y, std::as_writable_bytes(std::span(result))).is_ok());
  for (uint32_t i = 0; i < n; ++i) ASSERT_EQ(result[i], 0.5f + dispatches) << "index " << i;
}

TEST_F(VulkanTest, TimedDispatchReportsPositiveDeviceTime) {
  auto device = backends::vulkan::open(0, options_);
  ASSERT_TRUE(device.is_ok()) << device.error().describe();
  auto& d = **device;
  auto kernel = d.build(backends::saxpy_kernel());
  ASSERT_TRUE(kernel.is_ok()) << kernel.error().describe();
  const uint32_t n = 1 << 16;
  std::vector<float> x(n, 2.0f), y(n, 1.0f);
  auto bx = d.allocate(n * sizeof(float));
  auto by = d.allocate(n * sizeof(float));
  ASSERT_TRUE(bx.is_ok() && by.is_ok());
  ASSERT_TRUE(d.upload(**bx, std::as_bytes(std::span(x))).is_ok());
  ASSERT_TRUE(d.upload(**by, std::as_bytes(std::span(y))).is_ok());
  backends::SaxpyParams params{3.0f, n};
  backends::DispatchArgs args;
  args.buffers = {bx->get(), by->get()};
  args.params = std::as_bytes(std::span(&params, 1));
  args.groups = {n / 64, 1, 1};
  double seconds = -1;
  args.device_seconds = &seconds;
  ASSERT_TRUE(d.dispatch(**kernel, args).is_ok());
  EXPECT_GT(seconds, 0.0);
  EXPECT_LT(seconds, 60.0);
  std::vector<float> out(n);
  ASSERT_TRUE(d.download(**by, std::as_writable_bytes(std::span(out))).is_ok());
  EXPECT_EQ(out[0], 7.0f);
  EXPECT_EQ(out[n - 1], 7.0f);
}

}  // namespace
}  // namespace gauntlet::testing
