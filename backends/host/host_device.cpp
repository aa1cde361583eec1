#include "backends/host/host_device.h"

#include <sys/sysinfo.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <new>
#include <thread>

#include "core/text.h"
#include "hwy/targets.h"

namespace gauntlet::backends::host {

namespace {

class HostBuffer final : public Buffer {
 public:
  HostBuffer(uint64_t owner, std::string owner_name, size_t size,
             std::shared_ptr<MemoryAccounting> accounting, std::byte* data)
      : Buffer(owner, std::move(owner_name), size, std::move(accounting)), data_(data) {}
  ~HostBuffer() override { std::free(data_); }
  std::byte* data() const { return data_; }

 private:
  std::byte* data_;
};

std::string cpu_model_name() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("model name", 0) == 0) {
      auto colon = line.find(':');
      if (colon != std::string::npos) return line.substr(colon + 2);
    }
  }
  return "host CPU";
}

class HostDevice final : public Device {
 public:
  explicit HostDevice(const core::DeviceInfo& info) : Device(info) {}

 protected:
  Result<std::unique_ptr<Buffer>> do_allocate(size_t bytes) override {
    size_t rounded = (bytes + 63) / 64 * 64;
    void* data = std::aligned_alloc(64, rounded);
    if (data == nullptr) {
      return error(core::ErrorKind::out_of_memory,
                   "host allocation of " + std::to_string(bytes) + " bytes failed");
    }
    return std::unique_ptr<Buffer>(std::make_unique<HostBuffer>(uid(), name(), bytes, accounting(),
                                                                static_cast<std::byte*>(data)));
  }

  Status do_upload(Buffer& dst, std::span<const std::byte> src, size_t offset) override {
    std::memcpy(static_cast<HostBuffer&>(dst).data() + offset, src.data(), src.size());
    return Status::ok();
  }

  Status do_download(const Buffer& src, std::span<std::byte> dst, size_t offset) override {
    std::memcpy(dst.data(), static_cast<const HostBuffer&>(src).data() + offset, dst.size());
    return Status::ok();
  }

  Result<std::unique_ptr<Kernel>> do_build(const KernelSource& source) override {
    if (!source.host) {
      return error(core::ErrorKind::unsupported,
                   "kernel '" + source.name + "' has no host reference function");
    }
    return std::make_unique<Kernel>(uid(), source);
  }

  Status do_dispatch(const Kernel& kernel, const DispatchArgs& args) override {
    HostInvocation call;
    for (Buffer* b : args.buffers) {
      call.buffers.emplace_back(static_cast<HostBuffer*>(b)->data(), b->size());
    }
    call.params = args.params;
    call.groups = args.groups;
    call.source = &kernel.source();
    auto start = std::chrono::steady_clock::now();
    Status status = kernel.source().host(call);
    if (args.device_seconds != nullptr) {
      *args.device_seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    }
    return status;
  }

  Status do_finish() override { return Status::ok(); }
};

}  // namespace

core::DeviceInfo describe() {
  core::DeviceInfo info;
  info.id = core::DeviceId{core::Api::host, 0};
  info.name = cpu_model_name();
  info.vendor = "host";
  info.driver_name = "gauntlet host reference";
  info.products = core::Products::exact;
  info.device_type = "cpu";
  info.platform_name = "host";
  struct sysinfo si {};
  if (::sysinfo(&si) == 0) {
    info.global_mem_size = static_cast<uint64_t>(si.totalram) * si.mem_unit;
  }
  info.max_mem_alloc_size = info.global_mem_size;
  info.host_unified_memory = true;
  info.max_compute_units = std::max(1u, std::thread::hardware_concurrency());
  info.max_work_group_size = 1;
  info.max_work_item_sizes = {1, 1, 1};
  // The host reference converts 16-bit and 8-bit formats in software, always correctly.
  info.features.fp16_storage = true;
  info.features.fp16_arithmetic = true;
  info.features.bf16 = true;
  info.features.fp64 = true;
  info.features.int8_storage = true;
  info.features.int8_arithmetic = true;
  return info;
}

namespace {

// The best instruction set this processor supports among those the build compiles (HWY_TARGETS):
// the one Highway's dispatch runs the cpu device's kernels and its peak on.
int64_t simd_target() {
  const int64_t usable = hwy::SupportedTargets() & HWY_TARGETS;
  return usable & -usable;  // the lowest bit is the best target
}

}  // namespace

core::Status cap_simd_target(const std::string& name) {
  const int64_t usable = hwy::SupportedTargets() & HWY_TARGETS;
  std::string names;
  for (int64_t rest = usable; rest != 0; rest &= rest - 1) {
    const int64_t target = rest & -rest;
    if (core::same_ignoring_case(name, hwy::TargetName(target))) {
      // Highway's own switch for running below the best target: every later dispatch picks the
      // best of the targets left.
      hwy::SetSupportedTargetsForTest(usable & ~(target - 1));
      return core::Status::ok();
    }
    names += std::string(names.empty() ? "" : ", ") + hwy::TargetName(target);
  }
  return core::make_error(core::ErrorKind::invalid_argument,
                          "GAUNTLET_CPU_TARGET=" + name +
                              " is not an instruction set this processor and build run (" + names +
                              ")");
}

core::DeviceInfo describe_cpu() {
  core::DeviceInfo info = describe();
  info.id = core::DeviceId{core::Api::host, kCpuIndex};
  info.vendor = "cpu";
  info.driver_name = "gauntlet cpu (8-bit activations, integer SIMD dot products via Highway)";
  info.products = core::Products::int8_simd;
  // As llama.cpp's system info names its CPU variant: the instruction set the products run on.
  const int64_t target = simd_target();
  info.driver_version = target != 0 ? hwy::TargetName(target) : "none";
  // AVX-512 VNNI's vpdpbusd (engine/cpu/dot_pairs-inl.h); other targets pair bytes in two steps.
  info.features.integer_dot_product = target == HWY_AVX3_DL;
  info.platform_name = "cpu";
  return info;
}

std::unique_ptr<Device> open(const core::DeviceInfo& info) {
  return std::make_unique<HostDevice>(info);
}

}  // namespace gauntlet::backends::host
