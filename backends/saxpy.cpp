#include "backends/saxpy.h"

#include <vector>

#include "build_options.h"
#include "kernels/saxpy_cl.h"
#ifdef GAUNTLET_HAVE_SPIRV
#include "kernels/saxpy_comp.h"
#endif

namespace gauntlet::backends {

namespace {
Status saxpy_host(const HostInvocation& call) {
  auto p = call.params_as<SaxpyParams>();
  auto x = call.buffer<const float>(0);
  auto y = call.buffer<float>(1);
  for (uint32_t i = 0; i < p.n; ++i) y[i] = p.a * x[i] + y[i];
  return Status::ok();
}
}  // namespace

KernelSource saxpy_kernel(uint32_t workgroup_size) {
  KernelSource source;
  source.name = "saxpy";
  source.opencl_c = kernels::saxpy_cl;
#ifdef GAUNTLET_HAVE_SPIRV
  source.spirv = kernels::saxpy_comp;
#endif
  source.host = saxpy_host;
  source.workgroup = {workgroup_size, 1, 1};
  source.buffer_count = 2;
  source.params_bytes = sizeof(SaxpyParams);
  return source;
}

Result<std::vector<float>> run_saxpy(Device& device, float a, const std::vector<float>& x,
                                     const std::vector<float>& y) {
  const size_t bytes = x.size() * sizeof(float);
  auto kernel = device.build(saxpy_kernel());
  if (!kernel) return kernel.error();
  auto bx = device.allocate(bytes);
  if (!bx) return bx.error();
  auto by = device.allocate(bytes);
  if (!by) return by.error();
  GAUNTLET_TRY(device.upload(**bx, std::as_bytes(std::span(x))));
  GAUNTLET_TRY(device.upload(**by, std::as_bytes(std::span(y))));
  SaxpyParams params{a, static_cast<uint32_t>(x.size())};
  DispatchArgs args;
  args.buffers = {bx->get(), by->get()};
  args.params = std::as_bytes(std::span(&params, 1));
  const uint32_t wg = (*kernel)->source().workgroup[0];
  args.groups = {static_cast<uint32_t>((x.size() + wg - 1) / wg), 1, 1};
  GAUNTLET_TRY(device.dispatch(**kernel, args));
  GAUNTLET_TRY(device.finish());
  std::vector<float> out(x.size());
  GAUNTLET_TRY(device.download(**by, std::as_writable_bytes(std::span(out))));
  return out;
}

}  // namespace gauntlet::backends
