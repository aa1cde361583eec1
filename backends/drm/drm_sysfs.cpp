#include "backends/drm/drm_sysfs.h"

#include <fcntl.h>
#include <grp.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <map>
#include <optional>

#include "core/text.h"

namespace gauntlet::backends::drm {

namespace fs = std::filesystem;

namespace {

std::string trim(const std::string& text) {
  size_t begin = text.find_first_not_of(" \t\r\n");
  if (begin == std::string::npos) return {};
  size_t end = text.find_last_not_of(" \t\r\n");
  return text.substr(begin, end - begin + 1);
}

// A sysfs attribute's text, or the reason it could not be read.
struct FileText {
  std::optional<std::string> text;
  std::string error;
};

FileText read_attribute(const fs::path& path) {
  FileText out;
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    out.error = "cannot read " + path.string() + ": " + std::strerror(errno);
    return out;
  }
  std::string text;
  char buffer[4096];
  for (;;) {
    ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      out.error = "cannot read " + path.string() + ": " + std::strerror(errno);
      ::close(fd);
      return out;
    }
    if (n == 0) break;
    text.append(buffer, static_cast<size_t>(n));
    if (text.size() > (1u << 20)) break;  // sysfs attributes are one page; a tree may lie
  }
  ::close(fd);
  out.text = std::move(text);
  return out;
}

std::optional<long> node_number(const std::string& name, const std::string& prefix) {
  if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0) {
    return std::nullopt;
  }
  long value = -1;
  const char* first = name.data() + prefix.size();
  const char* last = name.data() + name.size();
  auto [end, ec] = std::from_chars(first, last, value);
  if (ec != std::errc() || end != last) return std::nullopt;
  return value;
}

bool is_render(const std::string& name) { return node_number(name, "renderD").has_value(); }
bool is_primary(const std::string& name) { return node_number(name, "card").has_value(); }

std::string hex4(uint32_t value) {
  char text[16];
  std::snprintf(text, sizeof text, "0x%04x", value);
  return text;
}

// "0000:c1:00.0": domain, bus, device and function in hex, as sysfs and libdrm name PCI slots.
bool is_pci_slot(const std::string& text) {
  if (text.size() != 12 || text[4] != ':' || text[7] != ':' || text[10] != '.') return false;
  for (size_t i : {0u, 1u, 2u, 3u, 5u, 6u, 8u, 9u, 11u}) {
    if (!std::isxdigit(static_cast<unsigned char>(text[i]))) return false;
  }
  return true;
}

std::optional<std::string> link_name(const fs::path& link) {
  std::error_code ec;
  fs::path target = fs::read_symlink(link, ec);
  if (ec) return std::nullopt;
  return target.filename().string();
}

std::string group_name(gid_t gid) {
  group entry{};
  group* found = nullptr;
  std::vector<char> buffer(16384);
  if (::getgrgid_r(gid, &entry, buffer.data(), buffer.size(), &found) == 0 && found) {
    return found->gr_name;
  }
  return "gid " + std::to_string(gid);
}

// Reads a decimal byte count; a missing file is nullopt, garbage is a problem.
std::optional<uint64_t> read_bytes(const fs::path& path, std::vector<std::string>& problems) {
  std::error_code ec;
  if (!fs::exists(path, ec)) return std::nullopt;
  FileText file = read_attribute(path);
  if (!file.text) {
    problems.push_back(file.error);
    return std::nullopt;
  }
  std::string text = trim(*file.text);
  uint64_t value = 0;
  auto [end, err] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (err != std::errc() || end != text.data() + text.size() || text.empty()) {
    problems.push_back(path.string() + ": '" + text + "' is not a byte count");
    return std::nullopt;
  }
  return value;
}

std::optional<uint32_t> read_id(const fs::path& path, std::vector<std::string>& problems) {
  FileText file = read_attribute(path);
  if (!file.text) {
    problems.push_back(file.error);
    return std::nullopt;
  }
  auto id = parse_hex_id(*file.text, path.string());
  if (!id) {
    problems.push_back(id.error().message);
    return std::nullopt;
  }
  return *id;
}

