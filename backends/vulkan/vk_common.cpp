#include "backends/vulkan/vk_common.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>

#include "backends/vulkan/vulkan_device.h"

namespace gauntlet::backends::vulkan {

namespace {

std::mutex& messages_mutex() {
  static std::mutex m;
  return m;
}

std::vector<std::string>& messages() {
  static std::vector<std::string> v;
  return v;
}

VKAPI_ATTR VkBool32 VKAPI_CALL on_validation_message(
    VkDebugUtilsMessageSeverityFlagBitsEXT severity, VkDebugUtilsMessageTypeFlagsEXT /*types*/,
    const VkDebugUtilsMessengerCallbackDataEXT* data, void* /*user*/) {
  std::string text =
      (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT) ? "ERROR " : "WARNING ";
  if (data != nullptr) {
    if (data->pMessageIdName != nullptr) text += std::string(data->pMessageIdName) + ": ";
    if (data->pMessage != nullptr) text += data->pMessage;
  }
  std::lock_guard lock(messages_mutex());
  messages().push_back(std::move(text));
  return VK_FALSE;
}

// vulkan.hpp names calls "vk::Queue::submit" (methods) or "vkCreateBuffer" (RAII constructors).
std::string c_call_name(const std::string& where) {
  static const std::map<std::string, std::string> kSpecial = {
      {"Queue::submit", "vkQueueSubmit"},
      {"Queue::waitIdle", "vkQueueWaitIdle"},
      {"Device::waitIdle", "vkDeviceWaitIdle"},
      {"CommandBuffer::begin", "vkBeginCommandBuffer"},
      {"CommandBuffer::end", "vkEndCommandBuffer"},
      {"CommandBuffer::reset", "vkResetCommandBuffer"},
  };
  std::string name = where;
  if (name.rfind("vk::", 0) == 0) name = name.substr(4);
  if (name.rfind("raii::", 0) == 0) name = name.substr(6);
  if (auto it = kSpecial.find(name); it != kSpecial.end()) return it->second;
  auto colons = name.rfind("::");
  if (colons == std::string::npos) return name;
  std::string method = name.substr(colons + 2);
  if (method.empty()) return name;
  method[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(method[0])));
  return "vk" + method;
}

}  // namespace

std::vector<std::string> validation_messages() {
  std::lock_guard lock(messages_mutex());
  return messages();
}

void clear_validation_messages() {
  std::lock_guard lock(messages_mutex());
  messages().clear();
}

void fail(core::ErrorKind kind, std::string message, std::string device) {
  throw Failure(core::make_error(kind, std::move(message), std::move(device)));
}

core::Error result_error(const std::string& call, vk::Result result, const std::string& device) {
  core::Error e =
      core::api_error(call, static_cast<long long>(result), vk::to_string(result), device);
  if (result == vk::Result::eErrorOutOfDeviceMemory ||
      result == vk::Result::eErrorOutOfHostMemory) {
    e.kind = core::ErrorKind::out_of_memory;
  } else if (result == vk::Result::eErrorDeviceLost) {
    e.kind = core::ErrorKind::device_lost;
  } else if (result == vk::Result::eTimeout) {
    e.kind = core::ErrorKind::timeout;
  }
  return e;
}

core::Error to_error(const vk::SystemError& e, const std::string& device) {
  std::string what = e.what();
  auto colon = what.find(": ");
  std::string where = colon == std::string::npos ? what : what.substr(0, colon);
  return result_error(c_call_name(where), static_cast<vk::Result>(e.code().value()), device);
}

InstanceBundle::InstanceBundle() = default;

