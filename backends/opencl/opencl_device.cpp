#include "backends/opencl/opencl_device.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <optional>

#include "backends/opencl/cl_common.h"

namespace gauntlet::backends::opencl {

namespace {

class ClBuffer final : public Buffer {
 public:
  ClBuffer(uint64_t owner, std::string owner_name, size_t size,
           std::shared_ptr<MemoryAccounting> accounting, cl::Buffer mem)
      : Buffer(owner, std::move(owner_name), size, std::move(accounting)), mem_(std::move(mem)) {}
  cl_mem handle() const { return mem_(); }

 private:
  cl::Buffer mem_;
};

class ClKernel final : public Kernel {
 public:
  ClKernel(uint64_t owner, KernelSource source, std::string build_log, cl::Program program,
           cl::Kernel kernel)
      : Kernel(owner, std::move(source), std::move(build_log)),
        program_(std::move(program)),
        kernel_(std::move(kernel)) {}
  cl_kernel handle() const { return kernel_(); }

 private:
  cl::Program program_;
  cl::Kernel kernel_;
};

std::string build_options(const KernelSource& source) {
  std::string options;
  if (source.build_options.find("-cl-std=") == std::string::npos) options = "-cl-std=CL1.2";
  options += " -DWG_X=" + std::to_string(source.workgroup[0]);
  options += " -DWG_Y=" + std::to_string(source.workgroup[1]);
  options += " -DWG_Z=" + std::to_string(source.workgroup[2]);
  for (const auto& c : source.constants) {
    options += " -D" + c.name + "=" + std::to_string(c.value);
  }
  if (!source.build_options.empty()) options += " " + source.build_options;
  return options;
}

// PoCL's compiler writes "N warnings generated." to the process's standard error for a program
// with warnings. Every program whose kernels pass 16-wide vectors has some on an x86 CPU without
// AVX-512: clang's -Wpsabi notes that such a vector "changes the ABI" of a call (vload16, the
// types' 16-value decoders). PoCL rejects -Wno-psabi, and -w would empty the build log too. The
// log keeps every warning (shown with --verbose or on a failed build); the echo is silenced.
bool echoes_build_warnings(const cl::Device& device) {
  return device.getInfo<CL_DEVICE_VERSION>().find("PoCL") != std::string::npos;
}

// Standard error pointed at /dev/null for its lifetime.
class SilencedStderr {
 public:
  SilencedStderr() {
    std::fflush(stderr);
    saved_ = ::dup(STDERR_FILENO);
    const int null = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (saved_ >= 0 && null >= 0) ::dup2(null, STDERR_FILENO);
    if (null >= 0) ::close(null);
  }
  ~SilencedStderr() {
    std::fflush(stderr);
    if (saved_ >= 0) {
      ::dup2(saved_, STDERR_FILENO);
      ::close(saved_);
    }
  }
  SilencedStderr(const SilencedStderr&) = delete;
  SilencedStderr& operator=(const SilencedStderr&) = delete;

 private:
  int saved_ = -1;
};

std::string sizes_text(const std::array<size_t, 3>& v) {
  return "{" + std::to_string(v[0]) + ", " + std::to_string(v[1]) + ", " + std::to_string(v[2]) +
         "}";
}

class ClDevice final : public Device {
 public:
  ClDevice(core::DeviceInfo info, cl::Device device, cl::Context context, cl::CommandQueue queue,
           bool show_build_logs)
      : Device(std::move(info)),
        device_(std::move(device)),
        context_(std::move(context)),
        queue_(std::move(queue)),
        show_build_logs_(show_build_logs),
        silence_build_echo_(!show_build_logs && echoes_build_warnings(device_)) {}

 protected:
  Result<std::unique_ptr<Buffer>> do_allocate(size_t bytes) override {
    cl_int err = CL_SUCCESS;
    cl::Buffer mem(context_, CL_MEM_READ_WRITE, bytes, nullptr, &err);
    if (err != CL_SUCCESS) {
      core::Error e = cl_error("clCreateBuffer", err, name(),
                               "allocation of " + std::to_string(bytes) +
                                   " bytes refused (max_mem_alloc_size " +
                                   std::to_string(info().max_mem_alloc_size) +
                                   ", global_mem_size " + std::to_string(info().global_mem_size) +
                                   ", in use " + std::to_string(bytes_in_use()) + ")");
      if (err == CL_MEM_OBJECT_ALLOCATION_FAILURE || err == CL_OUT_OF_RESOURCES ||
          err == CL_OUT_OF_HOST_MEMORY || err == CL_INVALID_BUFFER_SIZE) {
        e.kind = core::ErrorKind::out_of_memory;
      }
      return e;
    }
    return std::unique_ptr<Buffer>(
        std::make_unique<ClBuffer>(uid(), name(), bytes, accounting(), std::move(mem)));
  }

