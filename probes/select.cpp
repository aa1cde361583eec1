#include "probes/select.h"

#include <sstream>

#include "backends/host/host_device.h"
#include "probes/merge.h"

namespace gauntlet::probes {

namespace {

bool is_compute(const core::DeviceInfo& device) { return device.id.api != core::Api::drm; }

std::vector<std::string> split(const std::string& spec) {
  std::vector<std::string> parts;
  std::stringstream in(spec);
  std::string part;
  while (std::getline(in, part, ',')) {
    if (!part.empty()) parts.push_back(part);
  }
  return parts;
}

void add_unique(std::vector<core::DeviceId>& ids, const core::DeviceId& id) {
  for (const auto& existing : ids) {
    if (existing == id) return;
  }
  ids.push_back(id);
}

}  // namespace

std::string describe_available(const Inventory& inventory) {
  std::string out;
  for (const auto& device : inventory.devices()) {
    if (!out.empty()) out += ", ";
    out += device.id.to_string() + " (" + device.name;
    if (!device.usable) out += ", unusable";
    if (device.id.api == core::Api::drm) out += ", enumeration only";
    out += ")";
  }
  return out.empty() ? "none" : out;
}

// "all" is every usable compute device and the cpu device, not the host: the host is the C++
// reference every device is compared with, judged only when named.
core::Result<Selection> select_devices(const std::string& spec, core::Fallback fallback,
                                       const Inventory& inventory) {
  Selection selection;
  std::vector<std::string> problems;
  const auto parts = split(spec);
  if (parts.empty()) {
    return core::make_error(core::ErrorKind::invalid_argument, "no device was named");
  }
  for (const auto& part : parts) {
    if (part == "all") {
      for (const auto& device : inventory.devices()) {
        if (!is_compute(device) || backends::host::is_reference(device.id)) continue;
        if (device.usable) {
          add_unique(selection.devices, device.id);
        } else {
          selection.notes.push_back(device.id.to_string() +
                                    " is unusable: " + device.unusable_reason);
        }
      }
      continue;
    }
    if (auto bus = normalize_pci_bus_id(part)) {
      bool found = false;
      for (const auto& device : inventory.devices()) {
        if (is_compute(device) && device.usable && device.pci_bus_id &&
            normalize_pci_bus_id(*device.pci_bus_id) == bus) {
          add_unique(selection.devices, device.id);
          found = true;
        }
      }
      if (!found) problems.push_back("no usable compute device at PCI bus id " + *bus);
      continue;
    }
    auto id = core::DeviceId::parse(part);
    if (!id) {
      return core::make_error(
          core::ErrorKind::invalid_argument,
          "unknown device '" + part +
              "' (expected all, host, cpu, opencl:N, vulkan:N or a PCI bus id)");
    }
    const core::DeviceInfo* device = inventory.find(*id);
    if (device == nullptr) {
      problems.push_back(part + " does not exist");
    } else if (!is_compute(*device)) {
      problems.push_back(part + " is a DRM view, enumeration only; use its OpenCL or Vulkan view");
    } else if (!device->usable) {
      problems.push_back(part + " is unusable: " + device->unusable_reason);
    } else {
      add_unique(selection.devices, *id);
    }
  }
  if (problems.empty()) return selection;

  std::string message;
  for (const auto& p : problems) message += (message.empty() ? "" : "; ") + p;
  if (fallback == core::Fallback::host) {
    selection.notes.push_back(message + "; falling back to host as --fallback=host asks");
    add_unique(selection.devices, core::DeviceId{core::Api::host, 0});
    selection.fell_back = true;
    return selection;
  }
  return core::make_error(core::ErrorKind::not_found,
                          message + ". Devices here: " + describe_available(inventory) +
                              ". Use --fallback=host to run on the host instead.");
}

}  // namespace gauntlet::probes