// The render node under <dev>/dri and whether this user may open it for compute.
void check_render_node(const Roots& roots, const NodeGroup& group, core::DeviceInfo& info,
                       std::vector<std::string>& problems) {
  auto render = std::find_if(group.nodes.begin(), group.nodes.end(), is_render);
  if (render == group.nodes.end()) {
    info.api_limits["render_node_access"] = "none";
    problems.push_back("no render node: " + (roots.sysfs / "class/drm").string() + " lists only " +
                       group.nodes.front() +
                       " for this device (a display-only device, or a driver without compute)");
    return;
  }
  fs::path node = roots.dev / "dri" / *render;
  info.api_limits["render_node"] = node.string();
  struct stat st {};
  if (::stat(node.c_str(), &st) != 0) {
    info.api_limits["render_node_access"] = "missing";
    problems.push_back(node.string() + " does not exist (" + std::strerror(errno) +
                       "): in a container pass the device in (--device " +
                       (fs::path("/dev/dri") / *render).string() + "), else check udev");
    return;
  }
  if (::access(node.c_str(), R_OK | W_OK) != 0) {
    int error = errno;
    info.api_limits["render_node_access"] = "denied";
    problems.push_back("this user may not open " + node.string() + " (" + std::strerror(error) +
                       "); add the user to the group '" + group_name(st.st_gid) +
                       "' that owns it, then log in again");
    return;
  }
  info.api_limits["render_node_access"] = "read-write";
}

void describe_pci(const fs::path& dir, const std::map<std::string, std::string>& uevent,
                  core::DeviceInfo& info, std::vector<std::string>& problems) {
  info.api_limits["bus"] = "pci";
  auto slot = uevent.find("PCI_SLOT_NAME");
  std::error_code ec;
  std::string folder = fs::canonical(dir, ec).filename().string();
  if (slot != uevent.end() && is_pci_slot(slot->second)) {
    info.pci_bus_id = core::to_lower(slot->second);
  } else if (!ec && is_pci_slot(folder)) {
    info.pci_bus_id = core::to_lower(folder);
  } else if (slot != uevent.end()) {
    problems.push_back((dir / "uevent").string() + ": PCI_SLOT_NAME '" + slot->second +
                       "' is not a PCI address like 0000:c1:00.0");
  }
  auto vendor = read_id(dir / "vendor", problems);
  auto device = read_id(dir / "device", problems);
  // uevent's PCI_ID ("1002:744C") stands in for an unreadable vendor or device file.
  if (auto pci_id = uevent.find("PCI_ID"); pci_id != uevent.end()) {
    auto colon = pci_id->second.find(':');
    if (colon != std::string::npos) {
      auto v = parse_hex_id(pci_id->second.substr(0, colon), "PCI_ID");
      auto d = parse_hex_id(pci_id->second.substr(colon + 1), "PCI_ID");
      if (!vendor && v) vendor = *v;
      if (!device && d) device = *d;
    }
  }
  info.vendor_id = vendor.value_or(0);
  info.device_id = device.value_or(0);
  info.vendor = vendor_name(info.vendor_id);
}

void describe_platform(const fs::path& dir, const std::map<std::string, std::string>& uevent,
                       core::DeviceInfo& info) {
  info.api_limits["bus"] = "platform";
  std::vector<std::string> compatible;
  for (int i = 0; i < 64; ++i) {
    auto it = uevent.find("OF_COMPATIBLE_" + std::to_string(i));
    if (it == uevent.end()) break;
    compatible.push_back(it->second);
  }
  info.api_limits["of_compatible"] = compatible;
  std::error_code ec;
  fs::path real = fs::canonical(dir, ec);
  if (!ec) info.api_limits["platform_device"] = real.filename().string();
  if (auto it = uevent.find("OF_FULLNAME"); it != uevent.end()) {
    info.api_limits["of_fullname"] = it->second;
  }
  // Mali GPUs report ARM's PCI vendor id through Vulkan and OpenCL; using it here lets the
  // merge step match this entry with those views.
  for (const auto& entry : compatible) {
    if (entry.rfind("arm,mali", 0) == 0) {
      info.vendor_id = 0x13b5;
      info.api_limits["vendor_id_source"] = "of_compatible";
    }
  }
  if (info.vendor_id != 0) {
    info.vendor = vendor_name(info.vendor_id);
  } else if (!compatible.empty()) {
    info.vendor = compatible.back().substr(0, compatible.back().find(','));
  }
}