  Status do_upload(Buffer& dst, std::span<const std::byte> src, size_t offset) override {
    cl_int err = clEnqueueWriteBuffer(queue_(), static_cast<ClBuffer&>(dst).handle(), CL_TRUE,
                                      offset, src.size(), src.data(), 0, nullptr, nullptr);
    if (err != CL_SUCCESS) {
      return cl_error(
          "clEnqueueWriteBuffer", err, name(),
          "upload of " + std::to_string(src.size()) + " bytes at offset " + std::to_string(offset));
    }
    return Status::ok();
  }

  Status do_download(const Buffer& src, std::span<std::byte> dst, size_t offset) override {
    cl_int err = clEnqueueReadBuffer(queue_(), static_cast<const ClBuffer&>(src).handle(), CL_TRUE,
                                     offset, dst.size(), dst.data(), 0, nullptr, nullptr);
    if (err != CL_SUCCESS) {
      return cl_error("clEnqueueReadBuffer", err, name(),
                      "download of " + std::to_string(dst.size()) + " bytes at offset " +
                          std::to_string(offset));
    }
    return Status::ok();
  }

  Result<std::unique_ptr<Kernel>> do_build(const KernelSource& source) override {
    if (source.opencl_c.empty()) {
      return error(core::ErrorKind::unsupported,
                   "kernel '" + source.name + "' has no OpenCL C source");
    }
    cl_int err = CL_SUCCESS;
    std::string text;
    for (std::string_view header : source.opencl_headers) (text += header) += '\n';
    text += source.opencl_c;
    cl::Program program(context_, text, false, &err);
    if (err != CL_SUCCESS) {
      return cl_error("clCreateProgramWithSource", err, name(), "kernel '" + source.name + "'");
    }
    const std::string options = build_options(source);
    {
      std::optional<SilencedStderr> silenced;
      if (silence_build_echo_) silenced.emplace();
      err = program.build(std::vector<cl::Device>{device_}, options.c_str());
    }
    std::string log;
    program.getBuildInfo(device_, CL_PROGRAM_BUILD_LOG, &log);
    while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
    if (err != CL_SUCCESS) {
      return cl_error(
          "clBuildProgram", err, name(),
          "kernel '" + source.name + "' with options '" + options + "'; build log:\n" + log);
    }
    if (show_build_logs_ && !log.empty()) {
      std::fprintf(stderr, "%s: kernel '%s' with options '%s'; build log:\n%s\n", name().c_str(),
                   source.name.c_str(), options.c_str(), log.c_str());
    }
    cl::Kernel kernel(program, source.name.c_str(), &err);
    if (err != CL_SUCCESS) {
      return cl_error("clCreateKernel", err, name(), "kernel '" + source.name + "'");
    }
    return std::unique_ptr<Kernel>(std::make_unique<ClKernel>(
        uid(), source, std::move(log), std::move(program), std::move(kernel)));
  }

  Status do_dispatch(const Kernel& kernel, const DispatchArgs& args) override {
    const auto& src = kernel.source();
    cl_kernel k = static_cast<const ClKernel&>(kernel).handle();
    const std::string what = "kernel '" + src.name + "'";
    cl_uint index = 0;
    for (Buffer* b : args.buffers) {
      cl_mem mem = static_cast<ClBuffer*>(b)->handle();
      cl_int err = clSetKernelArg(k, index, sizeof(cl_mem), &mem);
      if (err != CL_SUCCESS) {
        return cl_error("clSetKernelArg", err, name(),
                        what + " argument " + std::to_string(index) + " (buffer)");
      }
      ++index;
    }
    if (src.params_bytes > 0) {
      cl_int err = clSetKernelArg(k, index, args.params.size(), args.params.data());
      if (err != CL_SUCCESS) {
        return cl_error("clSetKernelArg", err, name(),
                        what + " argument " + std::to_string(index) + " (parameter block of " +
                            std::to_string(args.params.size()) + " bytes)");
      }
      ++index;
    }
    if (src.dynamic_local) {
      cl_int err = clSetKernelArg(k, index, args.dynamic_local_bytes, nullptr);
      if (err != CL_SUCCESS) {
        return cl_error("clSetKernelArg", err, name(),
                        what + " argument " + std::to_string(index) + " (__local, " +
                            std::to_string(args.dynamic_local_bytes) + " bytes; local_mem_size " +
                            std::to_string(info().local_mem_size) + ")");
      }
      ++index;
    } else if (args.dynamic_local_bytes > 0) {
      return error(core::ErrorKind::invalid_argument,
                   what + " takes no __local argument, was given " +
                       std::to_string(args.dynamic_local_bytes) + " bytes");
    }
    GAUNTLET_TRY(check_local_memory(k, what, args.dynamic_local_bytes, args.declared_local_bytes));
    std::array<size_t, 3> local{src.workgroup[0], src.workgroup[1], src.workgroup[2]};
    std::array<size_t, 3> global{};
    for (size_t i = 0; i < 3; ++i) global[i] = size_t{args.groups[i]} * local[i];
    const cl_uint dims = (global[2] > 1 || local[2] > 1)   ? 3
                         : (global[1] > 1 || local[1] > 1) ? 2
                                                           : 1;
    cl_event event = nullptr;
    cl_int err = clEnqueueNDRangeKernel(queue_(), k, dims, nullptr, global.data(), local.data(), 0,
                                        nullptr, args.device_seconds != nullptr ? &event : nullptr);
    if (err != CL_SUCCESS) {
      return cl_error("clEnqueueNDRangeKernel", err, name(),
                      what + " global " + sizes_text(global) + " local " + sizes_text(local) +
                          " dynamic local " + std::to_string(args.dynamic_local_bytes) + " bytes");
    }
    if (args.device_seconds != nullptr) {
      cl::Event owned(event);  // takes over the reference the enqueue returned
      GAUNTLET_TRY(time_event(owned, what, *args.device_seconds));
    }
    return Status::ok();
  }

