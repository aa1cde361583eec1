// The OpenCL Device on PoCL: errors come back as values that name the call, code and device.
#include "backends/opencl/opencl_device.h"

#include <gtest/gtest.h>

#include <chrono>
#include <numeric>
#include <string>
#include <vector>

#include "backends/host/host_device.h"
#include "backends/saxpy.h"
#include "kernels/params_local_cl.h"

namespace gauntlet {
namespace {

using backends::DispatchArgs;
using backends::KernelSource;
using core::Status;

struct ParamsLocalParams {
  uint32_t n;
  int32_t bias;
  int32_t scale;
};

constexpr uint32_t kWg = 32;
constexpr int64_t kExtra = 1000;

KernelSource params_local_kernel(uint32_t wg = kWg) {
  KernelSource source;
  source.name = "params_local";
  source.opencl_c = kernels::params_local_cl;
  source.workgroup = {wg, 1, 1};
  source.buffer_count = 2;
  source.params_bytes = sizeof(ParamsLocalParams);
  source.dynamic_local = true;
  source.constants = {{"EXTRA", kExtra}};
  return source;
}

class OpenClDevice : public ::testing::Test {
 protected:
  void SetUp() override {
    auto opened = backends::opencl::open(0);
    ASSERT_TRUE(opened.is_ok()) << opened.error().describe();
    device_ = std::move(*opened);
  }
  std::unique_ptr<backends::Device> device_;
};

// The params/local kernel built, with one workgroup's input and output and the arguments that
// dispatch it (their local memory left to the test).
struct LocalDispatch {
  std::unique_ptr<backends::Kernel> kernel;
  std::unique_ptr<backends::Buffer> in, out;
  ParamsLocalParams params{kWg, 0, 1};
  DispatchArgs args;
};

void prepare_local_dispatch(backends::Device& device, LocalDispatch& d) {
  auto kernel = device.build(params_local_kernel());
  ASSERT_TRUE(kernel.is_ok()) << kernel.error().describe();
  auto bin = device.allocate(kWg * 4);
  auto bout = device.allocate(kWg * 4);
  ASSERT_TRUE(bin.is_ok() && bout.is_ok());
  d.kernel = std::move(*kernel);
  d.in = std::move(*bin);
  d.out = std::move(*bout);
  d.args.buffers = {d.in.get(), d.out.get()};
  d.args.params = std::as_bytes(std::span(&d.params, 1));
}

TEST_F(OpenClDevice, ParamsConstantsAndDynamicLocalReachTheKernel) {
  auto kernel = device_->build(params_local_kernel());
  ASSERT_TRUE(kernel.is_ok()) << kernel.error().describe();
  const uint32_t n = 3 * kWg + 5;
  const uint32_t groups = (n + kWg - 1) / kWg;
  std::vector<int32_t> in(groups * kWg);
  std::iota(in.begin(), in.end(), 1);
  auto bin = device_->allocate(in.size() * 4);
  auto bout = device_->allocate(in.size() * 4);
  ASSERT_TRUE(bin.is_ok() && bout.is_ok());
  ASSERT_TRUE(device_->upload(**bin, std::as_bytes(std::span(in))).is_ok());
  std::vector<int32_t> sentinel(in.size(), -7);
  ASSERT_TRUE(device_->upload(**bout, std::as_bytes(std::span(sentinel))).is_ok());

  ParamsLocalParams params{n, -3, 5};
  DispatchArgs args;
  args.buffers = {bin->get(), bout->get()};
  args.params = std::as_bytes(std::span(&params, 1));
  args.groups = {groups, 1, 1};
  args.dynamic_local_bytes = kWg * sizeof(int32_t);
  Status st = device_->dispatch(**kernel, args);
  ASSERT_TRUE(st.is_ok()) << st.describe();
  ASSERT_TRUE(device_->finish().is_ok());
  std::vector<int32_t> out(in.size());
  ASSERT_TRUE(device_->download(**bout, std::as_writable_bytes(std::span(out))).is_ok());
  for (uint32_t gid = 0; gid < in.size(); ++gid) {
    const uint32_t base = gid / kWg * kWg, lid = gid % kWg;
    const uint32_t src = base + (kWg - 1 - lid);
    const int32_t value = src < n ? in[src] : 0;
    const int32_t expected = gid < n ? value * 5 - 3 + static_cast<int32_t>(kExtra) : -7;
    ASSERT_EQ(out[gid], expected) << "index " << gid;
  }
}

TEST_F(OpenClDevice, DownloadWithOffsetReadsTheRightBytes) {
  std::vector<uint8_t> data(256);
  std::iota(data.begin(), data.end(), 0);
  auto buf = device_->allocate(data.size());
  ASSERT_TRUE(buf.is_ok());
  ASSERT_TRUE(device_->upload(**buf, std::as_bytes(std::span(data))).is_ok());
  std::vector<uint8_t> patch{200, 201};
  ASSERT_TRUE(device_->upload(**buf, std::as_bytes(std::span(patch)), 10).is_ok());
  std::vector<uint8_t> out(4);
  ASSERT_TRUE(device_->download(**buf, std::as_writable_bytes(std::span(out)), 9).is_ok());
  EXPECT_EQ(out, (std::vector<uint8_t>{9, 200, 201, 12}));
}

TEST_F(OpenClDevice, BuildErrorReturnsTheLog) {
  KernelSource source;
  source.name = "broken";
  source.opencl_c = "__kernel void broken(__global int* x) { x[0] = undefined_name_42; }\n";
  source.buffer_count = 1;
  auto kernel = device_->build(source);
  ASSERT_FALSE(kernel.is_ok());
  const auto& e = kernel.error();
  EXPECT_EQ(e.kind, core::ErrorKind::api_error);
  EXPECT_EQ(e.api_call, "clBuildProgram");
  EXPECT_EQ(e.result_name, "CL_BUILD_PROGRAM_FAILURE");
  EXPECT_EQ(e.device, "opencl:0");
  EXPECT_NE(e.message.find("undefined_name_42"), std::string::npos) << e.message;
  EXPECT_NE(e.message.find("-cl-std=CL1.2"), std::string::npos) << e.message;
}

// A new source each time (PoCL caches what it compiled, and a cached program prints nothing).
KernelSource warning_kernel() {
  KernelSource source;
  source.name = "warns";
  static std::string text;  // opencl_c is a view
  text = "// " + std::to_string(std::chrono::steady_clock::now().time_since_epoch().count()) +
         "\n#warning gauntlet_kept_warning_7\n"
         "__kernel void warns(__global int* x) { x[0] = 1; }\n";
  source.opencl_c = text;
  source.buffer_count = 1;
  return source;
}

TEST_F(OpenClDevice, BuildLogIsKeptAndNotPrintedOnSuccess) {
  testing::internal::CaptureStderr();
  auto kernel = device_->build(warning_kernel());
  const std::string printed = testing::internal::GetCapturedStderr();
  ASSERT_TRUE(kernel.is_ok()) << kernel.error().describe();
  EXPECT_NE((*kernel)->build_log().find("gauntlet_kept_warning_7"), std::string::npos)
      << (*kernel)->build_log();
  EXPECT_EQ(printed.find("gauntlet_kept_warning_7"), std::string::npos) << printed;
  // Nor PoCL's own "1 warning generated." echo of it.
  EXPECT_EQ(printed.find("generated"), std::string::npos) << printed;
}

TEST(OpenClDeviceVerbose, BuildLogIsPrintedWhenAskedFor) {
  core::Options options;
  options.show_build_logs = true;
  auto device = backends::opencl::open(0, options);
  ASSERT_TRUE(device.is_ok()) << device.error().describe();
  testing::internal::CaptureStderr();
  auto kernel = (*device)->build(warning_kernel());
  const std::string printed = testing::internal::GetCapturedStderr();
  ASSERT_TRUE(kernel.is_ok()) << kernel.error().describe();
  EXPECT_NE(printed.find("opencl:0: kernel 'warns' with options '-cl-std=CL1.2"), std::string::npos)
      << printed;
  EXPECT_NE(printed.find("gauntlet_kept_warning_7"), std::string::npos) << printed;
}

TEST_F(OpenClDevice, MissingEntryPointNamesTheKernel) {
  KernelSource source = params_local_kernel();
  source.name = "no_such_kernel";
  auto kernel = device_->build(source);
  ASSERT_FALSE(kernel.is_ok());
  EXPECT_EQ(kernel.error().api_call, "clCreateKernel");
  EXPECT_EQ(kernel.error().result_name, "CL_INVALID_KERNEL_NAME");
}

TEST_F(OpenClDevice, AllocationBeyondTheLimitIsRefusedCleanly) {
  const uint64_t limit = device_->info().max_mem_alloc_size;
  ASSERT_GT(limit, 0u);
  const uint64_t global = device_->info().global_mem_size;
  // Over both limits, so that no driver can honour it.
  const size_t bytes = static_cast<size_t>(std::max(limit, global) * 4);
  auto buffer = device_->allocate(bytes);
  ASSERT_FALSE(buffer.is_ok());
  const auto& e = buffer.error();
  EXPECT_TRUE(e.kind == core::ErrorKind::out_of_memory ||
              e.kind == core::ErrorKind::invalid_argument)
      << e.describe();
  EXPECT_EQ(e.api_call, "clCreateBuffer");
  EXPECT_NE(e.message.find(std::to_string(bytes)), std::string::npos) << e.message;
  EXPECT_NE(e.message.find(std::to_string(limit)), std::string::npos) << e.message;
  EXPECT_EQ(device_->bytes_in_use(), 0u);
  // The device still works afterwards.
  auto out = backends::run_saxpy(*device_, 2.0f, {1, 2}, {3, 4});
  ASSERT_TRUE(out.is_ok()) << out.error().describe();
  EXPECT_EQ(*out, (std::vector<float>{5, 8}));
}

TEST_F(OpenClDevice, BuffersOfTwoDevicesAreRefusedNamingBoth) {
  auto host = backends::host::open();
  auto kernel = device_->build(backends::saxpy_kernel());
  ASSERT_TRUE(kernel.is_ok()) << kernel.error().describe();
  auto cl_buf = device_->allocate(64);
  auto host_buf = host->allocate(64);
  ASSERT_TRUE(cl_buf.is_ok() && host_buf.is_ok());
  backends::SaxpyParams params{1.0f, 16};
  DispatchArgs args;
  args.buffers = {cl_buf->get(), host_buf->get()};
  args.params = std::as_bytes(std::span(&params, 1));
  Status st = device_->dispatch(**kernel, args);
  ASSERT_FALSE(st.is_ok());
  EXPECT_EQ(st.error().kind, core::ErrorKind::invalid_argument);
  EXPECT_NE(st.describe().find("opencl:0"), std::string::npos) << st.describe();
  EXPECT_NE(st.describe().find("host"), std::string::npos) << st.describe();
  // And the other way round: a host kernel given an OpenCL buffer.
  auto host_kernel = host->build(backends::saxpy_kernel());
  ASSERT_TRUE(host_kernel.is_ok());
  args.buffers = {host_buf->get(), cl_buf->get()};
  st = host->dispatch(**host_kernel, args);
  ASSERT_FALSE(st.is_ok());
  EXPECT_NE(st.describe().find("opencl:0"), std::string::npos) << st.describe();
  EXPECT_NE(st.describe().find("host"), std::string::npos) << st.describe();
}

TEST_F(OpenClDevice, DeviceTimeIsPositive) {
  auto kernel = device_->build(backends::saxpy_kernel());
  ASSERT_TRUE(kernel.is_ok()) << kernel.error().describe();
  const uint32_t n = 1 << 20;
  auto bx = device_->allocate(n * 4);
  auto by = device_->allocate(n * 4);
  ASSERT_TRUE(bx.is_ok() && by.is_ok());
  std::vector<float> ones(n, 1.0f);
  ASSERT_TRUE(device_->upload(**bx, std::as_bytes(std::span(ones))).is_ok());
  ASSERT_TRUE(device_->upload(**by, std::as_bytes(std::span(ones))).is_ok());
  backends::SaxpyParams params{2.0f, n};
  double seconds = -1;
  DispatchArgs args;
  args.buffers = {bx->get(), by->get()};
  args.params = std::as_bytes(std::span(&params, 1));
  args.groups = {n / 64, 1, 1};
  args.device_seconds = &seconds;
  Status st = device_->dispatch(**kernel, args);
  ASSERT_TRUE(st.is_ok()) << st.describe();
  EXPECT_GT(seconds, 0.0);
  EXPECT_LT(seconds, 60.0);
  float y0 = 0;
  ASSERT_TRUE(device_->download(**by, std::as_writable_bytes(std::span(&y0, 1))).is_ok());
  EXPECT_EQ(y0, 3.0f);
}

TEST_F(OpenClDevice, WorkgroupLargerThanTheDeviceAllowsIsAnError) {
  const auto too_big = static_cast<uint32_t>(device_->info().max_work_group_size * 2);
  auto kernel = device_->build(backends::saxpy_kernel(too_big));
  ASSERT_TRUE(kernel.is_ok()) << kernel.error().describe();
  auto bx = device_->allocate(too_big * 4);
  auto by = device_->allocate(too_big * 4);
  ASSERT_TRUE(bx.is_ok() && by.is_ok());
  backends::SaxpyParams params{2.0f, too_big};
  DispatchArgs args;
  args.buffers = {bx->get(), by->get()};
  args.params = std::as_bytes(std::span(&params, 1));
  Status st = device_->dispatch(**kernel, args);
  ASSERT_FALSE(st.is_ok());
  EXPECT_EQ(st.error().api_call, "clEnqueueNDRangeKernel");
  EXPECT_EQ(st.error().result_name, "CL_INVALID_WORK_GROUP_SIZE");
  EXPECT_TRUE(device_->finish().is_ok());
}

TEST_F(OpenClDevice, LocalMemoryOneByteOverTheLimitIsRefused) {
  LocalDispatch d;
  ASSERT_NO_FATAL_FAILURE(prepare_local_dispatch(*device_, d));
  auto& kernel = d.kernel;
  auto& args = d.args;
  args.dynamic_local_bytes = device_->info().local_mem_size + 1;
  Status st = device_->dispatch(*kernel, args);
  ASSERT_FALSE(st.is_ok()) << "local_mem_size + 1 bytes of __local memory were accepted";
  EXPECT_EQ(st.error().device, "opencl:0");
  // Either the driver refuses (an API error with its code) or, where the driver would run it
  // (PoCL), the backend refuses it before enqueue, naming the limit.
  if (st.error().kind == core::ErrorKind::api_error) {
    EXPECT_FALSE(st.error().result_name.empty());
  } else {
    EXPECT_EQ(st.error().kind, core::ErrorKind::invalid_argument);
    EXPECT_NE(st.error().message.find(std::to_string(device_->info().local_mem_size)),
              std::string::npos)
        << st.describe();
  }
  // At the limit itself the kernel runs.
  args.dynamic_local_bytes = device_->info().local_mem_size;
  st = device_->dispatch(*kernel, args);
  EXPECT_TRUE(st.is_ok()) << st.describe();
  EXPECT_TRUE(device_->finish().is_ok());
}

// A caller's declared count of local memory is what the check weighs, not the driver's
// CL_KERNEL_LOCAL_MEM_SIZE: declared over the limit is refused before enqueue and says so, even
// for a kernel whose own use is small; declared at the limit runs.
TEST_F(OpenClDevice, DeclaredLocalMemoryIsWhatTheCheckWeighs) {
  LocalDispatch d;
  ASSERT_NO_FATAL_FAILURE(prepare_local_dispatch(*device_, d));
  auto& kernel = d.kernel;
  auto& args = d.args;
  args.dynamic_local_bytes = kWg * 4;
  args.declared_local_bytes = device_->info().local_mem_size + 1;
  Status st = device_->dispatch(*kernel, args);
  ASSERT_FALSE(st.is_ok());
  EXPECT_EQ(st.error().kind, core::ErrorKind::invalid_argument);
  EXPECT_NE(st.error().message.find("as declared"), std::string::npos) << st.describe();
  args.declared_local_bytes = device_->info().local_mem_size;
  st = device_->dispatch(*kernel, args);
  EXPECT_TRUE(st.is_ok()) << st.describe();
  EXPECT_TRUE(device_->finish().is_ok());
}

}  // namespace
}  // namespace gauntlet
