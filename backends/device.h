#pragma once
// The one small compute interface every backend implements: buffers with accounting, kernels
// built from embedded OpenCL C or SPIR-V (or a C++ function on the host), dispatch, finish.
//
// Kernel calling convention, the same on every API:
//   binding/argument i (0..n-1)  the buffers of DispatchArgs::buffers, in order
//   OpenCL argument n            the parameter block (a struct passed by value), if params_bytes
//   OpenCL argument n or n+1     a __local buffer of DispatchArgs::dynamic_local_bytes, if non-zero
//   Vulkan push constants        the parameter block
//   Vulkan specialization ids    0, 1, 2 = workgroup size x, y, z; 3 + i = constants[i]
//   OpenCL build options         -DNAME=value for each constant, and WG_X, WG_Y, WG_Z
#include <algorithm>
#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/device_info.h"
#include "core/source_location.h"
#include "core/status.h"

namespace gauntlet::backends {

using core::Error;
using core::Result;
using core::Status;

// Bytes in use and their peak, shared by a device and its buffers so that a buffer freed after
// its device is gone does no harm.
struct MemoryAccounting {
  std::atomic<uint64_t> in_use{0};
  std::atomic<uint64_t> peak{0};
  void add(uint64_t bytes);
  void remove(uint64_t bytes);
};

class Buffer {
 public:
  Buffer(uint64_t owner, std::string owner_name, size_t size,
         std::shared_ptr<MemoryAccounting> accounting);
  virtual ~Buffer();
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  size_t size() const { return size_; }
  uint64_t owner() const { return owner_; }
  const std::string& owner_name() const { return owner_name_; }

 private:
  uint64_t owner_;
  std::string owner_name_;
  size_t size_;
  std::shared_ptr<MemoryAccounting> accounting_;
};

struct HostInvocation;
using HostKernelFn = std::function<Status(const HostInvocation&)>;

struct KernelConstant {
  std::string name;
  int64_t value = 0;
};

struct KernelSource {
  std::string name;           // entry point (OpenCL kernel name; Vulkan uses "main")
  std::string_view opencl_c;  // .cl text
  // OpenCL C placed before opencl_c, in order (e.g. a weight type's block decoder).
  std::vector<std::string_view> opencl_headers;
  std::span<const uint32_t> spirv;  // compiled .comp
  HostKernelFn host;                // the C++ reference, for the host backend
  std::vector<KernelConstant> constants;
  std::array<uint32_t, 3> workgroup{64, 1, 1};
  uint32_t buffer_count = 0;
  uint32_t params_bytes = 0;
  bool dynamic_local = false;  // OpenCL: a trailing __local argument
  // Vulkan: buffers (indices into the dispatch's buffers) read a second time as uniform texel
  // buffers of R32_UINT words, the i-th at binding buffer_count + i; a CPU driver gathers a texel
  // fetch where it loads a storage buffer lane by lane.
  std::vector<uint32_t> texel_views;
  // Vulkan: each texel view also as 16-byte vectors (R32G32B32A32_UINT), the i-th at binding
  // buffer_count + texel_views.size() + i: llvmpipe fetches a texel through a function call and a
  // gather, so one 16-byte fetch costs what a word's did (BM_Matvec q8_0 2.8 -> 4.2-4.6 GB/s).
  bool texel_vectors = false;
  uint32_t texel_bindings() const {
    return static_cast<uint32_t>(texel_views.size()) * (texel_vectors ? 2u : 1u);
  }
  std::string build_options;  // extra OpenCL build options, e.g. "-cl-std=CL3.0"
};

class Kernel {
 public:
  Kernel(uint64_t owner, KernelSource source, std::string build_log = {})
      : owner_(owner), source_(std::move(source)), build_log_(std::move(build_log)) {}
  virtual ~Kernel() = default;
  uint64_t owner() const { return owner_; }
  const KernelSource& source() const { return source_; }
  // What the driver's compiler said while building it (OpenCL); empty when it said nothing.
  const std::string& build_log() const { return build_log_; }

 private:
  uint64_t owner_;
  KernelSource source_;
  std::string build_log_;
};

struct DispatchArgs {
  std::vector<Buffer*> buffers;
  std::span<const std::byte> params;        // the parameter block; its size must equal params_bytes
  std::array<uint32_t, 3> groups{1, 1, 1};  // workgroups per dimension
  size_t dynamic_local_bytes = 0;
  // The caller's own count of the kernel's local memory (its static arrays and
  // dynamic_local_bytes), where it knows it: OpenCL then checks that against the limit before
  // enqueue, instead of CL_KERNEL_LOCAL_MEM_SIZE, which NVIDIA's driver reports a few bytes over
  // what the kernel asks (an H200 ran a 49152-byte static array correctly while reporting 49156).
  size_t declared_local_bytes = 0;
  // When set, the dispatch completes before returning and the device time lands here.
  double* device_seconds = nullptr;
};

// What a host kernel sees: raw views of the buffers and the parameter block.
struct HostInvocation {
  std::vector<std::span<std::byte>> buffers;
  std::span<const std::byte> params;
  std::array<uint32_t, 3> groups;
  const KernelSource* source;

  template <typename T>
  std::span<T> buffer(size_t i) const {
    auto raw = buffers.at(i);
    return {reinterpret_cast<T*>(raw.data()), raw.size() / sizeof(T)};
  }
  template <typename T>
  T params_as() const;
  int64_t constant(std::string_view name, int64_t fallback = 0) const;
};

class Device {
 public:
  explicit Device(core::DeviceInfo info);
  virtual ~Device() = default;
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;

  const core::DeviceInfo& info() const { return info_; }
  std::string name() const { return info_.id.to_string(); }
  uint64_t uid() const { return uid_; }

  Result<std::unique_ptr<Buffer>> allocate(size_t bytes);
  Status upload(Buffer& dst, std::span<const std::byte> src, size_t offset = 0);
  Status download(const Buffer& src, std::span<std::byte> dst, size_t offset = 0);
  Result<std::unique_ptr<Kernel>> build(const KernelSource& source);
  // Refuses, before anything runs, a kernel or buffer that belongs to another device.
  Status dispatch(const Kernel& kernel, const DispatchArgs& args);
  Status finish();

  uint64_t bytes_in_use() const { return accounting_->in_use; }
  uint64_t peak_bytes() const { return accounting_->peak; }
  void reset_peak() { accounting_->peak = accounting_->in_use.load(); }

 protected:
  virtual Result<std::unique_ptr<Buffer>> do_allocate(size_t bytes) = 0;
  virtual Status do_upload(Buffer& dst, std::span<const std::byte> src, size_t offset) = 0;
  virtual Status do_download(const Buffer& src, std::span<std::byte> dst, size_t offset) = 0;
  virtual Result<std::unique_ptr<Kernel>> do_build(const KernelSource& source) = 0;
  virtual Status do_dispatch(const Kernel& kernel, const DispatchArgs& args) = 0;
  virtual Status do_finish() = 0;

  const std::shared_ptr<MemoryAccounting>& accounting() const { return accounting_; }
  Error error(core::ErrorKind kind, std::string message,
              core::SourceLocation at = core::SourceLocation::current()) const;

 private:
  core::DeviceInfo info_;
  uint64_t uid_;
  std::shared_ptr<MemoryAccounting> accounting_ = std::make_shared<MemoryAccounting>();
};

template <typename T>
T HostInvocation::params_as() const {
  T value{};
  std::memcpy(&value, params.data(), std::min(sizeof(T), params.size()));
  return value;
}

}  // namespace gauntlet::backends
