#include "signals/hwmon.h"

#include <algorithm>
#include <cctype>

#include "signals/sysfs_file.h"

namespace gauntlet::signals {

namespace fs = std::filesystem;

namespace {

std::optional<double> integer_file(const fs::path& path, Snapshot& into) {
  auto value = read_integer(path);
  if (!value) {
    into.problems.push_back(value.error().message);
    return std::nullopt;
  }
  if (!value->has_value()) return std::nullopt;
  return static_cast<double>(**value);
}

std::string label_of(const fs::path& file, const std::string& fallback) {
  auto text = read_attribute(file);
  if (!text || !text->has_value()) return fallback;
  std::string label = printable_line(**text);
  for (char& c : label) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return label.empty() ? fallback : label;
}

// amdgpu labels its clocks sclk (the graphics clock) and mclk (the memory clock).
std::string clock_name(const std::string& label) {
  if (label == "sclk") return "gfx";
  if (label == "mclk") return "mem";
  return label;
}

}  // namespace

void read_hwmon_folder(const fs::path& dir, const std::string& prefix, Snapshot& into) {
  for (int i = 1; i <= 16; ++i) {
    const std::string temp = "temp" + std::to_string(i);
    if (auto milli = integer_file(dir / (temp + "_input"), into)) {
      into.temperatures_c[prefix + label_of(dir / (temp + "_label"), temp)] = *milli / 1000.0;
    }
    const std::string freq = "freq" + std::to_string(i);
    if (auto hz = integer_file(dir / (freq + "_input"), into)) {
      into.clocks_mhz[prefix + clock_name(label_of(dir / (freq + "_label"), freq))] = *hz / 1e6;
    }
  }
  if (auto uw = integer_file(dir / "power1_average", into)) {
    into.power_w = *uw / 1e6;
  } else if (auto input = integer_file(dir / "power1_input", into)) {
    into.power_w = *input / 1e6;
  }
  if (auto cap = integer_file(dir / "power1_cap", into)) {
    into.power_cap_w = *cap / 1e6;
  } else if (auto max = integer_file(dir / "power1_max", into)) {
    into.power_cap_w = *max / 1e6;
  }
  if (auto rpm = integer_file(dir / "fan1_input", into)) into.fan_rpm = *rpm;
  if (auto uj = integer_file(dir / "energy1_input", into)) into.energy_j = *uj / 1e6;
}

void read_hwmon(const fs::path& device_dir, Snapshot& into) {
  const auto folders = numbered_entries(device_dir / "hwmon", "hwmon");
  if (folders.empty()) {
    into.absent.push_back("hwmon: no hwmon folder under " + device_dir.string());
    return;
  }
  read_hwmon_folder(folders.front(), "", into);
}

}  // namespace gauntlet::signals