std::unique_ptr<InstanceBundle> create_instance(bool validation) {
  auto bundle = std::make_unique<InstanceBundle>();
  uint32_t loader_version = bundle->context.enumerateInstanceVersion();
  if (loader_version < VK_API_VERSION_1_2) {
    fail(core::ErrorKind::unsupported,
         "the Vulkan loader offers API " + version_string(loader_version) +
             "; gauntlet needs 1.2 or newer",
         "vulkan");
  }
  bundle->api_version = std::min<uint32_t>(loader_version, VK_API_VERSION_1_3);
  bundle->validation = validation;

  std::vector<const char*> layers;
  std::vector<const char*> extensions;
  auto available = bundle->context.enumerateInstanceExtensionProperties();
  vk::InstanceCreateFlags flags;
  if (has_extension(available, VK_KHR_PORTABILITY_ENUMERATION_EXTENSION_NAME)) {
    extensions.push_back(VK_KHR_PORTABILITY_ENUMERATION_EXTENSION_NAME);
    flags |= vk::InstanceCreateFlagBits::eEnumeratePortabilityKHR;
  }
  vk::DebugUtilsMessengerCreateInfoEXT messenger_info(
      {},
      vk::DebugUtilsMessageSeverityFlagBitsEXT::eWarning |
          vk::DebugUtilsMessageSeverityFlagBitsEXT::eError,
      vk::DebugUtilsMessageTypeFlagBitsEXT::eGeneral |
          vk::DebugUtilsMessageTypeFlagBitsEXT::eValidation |
          vk::DebugUtilsMessageTypeFlagBitsEXT::ePerformance,
      on_validation_message);
  if (validation) {
    bool found = false;
    for (const auto& layer : bundle->context.enumerateInstanceLayerProperties()) {
      if (std::strcmp(layer.layerName, "VK_LAYER_KHRONOS_validation") == 0) found = true;
    }
    if (!found) {
      fail(core::ErrorKind::unsupported,
           "Vulkan validation was asked for (GAUNTLET_VK_VALIDATION=1) but "
           "VK_LAYER_KHRONOS_validation is not installed",
           "vulkan");
    }
    layers.push_back("VK_LAYER_KHRONOS_validation");
    extensions.push_back(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
  }
  vk::ApplicationInfo app("gauntlet", 1, "gauntlet", 1, bundle->api_version);
  vk::InstanceCreateInfo info(flags, &app, layers, extensions);
  if (validation) info.pNext = &messenger_info;
  bundle->instance = vk::raii::Instance(bundle->context, info);
  if (validation) {
    bundle->messenger = vk::raii::DebugUtilsMessengerEXT(bundle->instance, messenger_info);
  }
  return bundle;
}

std::vector<ComputeDevice> compute_devices(const vk::raii::Instance& instance) {
  std::vector<ComputeDevice> out;
  vk::raii::PhysicalDevices physicals(instance);
  for (auto& physical : physicals) {
    auto families = physical.getQueueFamilyProperties();
    for (uint32_t i = 0; i < families.size(); ++i) {
      if (families[i].queueFlags & vk::QueueFlagBits::eCompute && families[i].queueCount > 0) {
        out.push_back(ComputeDevice{std::move(physical), i});
        break;
      }
    }
  }
  return out;
}

std::string device_name(int index) { return "vulkan:" + std::to_string(index); }

std::string vendor_name(uint32_t vendor_id) {
  switch (vendor_id) {
    case 0x1002:
      return "AMD";
    case 0x1010:
      return "Imagination";
    case 0x106B:
      return "Apple";
    case 0x10DE:
      return "NVIDIA";
    case 0x13B5:
      return "ARM";
    case 0x14E4:
      return "Broadcom";
    case 0x1AE0:
      return "Google";
    case 0x5143:
      return "Qualcomm";
    case 0x8086:
      return "Intel";
    case VK_VENDOR_ID_MESA:
      return "Mesa";
    case VK_VENDOR_ID_VIV:
      return "Vivante";
    case VK_VENDOR_ID_VSI:
      return "VeriSilicon";
    case VK_VENDOR_ID_KAZAN:
      return "Kazan";
    case VK_VENDOR_ID_CODEPLAY:
      return "Codeplay";
    case VK_VENDOR_ID_POCL:
      return "PoCL";
    default:
      break;
  }
  char hex[16];
  std::snprintf(hex, sizeof hex, "0x%04x", vendor_id);
  return hex;
}

std::string version_string(uint32_t version) {
  return std::to_string(VK_API_VERSION_MAJOR(version)) + "." +
         std::to_string(VK_API_VERSION_MINOR(version)) + "." +
         std::to_string(VK_API_VERSION_PATCH(version));
}

bool has_extension(const std::vector<vk::ExtensionProperties>& extensions, const char* name) {
  for (const auto& e : extensions) {
    if (std::strcmp(e.extensionName, name) == 0) return true;
  }
  return false;
}

FeatureChain::FeatureChain(const vk::raii::PhysicalDevice& physical, uint32_t api_version) {
  has_v12_ = api_version >= VK_API_VERSION_1_2;
  has_v13_ = api_version >= VK_API_VERSION_1_3;
  if (has_v12_) {
    features2_.pNext = &v11_;
    v11_.pNext = &v12_;
    if (has_v13_) v12_.pNext = &v13_;
  } else {
    features2_.pNext = &storage16_;
  }
  (*physical).getFeatures2(&features2_, *physical.getDispatcher());
  features2_.features.robustBufferAccess = VK_FALSE;
  v13_.robustImageAccess = VK_FALSE;
  if (!has_v12_) {
    v11_.storageBuffer16BitAccess = storage16_.storageBuffer16BitAccess;
  }
}

std::vector<const char*> device_extensions(const std::vector<vk::ExtensionProperties>& available) {
  std::vector<const char*> out;
  if (has_extension(available, "VK_KHR_portability_subset")) {
    out.push_back("VK_KHR_portability_subset");
  }
  return out;
}

}  // namespace gauntlet::backends::vulkan
