#include "signals/pci_link.h"

#include <charconv>

#include "signals/sysfs_file.h"

namespace gauntlet::signals {

namespace fs = std::filesystem;

bool PciLink::degraded() const {
  const bool slower = speed_gts && max_speed_gts && *speed_gts < *max_speed_gts;
  const bool narrower = width && max_width && *width < *max_width;
  return slower || narrower;
}

core::Result<double> parse_link_speed(std::string_view text, const std::string& what) {
  const size_t space = text.find(' ');
  const std::string_view number = text.substr(0, space);
  const std::string_view unit = space == std::string_view::npos ? "" : text.substr(space + 1);
  double gts = 0;
  const auto [end, error] = std::from_chars(number.data(), number.data() + number.size(), gts);
  if (number.empty() || error != std::errc{} || end != number.data() + number.size() ||
      unit.rfind("GT/s", 0) != 0 || !(gts > 0)) {
    return core::invalid_argument("not a link speed in " + what + ": '" +
                                  std::string(text.substr(0, 40)) + "'");
  }
  return gts;
}

namespace {

template <typename T>
void read_into(const fs::path& path, bool is_speed, std::optional<T>& out, LinkRead& read) {
  auto text = read_attribute(path);
  if (!text) {
    read.problems.push_back(text.error().message);
    return;
  }
  if (!text->has_value()) return;
  std::string value = **text;
  while (!value.empty() && value.back() == '\n') value.pop_back();
  if (is_speed) {
    auto speed = parse_link_speed(value, path.string());
    if (!speed) return read.problems.push_back(speed.error().message);
    out = static_cast<T>(*speed);
  } else {
    auto lanes = parse_integer(value, path.string());
    if (!lanes) return read.problems.push_back(lanes.error().message);
    out = static_cast<T>(*lanes);
  }
}

}  // namespace

LinkRead read_pci_link(const fs::path& device_dir) {
  LinkRead read;
  PciLink link;
  read_into(device_dir / "current_link_speed", true, link.speed_gts, read);
  read_into(device_dir / "current_link_width", false, link.width, read);
  read_into(device_dir / "max_link_speed", true, link.max_speed_gts, read);
  read_into(device_dir / "max_link_width", false, link.max_width, read);
  if (link.speed_gts || link.width || link.max_speed_gts || link.max_width) read.link = link;
  return read;
}

core::Result<std::map<std::string, uint64_t>> parse_aer_counters(std::string_view text,
                                                                 const std::string& what) {
  auto counters = parse_named_counts(text, what, " ", true);
  if (counters && counters->empty()) return core::invalid_argument(what + " holds no counters");
  return counters;
}

}  // namespace gauntlet::signals
