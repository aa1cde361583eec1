#include "backends/drm/drm_enumerate.h"

#include <fcntl.h>
#include <unistd.h>
#include <xf86drm.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <optional>

#include "backends/drm/drm_sysfs.h"

namespace gauntlet::backends::drm {

namespace fs = std::filesystem;

namespace {

// What libdrm knows about one device beyond its node names.
struct LibdrmFacts {
  std::optional<std::string> pci_bus_id;
  uint32_t vendor_id = 0;
  uint32_t device_id = 0;
  std::optional<std::string> platform_name;
  std::string driver_name;
  std::string driver_version;
  std::string version_error;
};

class DeviceList {
 public:
  DeviceList() = default;
  DeviceList(const DeviceList&) = delete;
  DeviceList& operator=(const DeviceList&) = delete;
  ~DeviceList() {
    if (count_ > 0) drmFreeDevices(devices_.data(), count_);
  }
  // drmGetDevices2 with every device; a negative errno on failure.
  int fill() {
    int wanted = drmGetDevices2(0, nullptr, 0);
    if (wanted <= 0) return wanted;
    devices_.assign(static_cast<size_t>(wanted), nullptr);
    int got = drmGetDevices2(0, devices_.data(), wanted);
    if (got < 0) return got;
    count_ = std::min(got, wanted);
    return count_;
  }
  drmDevicePtr at(int i) const { return devices_[static_cast<size_t>(i)]; }
  int count() const { return count_; }

 private:
  std::vector<drmDevicePtr> devices_;
  int count_ = 0;
};

class FileDescriptor {
 public:
  explicit FileDescriptor(int fd) : fd_(fd) {}
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  ~FileDescriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }

 private:
  int fd_;
};

// drmGetVersion on the first node this user can open (render first: it needs no DRM master).
void read_version(drmDevicePtr device, LibdrmFacts& facts) {
  for (int type : {DRM_NODE_RENDER, DRM_NODE_PRIMARY}) {
    if (!(device->available_nodes & (1 << type))) continue;
    const char* node = device->nodes[type];
    FileDescriptor fd(::open(node, O_RDWR | O_CLOEXEC));
    if (fd.get() < 0) {
      facts.version_error += std::string(facts.version_error.empty() ? "" : "; ") + "open(" + node +
                             ") failed: " + std::strerror(errno);
      continue;
    }
    drmVersionPtr version = drmGetVersion(fd.get());
    if (version == nullptr) {
      facts.version_error += std::string(facts.version_error.empty() ? "" : "; ") +
                             "drmGetVersion(" + node + ") failed: " + std::strerror(errno);
      continue;
    }
    facts.driver_name.assign(version->name, static_cast<size_t>(std::max(version->name_len, 0)));
    facts.driver_version = std::to_string(version->version_major) + "." +
                           std::to_string(version->version_minor) + "." +
                           std::to_string(version->version_patchlevel);
    drmFreeVersion(version);
    facts.version_error.clear();
    return;
  }
}

LibdrmFacts facts_of(drmDevicePtr device) {
  LibdrmFacts facts;
  if (device->bustype == DRM_BUS_PCI && device->businfo.pci != nullptr) {
    char slot[32];
    std::snprintf(slot, sizeof slot, "%04x:%02x:%02x.%x", device->businfo.pci->domain,
                  device->businfo.pci->bus, device->businfo.pci->dev, device->businfo.pci->func);
    facts.pci_bus_id = slot;
    if (device->deviceinfo.pci != nullptr) {
      facts.vendor_id = device->deviceinfo.pci->vendor_id;
      facts.device_id = device->deviceinfo.pci->device_id;
    }
  } else if (device->bustype == DRM_BUS_PLATFORM && device->businfo.platform != nullptr) {
    facts.platform_name = device->businfo.platform->fullname;
  }
  read_version(device, facts);
  return facts;
}

std::vector<std::string> node_names(drmDevicePtr device) {
  std::vector<std::string> names;
  for (int type = 0; type < DRM_NODE_MAX; ++type) {
    if (device->available_nodes & (1 << type)) {
      names.push_back(fs::path(device->nodes[type]).filename().string());
    }
  }
  return names;
}

// sysfs fills the record; libdrm's answers win for what it read from the device itself.
void apply(const LibdrmFacts& facts, core::DeviceInfo& info) {
  if (facts.pci_bus_id) info.pci_bus_id = facts.pci_bus_id;
  if (info.vendor_id == 0 && facts.vendor_id != 0) info.vendor_id = facts.vendor_id;
  if (info.device_id == 0 && facts.device_id != 0) info.device_id = facts.device_id;
  if (facts.platform_name) info.api_limits["platform_device"] = *facts.platform_name;
  if (!facts.driver_name.empty()) info.driver_name = facts.driver_name;
  info.driver_version = facts.driver_version;
  if (!facts.version_error.empty()) info.api_limits["driver_version_error"] = facts.version_error;
}

struct Found {
  NodeGroup group;
  std::optional<LibdrmFacts> facts;
};

core::Result<std::vector<Found>> find_with_libdrm(const Roots& roots) {
  DeviceList list;
  int count = list.fill();
  // No /dev/dri at all: a machine (or container) without DRM devices.
  if (count == -ENOENT || count == 0) return std::vector<Found>{};
  if (count < 0) {
    return core::api_error("drmGetDevices2", count, std::strerror(-count), "",
                           "cannot list the DRM devices under /dev/dri");
  }
  std::vector<Found> found;
  for (int i = 0; i < list.count(); ++i) {
    drmDevicePtr device = list.at(i);
    if (device == nullptr) continue;
    found.push_back({make_group(roots.sysfs, node_names(device)), facts_of(device)});
  }
  return found;
}

core::Result<std::vector<Found>> find_in_tree(const Roots& roots) {
  std::error_code ec;
  for (const auto& [root, variable] :
       {std::pair{roots.sysfs, "GAUNTLET_SYSFS_ROOT"}, std::pair{roots.dev, "GAUNTLET_DEV_ROOT"}}) {
    if (!fs::is_directory(root, ec)) {
      return core::make_error(
          core::ErrorKind::not_found,
          std::string("DRM root ") + root.string() + " (" + variable + ") is not a folder");
    }
  }
  auto groups = list_node_groups(roots.sysfs);
  if (!groups) return groups.error();
  std::vector<Found> found;
  for (auto& group : *groups) found.push_back({std::move(group), std::nullopt});
  return found;
}

}  // namespace

Roots Roots::from_options(const core::Options& options) {
  return Roots{options.sysfs_root, options.dev_root};
}

bool Roots::is_system() const { return sysfs == "/sys" && dev == "/dev"; }

core::Result<std::vector<core::DeviceInfo>> enumerate(const Roots& roots) {
  auto found = roots.is_system() ? find_with_libdrm(roots) : find_in_tree(roots);
  if (!found) return found.error();
  std::stable_sort(found->begin(), found->end(), [](const Found& a, const Found& b) {
    return node_order(a.group) < node_order(b.group);
  });
  std::vector<core::DeviceInfo> devices;
  for (const auto& entry : *found) {
    if (entry.group.nodes.empty()) continue;
    core::DeviceInfo info = describe_from_sysfs(roots, entry.group);
    if (entry.facts) apply(*entry.facts, info);
    info.api_limits["source"] = entry.facts ? "libdrm+sysfs" : "sysfs tree";
    info.id = core::DeviceId{core::Api::drm, static_cast<int>(devices.size())};
    devices.push_back(std::move(info));
  }
  return devices;
}

}  // namespace gauntlet::backends::drm
