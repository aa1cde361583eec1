#pragma once
// The sysfs side of DRM enumeration, shared by the libdrm path (which supplies the node list
// and the driver version) and the fixture-tree path (which lists the nodes itself).
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "backends/drm/drm_enumerate.h"
#include "core/device_info.h"
#include "core/status.h"

namespace gauntlet::backends::drm {

// One device's nodes as sysfs names them ("card0", "renderD128"): primary nodes first.
struct NodeGroup {
  std::vector<std::string> nodes;
  // <sysfs>/class/drm/<first node>/device, the folder holding vendor, device, uevent, ...
  std::filesystem::path device_dir;
};

// The card* and renderD* entries of <sysfs>/class/drm grouped by the device folder they point
// at (connector entries such as card0-DP-1 are left out). A missing class/drm is an empty list.
core::Result<std::vector<NodeGroup>> list_node_groups(const std::filesystem::path& sysfs_root);

// Puts node names (as libdrm or the tree gives them) into the order every path uses.
NodeGroup make_group(const std::filesystem::path& sysfs_root, std::vector<std::string> nodes);

// What sysfs and the dev tree say about one device: ids, bus, driver, memory, the render node and
// whether this user may open it. Problems are stated in unusable_reason (usable = false) and in
// api_limits["problems"]; nothing here throws or aborts. The id is left for the caller to set.
core::DeviceInfo describe_from_sysfs(const Roots& roots, const NodeGroup& group);

// Sorting key: the primary node number, else the render node number offset past any primary.
long node_order(const NodeGroup& group);

// "0x1002\n" -> 0x1002; anything else is an invalid_argument error naming `what` and the text.
core::Result<uint32_t> parse_hex_id(const std::string& text, const std::string& what);
// KEY=value lines, as in device/uevent.
std::map<std::string, std::string> parse_uevent(const std::string& text);
// "AMD", "Intel", "NVIDIA", "ARM", ... or "vendor 0x1234".
std::string vendor_name(uint32_t vendor_id);

}  // namespace gauntlet::backends::drm
