#include "core/options.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <thread>

extern char** environ;

namespace gauntlet::core {

const char* to_string(Fallback fallback) { return fallback == Fallback::host ? "host" : "none"; }

const char* to_string(Level level) {
  switch (level) {
    case Level::quick:
      return "quick";
    case Level::standard:
      return "standard";
    case Level::full:
      return "full";
  }
  return "quick";
}

Result<Fallback> parse_fallback(const std::string& text) {
  if (text == "none") return Fallback::none;
  if (text == "host") return Fallback::host;
  return make_error(ErrorKind::invalid_argument,
                    "unknown fallback '" + text + "' (expected host or none)");
}

Result<Level> parse_level(const std::string& text) {
  if (text == "quick") return Level::quick;
  if (text == "standard") return Level::standard;
  if (text == "full") return Level::full;
  return make_error(ErrorKind::invalid_argument,
                    "unknown level '" + text + "' (expected quick, standard or full)");
}

Status apply_level(Options& options, const std::string& text) {
  if (text == "soak") {
    options.level = Level::standard;
    if (options.soak_s == 0) options.soak_s = kSoakSeconds;
    return Status::ok();
  }
  auto level = parse_level(text);
  if (!level) {
    return make_error(ErrorKind::invalid_argument,
                      "unknown level '" + text + "' (expected quick, standard, full or soak)");
  }
  options.level = *level;
  return Status::ok();
}

std::optional<std::string> env(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr) return std::nullopt;
  return std::string(value);
}

Result<Options> Options::from_environment() {
  Options options;
  if (auto device = env("GAUNTLET_DEVICE"); device && !device->empty()) {
    options.device = *device;
    options.sources["device"] = "environment GAUNTLET_DEVICE";
  }
  if (auto fallback = env("GAUNTLET_FALLBACK"); fallback && !fallback->empty()) {
    auto parsed = parse_fallback(*fallback);
    if (!parsed) return parsed.error();
    options.fallback = *parsed;
    options.sources["fallback"] = "environment GAUNTLET_FALLBACK";
  }
  if (auto level = env("GAUNTLET_LEVEL"); level && !level->empty()) {
    GAUNTLET_TRY(apply_level(options, *level));
    options.sources["level"] = "environment GAUNTLET_LEVEL";
  }
  if (auto faults = env("GAUNTLET_TEST_FAULT"); faults && !faults->empty()) {
    options.test_faults = *faults;
    options.sources["test_faults"] = "environment GAUNTLET_TEST_FAULT";
  }
  if (auto root = env("GAUNTLET_SYSFS_ROOT"); root && !root->empty()) {
    options.sysfs_root = *root;
    options.sources["sysfs_root"] = "environment GAUNTLET_SYSFS_ROOT";
  }
  if (auto root = env("GAUNTLET_DEV_ROOT"); root && !root->empty()) {
    options.dev_root = *root;
    options.sources["dev_root"] = "environment GAUNTLET_DEV_ROOT";
  }
  if (auto kmsg = env("GAUNTLET_KMSG"); kmsg && !kmsg->empty()) {
    options.kmsg_path = *kmsg;
    options.sources["kmsg_path"] = "environment GAUNTLET_KMSG";
  }
  if (auto validation = env("GAUNTLET_VK_VALIDATION"); validation && *validation == "1") {
    options.vulkan_validation = true;
    options.sources["vulkan_validation"] = "environment GAUNTLET_VK_VALIDATION";
  }
  if (auto dir = env("GAUNTLET_CACHE_DIR"); dir && !dir->empty()) {
    options.cache_dir = *dir;
    options.sources["cache_dir"] = "environment GAUNTLET_CACHE_DIR";
  } else if (auto xdg = env("XDG_CACHE_HOME"); xdg && !xdg->empty()) {
    options.cache_dir = *xdg + "/gauntlet";
  } else if (auto home = env("HOME"); home && !home->empty()) {
    options.cache_dir = *home + "/.cache/gauntlet";
  } else {
    options.cache_dir = "/tmp/gauntlet-cache";
  }
  if (auto dir = env("GAUNTLET_STATE_DIR"); dir && !dir->empty()) {
    options.state_dir = *dir;
    options.sources["state_dir"] = "environment GAUNTLET_STATE_DIR";
  } else if (::geteuid() == 0) {
    options.state_dir = "/var/lib/gauntlet";
  } else if (auto xdg = env("XDG_STATE_HOME"); xdg && !xdg->empty()) {
    options.state_dir = *xdg + "/gauntlet";
  } else if (auto home = env("HOME"); home && !home->empty()) {
    options.state_dir = *home + "/.local/state/gauntlet";
  } else {
    options.state_dir = "/tmp/gauntlet-state";
  }
  if (auto staging = env("GAUNTLET_VK_FORCE_STAGING"); staging && *staging == "1") {
    options.vulkan_force_staging = true;
    options.sources["vulkan_force_staging"] = "environment GAUNTLET_VK_FORCE_STAGING";
  }
  if (auto target = env("GAUNTLET_CPU_TARGET"); target && !target->empty()) {
    options.cpu_target = *target;
    options.sources["cpu_target"] = "environment GAUNTLET_CPU_TARGET";
  }
  return options;
}

std::optional<std::string> Options::fault_for(const std::string& site) const {
  size_t pos = 0;
  while (pos <= test_faults.size()) {
    size_t comma = test_faults.find(',', pos);
    std::string item =
        test_faults.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    auto eq = item.find('=');
    if (eq != std::string::npos && item.substr(0, eq) == site) return item.substr(eq + 1);
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return std::nullopt;
}

std::vector<std::pair<std::string, std::string>> driver_environment() {
  static const char* kExact[] = {"VK_ICD_FILENAMES",   "VK_DRIVER_FILES",   "VK_ADD_DRIVER_FILES",
                                 "VK_INSTANCE_LAYERS", "VK_LOADER_DEBUG",   "OCL_ICD_VENDORS",
                                 "OCL_ICD_FILENAMES",  "OPENCL_VENDOR_PATH"};
  static const char* kPrefixes[] = {"POCL_", "MESA_", "LP_", "GALLIUM_", "RADV_", "ANV_"};
  std::vector<std::pair<std::string, std::string>> found;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    std::string entry(*e);
    auto eq = entry.find('=');
    if (eq == std::string::npos) continue;
    std::string name = entry.substr(0, eq);
    bool match = false;
    for (const char* exact : kExact) match = match || name == exact;
    for (const char* prefix : kPrefixes) match = match || name.rfind(prefix, 0) == 0;
    if (match) found.emplace_back(name, entry.substr(eq + 1));
  }
  std::sort(found.begin(), found.end());
  return found;
}

void Options::slow_down_as_faulted(double seconds) const {
  const auto fault = fault_for("device.slow");
  if (!fault) return;
  const double factor = std::strtod(fault->c_str(), nullptr);
  if (!(factor > 1) || !std::isfinite(factor)) return;
  std::this_thread::sleep_for(std::chrono::duration<double>((factor - 1) * seconds));
}

}  // namespace gauntlet::core
