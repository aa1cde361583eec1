#include "backends/catalog.h"

#include "backends/host/host_device.h"
#include "build_options.h"
#ifdef GAUNTLET_WITH_OPENCL
#include "backends/opencl/opencl_device.h"
#endif
#ifdef GAUNTLET_WITH_VULKAN
#include "backends/vulkan/vulkan_device.h"
#endif
#ifdef GAUNTLET_WITH_DRM
#include "backends/drm/drm_enumerate.h"
#endif

namespace gauntlet::backends {

std::vector<core::Api> compiled_apis() {
  std::vector<core::Api> apis;
#ifdef GAUNTLET_WITH_OPENCL
  apis.push_back(core::Api::opencl);
#endif
#ifdef GAUNTLET_WITH_VULKAN
  apis.push_back(core::Api::vulkan);
#endif
#ifdef GAUNTLET_WITH_DRM
  apis.push_back(core::Api::drm);
#endif
  apis.push_back(core::Api::host);
  return apis;
}

bool is_compiled(core::Api api) {
  for (auto a : compiled_apis()) {
    if (a == api) return true;
  }
  return false;
}

Result<std::vector<core::DeviceInfo>> enumerate(core::Api api,
                                                [[maybe_unused]] const core::Options& options) {
  switch (api) {
    case core::Api::host:
      return std::vector<core::DeviceInfo>{host::describe(), host::describe_cpu()};
#ifdef GAUNTLET_WITH_OPENCL
    case core::Api::opencl:
      return opencl::enumerate();
#endif
#ifdef GAUNTLET_WITH_VULKAN
    case core::Api::vulkan:
      return vulkan::enumerate(options);
#endif
#ifdef GAUNTLET_WITH_DRM
    case core::Api::drm:
      return drm::enumerate(drm::Roots::from_options(options));
#endif
    default:
      break;
  }
  return core::make_error(core::ErrorKind::unsupported,
                          std::string("this build has no ") + core::to_string(api) + " support");
}

Result<std::unique_ptr<Device>> open(const core::DeviceId& id,
                                     [[maybe_unused]] const core::Options& options) {
  switch (id.api) {
    case core::Api::host:
      if (host::is_cpu(id)) return host::open(host::describe_cpu());
      if (id.index == 0) return host::open();
      break;
#ifdef GAUNTLET_WITH_OPENCL
    case core::Api::opencl:
      return opencl::open(id.index, options);
#endif
#ifdef GAUNTLET_WITH_VULKAN
    case core::Api::vulkan:
      return vulkan::open(id.index, options);
#endif
    case core::Api::drm:
      return core::make_error(core::ErrorKind::unsupported,
                              "DRM devices are enumerated only; use their OpenCL or Vulkan view",
                              id.to_string());
    default:
      break;
  }
  // The device is not there for this build: the same as an index past the last device.
  return core::make_error(core::ErrorKind::not_found,
                          std::string("this build has no ") + core::to_string(id.api) + " support",
                          id.to_string());
}

}  // namespace gauntlet::backends
