#include "signals/intel_gt.h"

#include <set>

#include "signals/sysfs_file.h"

namespace gauntlet::signals {

namespace fs = std::filesystem;

namespace {

fs::path xe_freq_dir(const fs::path& card_dir) { return card_dir / "device/tile0/gt0/freq0"; }

std::optional<int64_t> gt_integer(const fs::path& path, Snapshot& into) {
  auto value = read_integer(path);
  if (!value) {
    into.problems.push_back(value.error().message);
    return std::nullopt;
  }
  return *value;
}

// Every file in `dir` named <prefix><reason> holding 1 adds <reason>; `status` is the overall bit.
void read_reasons(const fs::path& dir, const std::string& prefix, const fs::path& status,
                  Snapshot& into) {
  std::set<fs::path> files;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.size() > prefix.size() && name.rfind(prefix, 0) == 0) files.insert(entry.path());
  }
  bool any = false;
  for (const auto& file : files) {
    if (file == status) continue;
    if (auto set = gt_integer(file, into); set && *set != 0) {
      into.throttle_reasons.insert(file.filename().string().substr(prefix.size()));
      any = true;
    }
  }
  const auto overall = gt_integer(status, into);
  if (!overall && files.empty()) into.absent.push_back("throttle reasons: absent");
  if (overall && *overall != 0 && !any) into.throttle_reasons.insert("unspecified");
}

void put_clock(std::map<std::string, double>& into, std::optional<int64_t> mhz) {
  if (mhz) into["gfx"] = static_cast<double>(*mhz);
}

}  // namespace

IntelDriver intel_driver_of(const fs::path& card_dir) {
  std::error_code ec;
  if (fs::exists(xe_freq_dir(card_dir), ec)) return IntelDriver::xe;
  if (fs::exists(card_dir / "gt/gt0", ec) || fs::exists(card_dir / "gt_act_freq_mhz", ec)) {
    return IntelDriver::i915;
  }
  return IntelDriver::none;
}

void read_intel_gt(const fs::path& card_dir, Snapshot& into) {
  switch (intel_driver_of(card_dir)) {
    case IntelDriver::xe: {
      const fs::path freq = xe_freq_dir(card_dir);
      put_clock(into.clocks_mhz, gt_integer(freq / "act_freq", into));
      put_clock(into.max_clocks_mhz, gt_integer(freq / "max_freq", into));
      read_reasons(freq / "throttle", "reason_", freq / "throttle/status", into);
      return;
    }
    case IntelDriver::i915: {
      const fs::path gt = card_dir / "gt/gt0";
      std::error_code ec;
      if (fs::exists(gt, ec)) {
        put_clock(into.clocks_mhz, gt_integer(gt / "rps_act_freq_mhz", into));
        put_clock(into.max_clocks_mhz, gt_integer(gt / "rps_max_freq_mhz", into));
        read_reasons(gt, "throttle_reason_", gt / "throttle_reason_status", into);
      } else {
        put_clock(into.clocks_mhz, gt_integer(card_dir / "gt_act_freq_mhz", into));
        put_clock(into.max_clocks_mhz, gt_integer(card_dir / "gt_max_freq_mhz", into));
        into.absent.push_back("throttle reasons: this i915 has no gt/gt0 folder");
      }
      return;
    }
    case IntelDriver::none:
      into.absent.push_back("intel gt: no i915 or xe frequency files under " + card_dir.string());
      return;
  }
}

}  // namespace gauntlet::signals
