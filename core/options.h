#pragma once
// Every setting that changes behaviour, from flags and environment variables, read in one place.
// The CLI fills `Options` from the environment first, then lets flags override it, and the report
// records `changed_settings()`.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/status.h"

namespace gauntlet::core {

enum class Fallback { none, host };
enum class Level { quick, standard, full };

// --level soak's hold, as gpu-burn's and DCGM's targeted stress's default run lengths go.
inline constexpr double kSoakSeconds = 300;

const char* to_string(Fallback fallback);
const char* to_string(Level level);
Result<Fallback> parse_fallback(const std::string& text);
Result<Level> parse_level(const std::string& text);

struct Options {
  // Which devices: "all", "host", "opencl:0", "vulkan:1", a PCI bus id, or a comma list of these.
  std::string device = "all";
  Fallback fallback = Fallback::none;
  Level level = Level::quick;
  // Seconds each device may take (run --time-budget); 0: the level's (harness/time_budget.h).
  double time_budget_s = 0;
  // Seconds each device's heaviest safe profile is held after its checks (run --soak; --level
  // soak: the standard level and kSoakSeconds); 0: no hold.
  double soak_s = 0;
  // Test-only fault switches, e.g. "probe.opencl=crash,probe.vulkan=hang". Never set in production.
  std::string test_faults;
  // Where DRM enumeration looks (GAUNTLET_SYSFS_ROOT, GAUNTLET_DEV_ROOT); fixture trees in tests.
  std::string sysfs_root = "/sys";
  std::string dev_root = "/dev";
  // The kernel log a run reads between each unit's cursors (GAUNTLET_KMSG): a fake one in tests.
  std::string kmsg_path = "/dev/kmsg";
  // Run Vulkan work under VK_LAYER_KHRONOS_validation and fail on any message
  // (GAUNTLET_VK_VALIDATION=1).
  bool vulkan_validation = false;
  // Move all Vulkan data through host-visible staging buffers even where device memory is
  // host-visible, as on discrete GPUs (GAUNTLET_VK_FORCE_STAGING=1).
  bool vulkan_force_staging = false;
  // The best instruction set the cpu device may use, as Highway names it ("AVX2", "AVX3", ...;
  // GAUNTLET_CPU_TARGET); empty: the best this processor has. It shows on a newer processor what
  // an older one of a fleet would measure.
  std::string cpu_target;
  // Print each OpenCL kernel's build log on stderr even when the build succeeds (run --verbose);
  // otherwise a log is shown only in a failed build's error.
  bool show_build_logs = false;
  // Where `gauntlet run` keeps synthetic models: GAUNTLET_CACHE_DIR, else
  // $XDG_CACHE_HOME/gauntlet, else ~/.cache/gauntlet, else a folder under /tmp.
  std::string cache_dir;
  // Where `gauntlet run` writes the baseline `gauntlet health` reads, and health keeps its state:
  // GAUNTLET_STATE_DIR, else /var/lib/gauntlet for root, else $XDG_STATE_HOME/gauntlet, else
  // ~/.local/state/gauntlet.
  std::string state_dir;
  // Where settings came from, for the report: name -> "flag" / "environment".
  std::map<std::string, std::string> sources;

  // Reads the GAUNTLET_* variables named beside each field.
  static Result<Options> from_environment();

  // The fault named for `site` ("crash", "hang", ...), if the test switches name one.
  std::optional<std::string> fault_for(const std::string& site) const;
  // The test fault device.slow=F: a unit that took `seconds` waits (F - 1) times as long again,
  // as on a device F times slower.
  void slow_down_as_faulted(double seconds) const;
};

// --level's and GAUNTLET_LEVEL's value into `options`: a level, or "soak" (the standard level and a
// hold of kSoakSeconds unless --soak says how long).
Status apply_level(Options& options, const std::string& text);

// Environment variables of other software that change driver behaviour, as name=value lines.
std::vector<std::pair<std::string, std::string>> driver_environment();

std::optional<std::string> env(const char* name);

}  // namespace gauntlet::core