// Device type and memory: amdgpu states its VRAM; i915 states none (integrated GPUs share the
// host's memory; an Intel discrete GPU's VRAM size is not in sysfs); platform GPUs share memory.
void describe_memory(const fs::path& dir, core::DeviceInfo& info,
                     std::vector<std::string>& problems) {
  auto vram = read_bytes(dir / "mem_info_vram_total", problems);
  auto visible = read_bytes(dir / "mem_info_vis_vram_total", problems);
  auto gtt = read_bytes(dir / "mem_info_gtt_total", problems);
  const bool platform = info.api_limits.value("bus", "") == "platform";
  if (visible) info.api_limits["vis_vram_total"] = *visible;
  if (gtt) info.api_limits["gtt_total"] = *gtt;
  // What every process holds at enumeration: the plan subtracts it (harness/memory_pool.h).
  if (auto used = read_bytes(dir / "mem_info_vram_used", problems)) {
    info.api_limits["vram_used"] = *used;
  }
  if (auto used = read_bytes(dir / "mem_info_gtt_used", problems)) {
    info.api_limits["gtt_used"] = *used;
  }
  static const char* kVirtual[] = {"virtio_gpu", "vmwgfx", "qxl",
                                   "bochs-drm",  "cirrus", "vboxvideo"};
  bool is_virtual = false;
  for (const char* name : kVirtual) is_virtual = is_virtual || info.driver_name == name;

  if (vram && *vram > 0) {
    info.api_limits["vram_total"] = *vram;
    info.global_mem_size = *vram;
    info.heaps.push_back({*vram, true});
    if (gtt) info.heaps.push_back({*gtt, false});
    info.host_unified_memory = false;
    info.device_type = "discrete_gpu";
  } else if (is_virtual) {
    info.device_type = "virtual_gpu";
  } else if (platform || (info.vendor_id == 0x8086 && info.pci_bus_id == "0000:00:02.0")) {
    // Intel's integrated GPU always sits at 00:02.0.
    info.host_unified_memory = true;
    info.device_type = "integrated_gpu";
  } else if (info.vendor_id == 0x8086) {
    info.device_type = "discrete_gpu";
    info.api_limits["vram_total"] = "unknown: the driver states no VRAM size in sysfs";
  } else {
    info.device_type = "gpu";
  }
}

}  // namespace

core::Result<uint32_t> parse_hex_id(const std::string& text, const std::string& what) {
  std::string value = trim(text);
  std::string digits = value;
  if (digits.size() > 2 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X')) {
    digits = digits.substr(2);
  }
  uint32_t id = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), id, 16);
  if (digits.empty() || digits.size() > 8 || ec != std::errc() ||
      end != digits.data() + digits.size()) {
    return core::make_error(core::ErrorKind::invalid_argument,
                            what + ": '" + value + "' is not a hex id like 0x1002");
  }
  return id;
}

std::map<std::string, std::string> parse_uevent(const std::string& text) {
  std::map<std::string, std::string> out;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    std::string line =
        trim(text.substr(pos, end == std::string::npos ? std::string::npos : end - pos));
    auto eq = line.find('=');
    if (eq != std::string::npos && eq > 0) out[line.substr(0, eq)] = line.substr(eq + 1);
    if (end == std::string::npos) break;
    pos = end + 1;
  }
  return out;
}

std::string vendor_name(uint32_t vendor_id) {
  switch (vendor_id) {
    case 0x1002:
      return "AMD";
    case 0x8086:
      return "Intel";
    case 0x10de:
      return "NVIDIA";
    case 0x13b5:
      return "ARM";
    case 0x5143:
      return "Qualcomm";
    case 0x1010:
      return "Imagination";
    case 0x1af4:
      return "Red Hat (virtio)";
    case 0x15ad:
      return "VMware";
    case 0:
      return "";
    default:
      return "vendor " + hex4(vendor_id);
  }
}

long node_order(const NodeGroup& group) {
  for (const auto& node : group.nodes) {
    if (auto n = node_number(node, "card")) return *n;
  }
  for (const auto& node : group.nodes) {
    if (auto n = node_number(node, "renderD")) return 1'000'000 + *n;
  }
  return 2'000'000;
}

NodeGroup make_group(const fs::path& sysfs_root, std::vector<std::string> nodes) {
  std::sort(nodes.begin(), nodes.end(), [](const std::string& a, const std::string& b) {
    bool pa = is_primary(a), pb = is_primary(b);
    if (pa != pb) return pa;
    auto na = node_number(a, pa ? "card" : "renderD").value_or(-1);
    auto nb = node_number(b, pb ? "card" : "renderD").value_or(-1);
    return na != nb ? na < nb : a < b;
  });
  NodeGroup group;
  group.nodes = std::move(nodes);
  if (!group.nodes.empty())
    group.device_dir = sysfs_root / "class/drm" / group.nodes.front() / "device";
  return group;
}

