// What the Vulkan device refuses, cleanly and with the limit named: allocations above the
// driver's limits, buffers of two devices, shared memory above maxComputeSharedMemorySize, a
// texel view of a buffer the kernel does not take.
#include <gmock/gmock.h>

#include <string>
#include <vector>

#include "backends/host/host_device.h"
#include "backends/saxpy.h"
#include "backends/vulkan/spirv_reflect.h"
#include "kernels/vk_shared_comp.h"
#include "tests/backends/vulkan_fixture.h"

namespace gauntlet::testing {
namespace {

using ::testing::HasSubstr;

backends::KernelSource shared_kernel(uint32_t floats, uint32_t wg = 64) {
  backends::KernelSource source;
  source.name = "vk_shared";
  source.spirv = kernels::vk_shared_comp;
  source.workgroup = {wg, 1, 1};
  source.buffer_count = 1;
  source.constants = {{"SHARED_FLOATS", floats}};
  return source;
}

TEST_F(VulkanTest, AllocationAboveMaxMemoryAllocationSizeIsRefused) {
  auto device = backends::vulkan::open(0, options_);
  ASSERT_TRUE(device.is_ok()) << device.error().describe();
  const auto& info = (*device)->info();
  ASSERT_GT(info.max_mem_alloc_size, 0u);
  auto too_big = (*device)->allocate(info.max_mem_alloc_size + 1);
  ASSERT_FALSE(too_big.is_ok());
  EXPECT_EQ(too_big.error().kind, core::ErrorKind::out_of_memory);
  EXPECT_THAT(too_big.error().describe(), HasSubstr("maxMemoryAllocationSize"));
  EXPECT_THAT(too_big.error().describe(), HasSubstr(std::to_string(info.max_mem_alloc_size)));
  EXPECT_THAT(too_big.error().describe(), HasSubstr("vulkan:0"));
  EXPECT_EQ((*device)->bytes_in_use(), 0u);
}

TEST_F(VulkanTest, AllocationAboveMaxStorageBufferRangeIsRefused) {
  auto device = backends::vulkan::open(0, options_);
  ASSERT_TRUE(device.is_ok()) << device.error().describe();
  const auto& info = (*device)->info();
  const auto range = info.api_limits["maxStorageBufferRange"].get<uint64_t>();
  if (range >= info.max_mem_alloc_size) {
    GTEST_SKIP() << "maxStorageBufferRange is not the tighter limit on this device";
  }
  auto too_big = (*device)->allocate(range + 4);
  ASSERT_FALSE(too_big.is_ok());
  EXPECT_EQ(too_big.error().kind, core::ErrorKind::invalid_argument);
  EXPECT_THAT(too_big.error().describe(), HasSubstr("maxStorageBufferRange"));
  auto at_limit = (*device)->allocate(range);
  EXPECT_TRUE(at_limit.is_ok()) << at_limit.error().describe();
}

TEST_F(VulkanTest, BuffersOfTwoDevicesAreRefusedNamingBoth) {
  auto device = backends::vulkan::open(0, options_);
  ASSERT_TRUE(device.is_ok()) << device.error().describe();
  auto host = backends::host::open();
  auto kernel = (*device)->build(backends::saxpy_kernel());
  ASSERT_TRUE(kernel.is_ok()) << kernel.error().describe();
  auto on_vulkan = (*device)->allocate(256);
  auto on_host = host->allocate(256);
  ASSERT_TRUE(on_vulkan.is_ok() && on_host.is_ok());
  backends::SaxpyParams params{1.0f, 64};
  backends::DispatchArgs args;
  args.buffers = {on_vulkan->get(), on_host->get()};
  args.params = std::as_bytes(std::span(&params, 1));
  auto status = (*device)->dispatch(**kernel, args);
  ASSERT_FALSE(status.is_ok());
  EXPECT_EQ(status.error().kind, core::ErrorKind::invalid_argument);
  EXPECT_THAT(status.describe(), HasSubstr("vulkan:0"));
  EXPECT_THAT(status.describe(), HasSubstr("host"));
  std::vector<std::byte> bytes(256);
  auto upload = (*device)->upload(**on_host, bytes);
  ASSERT_FALSE(upload.is_ok());
  EXPECT_THAT(upload.describe(), HasSubstr("host"));
}

TEST_F(VulkanTest, SharedMemoryWithinTheLimitWorks) {
  auto device = backends::vulkan::open(0, options_);
  ASSERT_TRUE(device.is_ok()) << device.error().describe();
  auto& d = **device;
  const auto floats = static_cast<uint32_t>(d.info().local_mem_size / sizeof(float));
  auto kernel = d.build(shared_kernel(floats));
  ASSERT_TRUE(kernel.is_ok()) << kernel.error().describe();
  auto out = d.allocate(2 * sizeof(float));
  ASSERT_TRUE(out.is_ok());
  backends::DispatchArgs args;
  args.buffers = {out->get()};
  args.groups = {2, 1, 1};
  ASSERT_TRUE(d.dispatch(**kernel, args).is_ok());
  std::vector<float> sums(2);
  ASSERT_TRUE(d.download(**out, std::as_writable_bytes(std::span(sums))).is_ok());
  float expected = 0;
  for (uint32_t i = 0; i < floats; ++i) expected += static_cast<float>(i % 7);
  EXPECT_EQ(sums[0], expected);
  EXPECT_EQ(sums[1], expected);
}

// Field case 2: a kernel that needs 41216 bytes of shared memory where 32 KiB is the limit.
TEST_F(VulkanTest, SharedMemoryAboveTheLimitIsRefusedBeforeThePipeline) {
  auto device = backends::vulkan::open(0, options_);
  ASSERT_TRUE(device.is_ok()) << device.error().describe();
  const uint64_t limit = (*device)->info().local_mem_size;
  const uint32_t bytes = std::max<uint32_t>(41216, static_cast<uint32_t>(limit) + 4);
  auto kernel = (*device)->build(shared_kernel(bytes / sizeof(float)));
  ASSERT_FALSE(kernel.is_ok());
  EXPECT_EQ(kernel.error().kind, core::ErrorKind::unsupported);
  EXPECT_THAT(kernel.error().describe(), HasSubstr(std::to_string(bytes)));
  EXPECT_THAT(kernel.error().describe(), HasSubstr("maxComputeSharedMemorySize"));
  EXPECT_THAT(kernel.error().describe(), HasSubstr(std::to_string(limit)));
}

TEST_F(VulkanTest, DynamicLocalMemoryIsRefused) {
  auto device = backends::vulkan::open(0, options_);
  ASSERT_TRUE(device.is_ok()) << device.error().describe();
  auto kernel = (*device)->build(shared_kernel(64));
  ASSERT_TRUE(kernel.is_ok()) << kernel.error().describe();
  auto out = (*device)->allocate(64);
  ASSERT_TRUE(out.is_ok());
  backends::DispatchArgs args;
  args.buffers = {out->get()};
  args.dynamic_local_bytes = 1024;
  auto status = (*device)->dispatch(**kernel, args);
  ASSERT_FALSE(status.is_ok());
  EXPECT_EQ(status.error().kind, core::ErrorKind::invalid_argument);
  EXPECT_THAT(status.describe(), HasSubstr("specialization constant"));
}

TEST_F(VulkanTest, KernelWithoutSpirvIsUnsupported) {
  auto device = backends::vulkan::open(0, options_);
  ASSERT_TRUE(device.is_ok()) << device.error().describe();
  auto source = backends::saxpy_kernel();
  source.spirv = {};
  auto kernel = (*device)->build(source);
  ASSERT_FALSE(kernel.is_ok());
  EXPECT_EQ(kernel.error().kind, core::ErrorKind::unsupported);
  EXPECT_THAT(kernel.error().describe(), HasSubstr("kernel saxpy has no SPIR-V"));
}

TEST_F(VulkanTest, ATexelViewOfABufferTheKernelDoesNotTakeIsRefused) {
  auto device = backends::vulkan::open(0, options_);
  ASSERT_TRUE(device.is_ok()) << device.error().describe();
  auto source = backends::saxpy_kernel();
  source.texel_views = {source.buffer_count};
  auto kernel = (*device)->build(source);
  ASSERT_FALSE(kernel.is_ok());
  EXPECT_EQ(kernel.error().kind, core::ErrorKind::invalid_argument);
  EXPECT_THAT(kernel.error().describe(),
              HasSubstr("reads buffer " + std::to_string(source.buffer_count) + " as texels"));
}

TEST_F(VulkanTest, WorkgroupAboveTheLimitIsRefused) {
  auto device = backends::vulkan::open(0, options_);
  ASSERT_TRUE(device.is_ok()) << device.error().describe();
  const auto too_wide = static_cast<uint32_t>((*device)->info().max_work_group_size * 2);
  auto kernel = (*device)->build(backends::saxpy_kernel(too_wide));
  ASSERT_FALSE(kernel.is_ok());
  EXPECT_EQ(kernel.error().kind, core::ErrorKind::invalid_argument);
  EXPECT_THAT(kernel.error().describe(), HasSubstr("maxComputeWorkGroup"));
}

TEST_F(VulkanTest, UnknownDeviceIndexIsNotFound) {
  auto device = backends::vulkan::open(99, options_);
  ASSERT_FALSE(device.is_ok());
  EXPECT_EQ(device.error().kind, core::ErrorKind::not_found);
  EXPECT_THAT(device.error().describe(), HasSubstr("vulkan:99"));
}

TEST_F(VulkanTest, BufferAndKernelMayOutliveTheirDevice) {
  std::unique_ptr<backends::Buffer> buffer;
  std::unique_ptr<backends::Kernel> kernel;
  {
    auto device = backends::vulkan::open(0, options_);
    ASSERT_TRUE(device.is_ok()) << device.error().describe();
    auto b = (*device)->allocate(1024);
    auto k = (*device)->build(backends::saxpy_kernel());
    ASSERT_TRUE(b.is_ok() && k.is_ok());
    buffer = std::move(*b);
    kernel = std::move(*k);
  }
  buffer.reset();
  kernel.reset();
  SUCCEED();
}

TEST(SpirvReflect, SharedBytesFollowTheSpecializationConstant) {
  using backends::vulkan::workgroup_memory_bytes;
  EXPECT_EQ(workgroup_memory_bytes(kernels::vk_shared_comp, {}), 256u * 4);  // the default
  EXPECT_EQ(workgroup_memory_bytes(kernels::vk_shared_comp, {{3, 10304}}), 41216u);
  EXPECT_EQ(workgroup_memory_bytes(kernels::vk_shared_comp, {{0, 128}, {3, 8192}}), 32768u);
  std::vector<uint32_t> garbage{1, 2, 3};
  EXPECT_FALSE(workgroup_memory_bytes(garbage, {}).has_value());
}

}  // namespace
}  // namespace gauntlet::testing
