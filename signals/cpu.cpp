#include "signals/cpu.h"

#include <algorithm>

#include "signals/hwmon.h"
#include "signals/sysfs_file.h"

namespace gauntlet::signals {

namespace fs = std::filesystem;

namespace {

std::string first_line(const fs::path& path) {
  auto text = read_attribute(path);
  if (!text || !text->has_value()) return {};
  return printable_line(**text);
}

void read_cpufreq(const fs::path& sysfs_root, Snapshot& into) {
  std::vector<double> mhz;
  for (const auto& cpu : numbered_entries(sysfs_root / "devices/system/cpu", "cpu")) {
    auto khz = read_integer(cpu / "cpufreq/scaling_cur_freq");
    if (!khz) {
      into.problems.push_back(khz.error().message);
    } else if (khz->has_value()) {
      mhz.push_back(static_cast<double>(**khz) / 1000.0);
    }
  }
  if (mhz.empty()) return into.absent.push_back("cpufreq: no cpu*/cpufreq/scaling_cur_freq");
  double sum = 0;
  for (const double value : mhz) sum += value;
  into.clocks_mhz["cpu_min"] = *std::min_element(mhz.begin(), mhz.end());
  into.clocks_mhz["cpu_max"] = *std::max_element(mhz.begin(), mhz.end());
  into.clocks_mhz["cpu_mean"] = sum / static_cast<double>(mhz.size());
}

void read_thermal_zones(const fs::path& sysfs_root, Snapshot& into) {
  bool any = false;
  for (const auto& zone : numbered_entries(sysfs_root / "class/thermal", "thermal_zone")) {
    auto milli = read_integer(zone / "temp");
    if (!milli) {
      into.problems.push_back(milli.error().message);
      continue;
    }
    if (!milli->has_value()) continue;
    std::string type = first_line(zone / "type");
    if (type.empty()) type = zone.filename().string();
    if (into.temperatures_c.contains(type)) type.append(".").append(zone.filename().string());
    into.temperatures_c[type] = static_cast<double>(**milli) / 1000.0;
    any = true;
  }
  if (!any) into.absent.push_back("thermal: no class/thermal/thermal_zone*/temp");
}

void read_cpu_hwmon(const fs::path& sysfs_root, Snapshot& into) {
  bool any = false;
  for (const auto& hwmon : numbered_entries(sysfs_root / "class/hwmon", "hwmon")) {
    const std::string name = first_line(hwmon / "name");
    if (name != "coretemp" && name != "k10temp" && name != "zenpower") continue;
    read_hwmon_folder(hwmon, name + ".", into);
    any = true;
  }
  if (!any) into.absent.push_back("hwmon: no coretemp, k10temp or zenpower");
}

}  // namespace

void read_cpu(const fs::path& sysfs_root, Snapshot& into) {
  read_cpufreq(sysfs_root, into);
  read_thermal_zones(sysfs_root, into);
  read_cpu_hwmon(sysfs_root, into);
}

}  // namespace gauntlet::signals