  Status do_finish() override {
    cl_int err = queue_.finish();
    if (err != CL_SUCCESS) return cl_error("clFinish", err, name());
    return Status::ok();
  }

 private:
  // Some drivers (PoCL on CPU) run a kernel whose local memory exceeds CL_DEVICE_LOCAL_MEM_SIZE;
  // a GPU driver may fail late or corrupt memory instead. The advertised limit is the contract,
  // so a request over it is refused here, before enqueue, and says so.
  Status check_local_memory(cl_kernel k, const std::string& what, size_t dynamic_bytes,
                            size_t declared_bytes) {
    cl_ulong kernel_local = 0;
    cl_int err = clGetKernelWorkGroupInfo(k, device_(), CL_KERNEL_LOCAL_MEM_SIZE,
                                          sizeof kernel_local, &kernel_local, nullptr);
    // CL_KERNEL_LOCAL_MEM_SIZE counts __local arguments already set; some drivers leave them out.
    const uint64_t needed = declared_bytes > 0  ? declared_bytes
                            : err == CL_SUCCESS ? std::max<uint64_t>(kernel_local, dynamic_bytes)
                                                : dynamic_bytes;
    const uint64_t limit = info().local_mem_size;
    if (limit > 0 && needed > limit) {
      return error(core::ErrorKind::invalid_argument,
                   what + " needs " + std::to_string(needed) + " bytes of local memory (" +
                       (declared_bytes > 0 ? std::string("as declared, ")
                                           : std::string("CL_KERNEL_LOCAL_MEM_SIZE with ")) +
                       std::to_string(dynamic_bytes) +
                       " dynamic bytes), over the device's local_mem_size of " +
                       std::to_string(limit) + "; refused before clEnqueueNDRangeKernel");
    }
    return Status::ok();
  }

  Status time_event(const cl::Event& event, const std::string& what, double& seconds) {
    cl_int err = event.wait();
    if (err != CL_SUCCESS) return cl_error("clWaitForEvents", err, name(), what);
    cl_int status = CL_COMPLETE;
    event.getInfo(CL_EVENT_COMMAND_EXECUTION_STATUS, &status);
    if (status < 0) {
      return cl_error("clWaitForEvents", status, name(), what + " failed on the device");
    }
    cl_ulong start = 0, end = 0;
    err = event.getProfilingInfo(CL_PROFILING_COMMAND_START, &start);
    if (err == CL_SUCCESS) err = event.getProfilingInfo(CL_PROFILING_COMMAND_END, &end);
    if (err != CL_SUCCESS) return cl_error("clGetEventProfilingInfo", err, name(), what);
    seconds = end > start ? static_cast<double>(end - start) * 1e-9 : 0.0;
    return Status::ok();
  }

  cl::Device device_;
  cl::Context context_;
  cl::CommandQueue queue_;
  bool show_build_logs_ = false;
  bool silence_build_echo_ = false;
};

}  // namespace

Result<std::unique_ptr<Device>> open(int index, const core::Options& options) {
  const std::string id = core::DeviceId{core::Api::opencl, index}.to_string();
  auto slots = list_devices();
  if (!slots) return slots.error();
  if (index < 0 || static_cast<size_t>(index) >= slots->size()) {
    return core::make_error(core::ErrorKind::not_found,
                            "no such OpenCL device; there are " + std::to_string(slots->size()),
                            id);
  }
  const DeviceSlot& slot = (*slots)[static_cast<size_t>(index)];
  if (slot.list_error != CL_SUCCESS) {
    return cl_error("clGetDeviceIDs", slot.list_error, id,
                    "platform '" + slot.platform_name + "' could not list its devices");
  }
  core::DeviceInfo info = describe(slot, index, /*check_usable=*/false);
  cl_int err = CL_SUCCESS;
  cl::Context context(slot.device, nullptr, nullptr, nullptr, &err);
  if (err != CL_SUCCESS) return cl_error("clCreateContext", err, id);
  // Every dispatch may be timed, so the one queue keeps profiling on; ordering stays simple.
  cl::CommandQueue queue(context, slot.device, cl::QueueProperties::Profiling, &err);
  if (err != CL_SUCCESS) return cl_error("clCreateCommandQueueWithProperties", err, id);
  return std::unique_ptr<Device>(std::make_unique<ClDevice>(
      std::move(info), slot.device, std::move(context), std::move(queue), options.show_build_logs));
}

}  // namespace gauntlet::backends::opencl
