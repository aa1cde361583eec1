#include "backends/device.h"

namespace gauntlet::backends {

namespace {
std::atomic<uint64_t> next_uid{1};
}

void MemoryAccounting::add(uint64_t bytes) {
  uint64_t now = in_use.fetch_add(bytes) + bytes;
  uint64_t seen = peak.load();
  while (now > seen && !peak.compare_exchange_weak(seen, now)) {
  }
}

void MemoryAccounting::remove(uint64_t bytes) { in_use.fetch_sub(bytes); }

Buffer::Buffer(uint64_t owner, std::string owner_name, size_t size,
               std::shared_ptr<MemoryAccounting> accounting)
    : owner_(owner),
      owner_name_(std::move(owner_name)),
      size_(size),
      accounting_(std::move(accounting)) {
  if (accounting_) accounting_->add(size_);
}

Buffer::~Buffer() {
  if (accounting_) accounting_->remove(size_);
}

int64_t HostInvocation::constant(std::string_view name, int64_t fallback) const {
  for (const auto& c : source->constants) {
    if (c.name == name) return c.value;
  }
  return fallback;
}

Device::Device(core::DeviceInfo info) : info_(std::move(info)), uid_(next_uid++) {}

Error Device::error(core::ErrorKind kind, std::string message, core::SourceLocation at) const {
  return core::make_error(kind, std::move(message), name(), at);
}

Result<std::unique_ptr<Buffer>> Device::allocate(size_t bytes) {
  if (bytes == 0) return error(core::ErrorKind::invalid_argument, "cannot allocate 0 bytes");
  return do_allocate(bytes);
}

Status Device::upload(Buffer& dst, std::span<const std::byte> src, size_t offset) {
  if (dst.owner() != uid_) {
    return error(core::ErrorKind::invalid_argument,
                 "upload to a buffer of " + dst.owner_name() + " through " + name());
  }
  if (offset > dst.size() || src.size() > dst.size() - offset) {
    return error(core::ErrorKind::invalid_argument,
                 "upload of " + std::to_string(src.size()) + " bytes at offset " +
                     std::to_string(offset) + " overruns a buffer of " +
                     std::to_string(dst.size()) + " bytes");
  }
  if (src.empty()) return Status::ok();
  return do_upload(dst, src, offset);
}

Status Device::download(const Buffer& src, std::span<std::byte> dst, size_t offset) {
  if (src.owner() != uid_) {
    return error(core::ErrorKind::invalid_argument,
                 "download from a buffer of " + src.owner_name() + " through " + name());
  }
  if (offset > src.size() || dst.size() > src.size() - offset) {
    return error(core::ErrorKind::invalid_argument,
                 "download of " + std::to_string(dst.size()) + " bytes at offset " +
                     std::to_string(offset) + " overruns a buffer of " +
                     std::to_string(src.size()) + " bytes");
  }
  if (dst.empty()) return Status::ok();
  return do_download(src, dst, offset);
}

Result<std::unique_ptr<Kernel>> Device::build(const KernelSource& source) {
  return do_build(source);
}

Status Device::dispatch(const Kernel& kernel, const DispatchArgs& args) {
  const auto& src = kernel.source();
  if (kernel.owner() != uid_) {
    return error(core::ErrorKind::invalid_argument,
                 "kernel '" + src.name + "' was built for another device than " + name());
  }
  for (size_t i = 0; i < args.buffers.size(); ++i) {
    const Buffer* b = args.buffers[i];
    if (b == nullptr) {
      return error(core::ErrorKind::invalid_argument,
                   "kernel '" + src.name + "': buffer " + std::to_string(i) + " is null");
    }
    if (b->owner() != uid_) {
      return error(core::ErrorKind::invalid_argument,
                   "kernel '" + src.name + "' on " + name() + " was given buffer " +
                       std::to_string(i) + " of " + b->owner_name() +
                       ": buffers of two devices cannot be mixed in one operation");
    }
  }
  if (args.buffers.size() != src.buffer_count) {
    return error(core::ErrorKind::invalid_argument,
                 "kernel '" + src.name + "' takes " + std::to_string(src.buffer_count) +
                     " buffers, was given " + std::to_string(args.buffers.size()));
  }
  if (args.params.size() != src.params_bytes) {
    return error(core::ErrorKind::invalid_argument,
                 "kernel '" + src.name + "' takes a " + std::to_string(src.params_bytes) +
                     "-byte parameter block, was given " + std::to_string(args.params.size()));
  }
  for (uint32_t g : args.groups) {
    if (g == 0) return error(core::ErrorKind::invalid_argument, "dispatch of zero workgroups");
  }
  return do_dispatch(kernel, args);
}

Status Device::finish() { return do_finish(); }

}  // namespace gauntlet::backends
