#include "conformance/run_kernel.h"

#include <cstdio>

namespace gauntlet::conformance {

std::string check_guard(const Bytes& whole, size_t payload, size_t buffer_index) {
  for (size_t i = payload; i < whole.size(); ++i) {
    if (whole[i] != kCanary) {
      char text[200];
      std::snprintf(text, sizeof text,
                    "guard region of buffer %zu overwritten at byte %zu past its %zu-byte payload "
                    "(canary 0x%02x, found 0x%02x)",
                    buffer_index, i - payload, payload, static_cast<unsigned>(kCanary),
                    static_cast<unsigned>(whole[i]));
      return text;
    }
  }
  return {};
}

Status run_kernel(backends::Device& device, const backends::Kernel& kernel, KernelRun& run) {
  std::vector<std::unique_ptr<backends::Buffer>> owned;
  backends::DispatchArgs args;
  for (const Bytes& payload : run.buffers) {
    Bytes whole(payload.size() + kGuardBytes, kCanary);
    std::copy(payload.begin(), payload.end(), whole.begin());
    auto buffer = device.allocate(whole.size());
    if (!buffer) return buffer.error();
    GAUNTLET_TRY(device.upload(**buffer, whole));
    args.buffers.push_back(buffer->get());
    owned.push_back(std::move(*buffer));
  }
  args.params = run.params;
  args.groups = run.groups;
  args.dynamic_local_bytes = run.dynamic_local_bytes;
  args.declared_local_bytes = run.declared_local_bytes;
  GAUNTLET_TRY(device.dispatch(kernel, args));
  GAUNTLET_TRY(device.finish());
  for (size_t i = 0; i < run.buffers.size(); ++i) {
    if (i < run.is_output.size() && !run.is_output[i]) continue;
    Bytes whole(run.buffers[i].size() + kGuardBytes);
    GAUNTLET_TRY(device.download(*owned[i], whole));
    if (auto guard = check_guard(whole, run.buffers[i].size(), i); !guard.empty()) {
      return core::make_error(core::ErrorKind::internal, guard, device.name());
    }
    std::copy(whole.begin(), whole.begin() + static_cast<ptrdiff_t>(run.buffers[i].size()),
              run.buffers[i].begin());
  }
  return Status::ok();
}

Status build_and_run(backends::Device& device, const backends::KernelSource& source,
                     KernelRun& run) {
  auto kernel = device.build(source);
  if (!kernel) return kernel.error();
  return run_kernel(device, **kernel, run);
}

}  // namespace gauntlet::conformance