core::Result<std::vector<NodeGroup>> list_node_groups(const fs::path& sysfs_root) {
  fs::path dir = sysfs_root / "class/drm";
  std::error_code ec;
  if (!fs::exists(dir, ec)) return std::vector<NodeGroup>{};
  std::map<std::string, std::vector<std::string>> by_device;
  fs::directory_iterator it(dir, ec);
  if (ec) {
    return core::make_error(core::ErrorKind::io_error,
                            "cannot list " + dir.string() + ": " + ec.message());
  }
  for (; it != fs::directory_iterator(); it.increment(ec)) {
    if (ec) break;
    std::string name = it->path().filename().string();
    if (!is_primary(name) && !is_render(name)) continue;
    std::error_code link_error;
    fs::path device = fs::canonical(it->path() / "device", link_error);
    // A node whose device folder cannot be resolved stays alone, and says so when described.
    std::string key = link_error ? "node:" + name : device.string();
    by_device[key].push_back(name);
  }
  if (ec) {
    return core::make_error(core::ErrorKind::io_error,
                            "cannot list " + dir.string() + ": " + ec.message());
  }
  std::vector<NodeGroup> groups;
  for (auto& [key, nodes] : by_device) groups.push_back(make_group(sysfs_root, std::move(nodes)));
  std::stable_sort(groups.begin(), groups.end(), [](const NodeGroup& a, const NodeGroup& b) {
    return node_order(a) < node_order(b);
  });
  return groups;
}

core::DeviceInfo describe_from_sysfs(const Roots& roots, const NodeGroup& group) {
  core::DeviceInfo info;
  info.id = core::DeviceId{core::Api::drm, 0};
  info.platform_name = "Linux DRM";
  info.device_type = "gpu";
  info.api_limits["nodes"] = group.nodes;
  std::vector<std::string> problems;
  const fs::path& dir = group.device_dir;
  std::error_code ec;

  std::map<std::string, std::string> uevent;
  if (!fs::is_directory(dir, ec)) {
    problems.push_back(dir.string() + " is missing: the node has no device folder");
  } else {
    FileText file = read_attribute(dir / "uevent");
    if (file.text) {
      uevent = parse_uevent(*file.text);
    } else {
      problems.push_back(file.error + " (without it the driver and bus are unknown)");
    }
  }
  if (auto driver = link_name(dir / "driver")) {
    info.driver_name = *driver;
  } else if (auto it = uevent.find("DRIVER"); it != uevent.end()) {
    info.driver_name = it->second;
  }
  auto subsystem = link_name(dir / "subsystem");
  bool pci = subsystem ? *subsystem == "pci" : uevent.count("PCI_SLOT_NAME") > 0;
  bool platform = subsystem
                      ? *subsystem == "platform"
                      : uevent.count("OF_COMPATIBLE_N") > 0 || uevent.count("OF_FULLNAME") > 0;
  if (!pci && !platform && fs::exists(dir / "vendor", ec)) pci = true;  // uevent unreadable

  if (pci) {
    describe_pci(dir, uevent, info, problems);
  } else if (platform) {
    describe_platform(dir, uevent, info);
  } else if (fs::is_directory(dir, ec)) {
    info.api_limits["bus"] = subsystem.value_or("unknown");
  }
  describe_memory(dir, info, problems);

  std::string model;
  if (auto compatible = info.api_limits.find("of_compatible");
      compatible != info.api_limits.end() && !compatible->empty()) {
    model = compatible->back().get<std::string>();
  } else if (info.device_id != 0) {
    model = "GPU " + hex4(info.device_id);
  } else {
    model = "GPU";
  }
  info.name = (info.vendor.empty() ? "" : info.vendor + " ") + model;
  if (!info.driver_name.empty()) info.name += " (" + info.driver_name + ")";

  check_render_node(roots, group, info, problems);
  info.api_limits["problems"] = problems;
  if (!problems.empty()) {
    info.usable = false;
    std::string reason;
    for (const auto& problem : problems) reason += (reason.empty() ? "" : "; ") + problem;
    info.unusable_reason = reason;
  }
  return info;
}

}  // namespace gauntlet::backends::drm
