#pragma once
// Internal to backends/vulkan: vulkan.hpp RAII handles, the instance, and the one place where a
// thrown vk::SystemError becomes a core::Error. vk::raii throws; every public entry point of
// this folder runs its body through `guarded()`, so no exception crosses the module edge.
#include <exception>
#include <memory>
#include <string>
#include <utility>
#include <vector>
#include <vulkan/vulkan_raii.hpp>

#include "core/device_info.h"
#include "core/status.h"

namespace gauntlet::backends::vulkan {

// Thrown inside this folder for a failure that is not a VkResult; caught by `guarded()`.
struct Failure : std::exception {
  explicit Failure(core::Error e) : error(std::move(e)) {}
  const char* what() const noexcept override { return error.message.c_str(); }
  core::Error error;
};

[[noreturn]] void fail(core::ErrorKind kind, std::string message, std::string device);

// "vk::Queue::submit: ErrorDeviceLost" -> api_error naming vkQueueSubmit and the VkResult.
core::Error to_error(const vk::SystemError& e, const std::string& device);
core::Error result_error(const std::string& call, vk::Result result, const std::string& device);

template <typename F>
auto guarded(const std::string& device, F&& body) -> decltype(body()) {
  try {
    return body();
  } catch (const Failure& e) {
    return e.error;
  } catch (const vk::SystemError& e) {
    return to_error(e, device);
  } catch (const std::exception& e) {
    return core::make_error(core::ErrorKind::internal, e.what(), device);
  }
}

struct InstanceBundle {
  vk::raii::Context context;
  vk::raii::Instance instance{nullptr};
  vk::raii::DebugUtilsMessengerEXT messenger{nullptr};
  uint32_t api_version = 0;
  bool validation = false;

  InstanceBundle();
};

// API 1.2 or newer (1.3 where the loader has it). With `validation`, the Khronos validation
// layer and a messenger that records every warning and error (see validation_messages()).
std::unique_ptr<InstanceBundle> create_instance(bool validation);

// A physical device that has a compute queue, with the first such queue family.
struct ComputeDevice {
  vk::raii::PhysicalDevice physical;
  uint32_t queue_family = 0;
};

// In the loader's order; index i here is "vulkan:i".
std::vector<ComputeDevice> compute_devices(const vk::raii::Instance& instance);

std::string device_name(int index);  // "vulkan:N"
std::string vendor_name(uint32_t vendor_id);
std::string version_string(uint32_t version);
bool has_extension(const std::vector<vk::ExtensionProperties>& extensions, const char* name);

// The features to enable on a logical device: every feature the device supports, except the
// robustness ones (they cost speed, and kernels must stay in bounds anyway). The structures
// point at each other, so the set is never copied or moved.
class FeatureChain {
 public:
  FeatureChain(const vk::raii::PhysicalDevice& physical, uint32_t api_version);
  FeatureChain(const FeatureChain&) = delete;
  FeatureChain& operator=(const FeatureChain&) = delete;

  const vk::PhysicalDeviceFeatures2& head() const { return features2_; }
  const vk::PhysicalDeviceFeatures& core() const { return features2_.features; }
  const vk::PhysicalDeviceVulkan11Features& v11() const { return v11_; }
  const vk::PhysicalDeviceVulkan12Features& v12() const { return v12_; }
  const vk::PhysicalDeviceVulkan13Features& v13() const { return v13_; }
  const vk::PhysicalDevice16BitStorageFeatures& storage16() const { return storage16_; }
  bool has_v12() const { return has_v12_; }
  bool has_v13() const { return has_v13_; }

 private:
  vk::PhysicalDeviceFeatures2 features2_;
  vk::PhysicalDeviceVulkan11Features v11_;
  vk::PhysicalDeviceVulkan12Features v12_;
  vk::PhysicalDeviceVulkan13Features v13_;
  vk::PhysicalDevice16BitStorageFeatures storage16_;  // before 1.2, where Vulkan11Features is not
  bool has_v12_ = false;
  bool has_v13_ = false;
};

// What the driver claims about `device`, without creating a logical device.
core::DeviceInfo describe(const ComputeDevice& device, int index, uint32_t instance_api);

// The API version used with a device: the lower of the instance's and the device's.
uint32_t device_api(const vk::raii::PhysicalDevice& physical, uint32_t instance_api);

// Device extensions to enable: those that change behaviour we rely on (portability subset).
std::vector<const char*> device_extensions(const std::vector<vk::ExtensionProperties>& available);

}  // namespace gauntlet::backends::vulkan
