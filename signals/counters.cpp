#include "signals/counters.h"

#include <set>

#include "signals/sysfs_file.h"

namespace gauntlet::signals {

namespace fs = std::filesystem;

std::vector<CounterChange> diff(const Counters& before, const Counters& after) {
  std::set<std::string> names;
  for (const auto& [name, value] : before.values) names.insert(name);
  for (const auto& [name, value] : after.values) names.insert(name);
  std::vector<CounterChange> changes;
  for (const auto& name : names) {
    CounterChange change{name, {}, {}, 0};
    if (auto it = before.values.find(name); it != before.values.end()) change.before = it->second;
    if (auto it = after.values.find(name); it != after.values.end()) change.after = it->second;
    if (change.before && change.after) {
      if (*change.before == *change.after) continue;
      change.delta = static_cast<int64_t>(*change.after - *change.before);
    }
    changes.push_back(std::move(change));
  }
  return changes;
}

core::Result<std::map<std::string, uint64_t>> parse_ras_count(std::string_view text,
                                                              const std::string& what) {
  auto counts = parse_named_counts(text, what, ": ", false);
  if (!counts) return counts.error();
  for (const auto& [key, count] : *counts) {
    if (key != "ue" && key != "ce" && key != "de") {
      return core::invalid_argument("garbage in " + what + ": '" + key + "'");
    }
  }
  if (!counts->contains("ue") || !counts->contains("ce")) {
    return core::invalid_argument(what + " lacks its ue: and ce: lines");
  }
  return counts;
}

namespace {

void read_ras(const fs::path& device_dir, Counters& into) {
  std::error_code ec;
  std::set<fs::path> files;
  for (const auto& entry : fs::directory_iterator(device_dir / "ras", ec)) {
    const std::string name = entry.path().filename().string();
    const std::string suffix = "_err_count";
    if (name.size() > suffix.size() && name.ends_with(suffix)) files.insert(entry.path());
  }
  if (files.empty()) return into.absent.push_back("ras: no ras/*_err_count");
  for (const auto& file : files) {
    const std::string name = file.filename().string();
    const std::string block = name.substr(0, name.size() - std::string("_err_count").size());
    auto text = read_attribute(file);
    if (!text) {
      into.problems.push_back(text.error().message);
      continue;
    }
    if (!text->has_value()) continue;
    auto counts = parse_ras_count(**text, file.string());
    if (!counts) {
      into.problems.push_back(counts.error().message);
      continue;
    }
    for (const auto& [kind, count] : *counts) into.values["ras." + block + "." + kind] = count;
  }
}

void read_aer(const fs::path& device_dir, Counters& into) {
  bool any = false;
  for (const char* kind : {"correctable", "fatal", "nonfatal"}) {
    const fs::path file = device_dir / (std::string("aer_dev_") + kind);
    auto text = read_attribute(file);
    if (!text) {
      into.problems.push_back(text.error().message);
      continue;
    }
    if (!text->has_value()) continue;
    any = true;
    auto counters = parse_aer_counters(**text, file.string());
    if (!counters) {
      into.problems.push_back(counters.error().message);
      continue;
    }
    for (const auto& [name, count] : *counters) {
      into.values["aer." + std::string(kind) + "." + name] = count;
    }
  }
  if (!any) into.absent.push_back("aer: no aer_dev_* files");
}

}  // namespace

void read_sysfs_counters(const fs::path& device_dir, Counters& into) {
  read_ras(device_dir, into);
  read_aer(device_dir, into);
  auto replay = read_integer(device_dir / "pcie_replay_count");
  if (!replay) {
    into.problems.push_back(replay.error().message);
  } else if (replay->has_value() && **replay >= 0) {
    into.values["pcie_replay"] = static_cast<uint64_t>(**replay);
  } else if (!replay->has_value()) {
    into.absent.push_back("pcie_replay_count: not exposed");
  }
  // Documentation/gpu/amdgpu/driver-core (vbios_version); other drivers leave it out.
  if (auto vbios = read_attribute(device_dir / "vbios_version", 256); vbios && *vbios) {
    into.firmware = printable_line(**vbios);
  }
  LinkRead link = read_pci_link(device_dir);
  into.link = link.link;
  for (auto& problem : link.problems) into.problems.push_back(std::move(problem));
  if (!link.link) into.absent.push_back("link: no current_link_* files");
}

}  // namespace gauntlet::signals
