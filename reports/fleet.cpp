#include "reports/fleet.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "reports/text_util.h"

namespace gauntlet::reports {

namespace {

Spread spread_of(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  Spread s;
  s.count = values.size();
  s.min = values.front();
  s.max = values.back();
  const size_t mid = values.size() / 2;
  s.median = values.size() % 2 ? values[mid] : (values[mid - 1] + values[mid]) / 2.0;
  return s;
}

const MachineProfile* find_profile(const FleetMachine& m, uint32_t id) {
  auto it = std::lower_bound(m.profiles.begin(), m.profiles.end(), id,
                             [](const MachineProfile& p, uint32_t v) { return p.id < v; });
  return it != m.profiles.end() && it->id == id ? &*it : nullptr;
}

// "safe", "unsafe", ... or "absent" when the machine did not plan the profile.
std::string verdict_of(const FleetMachine& m, uint32_t id) {
  const auto* p = find_profile(m, id);
  return p ? to_string(p->verdict) : "absent";
}

std::string percent_below(double value, double median) {
  return detail::format_number(100.0 * (median - value) / median, 1) + "%";
}

class GroupAnalysis {
 public:
  GroupAnalysis(FleetReport& fleet, FleetGroup& group)
      : fleet_(fleet), group_(group), outliers_(group.machines.size()) {}

  void run() {
    majorities();
    budget();
    recommended_speed();
    soaked();
    for (size_t i = 0; i < outliers_.size(); ++i) {
      if (!outliers_[i].empty()) group_.outliers.push_back({group_.machines[i], outliers_[i]});
    }
  }

 private:
  const FleetMachine& machine(size_t i) const { return fleet_.machines[group_.machines[i]]; }
  size_t size() const { return group_.machines.size(); }
  bool can_tell_outliers() const { return size() >= kMinGroupForOutliers; }

  void majorities() {
    std::set<uint32_t> ids;
    for (size_t i = 0; i < size(); ++i) {
      for (const auto& p : machine(i).profiles) ids.insert(p.id);
    }
    for (uint32_t id : ids) {
      std::map<std::string, size_t> counts;
      for (size_t i = 0; i < size(); ++i) ++counts[verdict_of(machine(i), id)];
      auto top = std::max_element(counts.begin(), counts.end(),
                                  [](const auto& a, const auto& b) { return a.second < b.second; });
      if (2 * top->second <= size()) continue;  // no majority: nobody is the odd one out
      if (top->first == "safe") group_.majority_safe.push_back(fleet_.profile_names[id]);
      if (!can_tell_outliers()) continue;
      for (size_t i = 0; i < size(); ++i) {
        const auto mine = verdict_of(machine(i), id);
        if (mine == top->first) continue;
        const auto* p = find_profile(machine(i), id);
        const auto& name = fleet_.profile_names[id];
        std::string message = name + " is " + mine + " here, " + top->first + " on " +
                              std::to_string(top->second) + " of " + std::to_string(size());
        if (p && p->reason != 0) message += ": " + fleet_.reasons[p->reason];
        outliers_[i].push_back({"verdict", name, mine, top->first, message});
      }
    }
    std::sort(group_.majority_safe.begin(), group_.majority_safe.end());
  }

  void budget() {
    std::vector<double> values;
    for (size_t i = 0; i < size(); ++i) {
      if (machine(i).budget_bytes) values.push_back(static_cast<double>(*machine(i).budget_bytes));
    }
    if (values.empty()) return;
    group_.budget_bytes = spread_of(values);
    if (!can_tell_outliers()) return;
    const double median = group_.budget_bytes->median;
    for (size_t i = 0; i < size(); ++i) {
      const auto& b = machine(i).budget_bytes;
      if (!b || static_cast<double>(*b) >= median * (1.0 - fleet_.threshold)) continue;
      const auto value = detail::format_bytes(*b);
      const auto group = detail::format_bytes(static_cast<uint64_t>(median));
      outliers_[i].push_back({"budget", "", value, group,
                              "safe budget " + value + " is " +
                                  percent_below(static_cast<double>(*b), median) +
                                  " below the group median " + group});
    }
  }

  // The value most of the group's machines have for `field`, of those that have one; empty when
  // none has.
  std::string most_common(std::string FleetMachine::*field) const {
    std::map<std::string, size_t> votes;
    for (size_t i = 0; i < size(); ++i) {
      if (!(machine(i).*field).empty()) ++votes[machine(i).*field];
    }
    if (votes.empty()) return "";
    return std::max_element(votes.begin(), votes.end(),
                            [](const auto& a, const auto& b) { return a.second < b.second; })
        ->first;
  }

  void recommended_speed() {
    group_.recommended = most_common(&FleetMachine::recommended);
    if (group_.recommended.empty()) return;
    const uint32_t id = profile_id_of(group_.recommended);
    std::vector<double> values;
    for (size_t i = 0; i < size(); ++i) {
      const auto* p = find_profile(machine(i), id);
      if (p && p->tok_s) values.push_back(*p->tok_s);
    }
    if (values.empty()) return;
    group_.recommended_tok_s = spread_of(values);
    if (!can_tell_outliers()) return;
    const double median = group_.recommended_tok_s->median;
    for (size_t i = 0; i < size(); ++i) {
      const auto* p = find_profile(machine(i), id);
      if (!p || !p->tok_s || *p->tok_s >= median * (1.0 - fleet_.threshold)) continue;
      const auto value = detail::format_number(*p->tok_s, 1);
      const auto group = detail::format_number(median, 1);
      outliers_[i].push_back({"tok_s", group_.recommended, value, group,
                              group_.recommended + " runs at " + value + " tok/s, " +
                                  percent_below(*p->tok_s, median) + " below the group median " +
                                  group});
    }
  }

  // Held busy with the same profile: a steady speed below the group's median, or a hottest
  // temperature above it, by more than the threshold.
  void soaked() {
    group_.soak_profile = most_common(&FleetMachine::soak_profile);
    if (group_.soak_profile.empty()) return;
    auto held = [&](size_t i) { return machine(i).soak_profile == group_.soak_profile; };
    std::vector<double> speeds, temperatures;
    for (size_t i = 0; i < size(); ++i) {
      if (!held(i)) continue;
      if (machine(i).steady_tok_s) speeds.push_back(*machine(i).steady_tok_s);
      if (machine(i).max_temperature_c) temperatures.push_back(*machine(i).max_temperature_c);
    }
    if (!speeds.empty()) group_.steady_tok_s = spread_of(speeds);
    if (!temperatures.empty()) group_.max_temperature_c = spread_of(temperatures);
    if (!can_tell_outliers()) return;
    for (size_t i = 0; i < size(); ++i) {
      if (!held(i)) continue;
      const auto& speed = machine(i).steady_tok_s;
      if (group_.steady_tok_s && speed &&
          *speed < group_.steady_tok_s->median * (1.0 - fleet_.threshold)) {
        const auto value = detail::format_number(*speed, 1);
        const auto group = detail::format_number(group_.steady_tok_s->median, 1);
        outliers_[i].push_back({"steady_tok_s", group_.soak_profile, value, group,
                                "held busy, " + group_.soak_profile + " runs at " + value +
                                    " tok/s, " +
                                    percent_below(*speed, group_.steady_tok_s->median) +
                                    " below the group median " + group});
      }
      const auto& hottest = machine(i).max_temperature_c;
      if (group_.max_temperature_c && hottest &&
          *hottest > group_.max_temperature_c->median * (1.0 + fleet_.threshold)) {
        const auto value = detail::format_number(*hottest, 0) + " °C";
        const auto group = detail::format_number(group_.max_temperature_c->median, 0) + " °C";
        outliers_[i].push_back(
            {"temperature", group_.soak_profile, value, group,
             "held busy it reached " + value + ", above the group median " + group});
      }
    }
  }

  uint32_t profile_id_of(const std::string& name) const {
    auto it = std::find(fleet_.profile_names.begin(), fleet_.profile_names.end(), name);
    return static_cast<uint32_t>(it - fleet_.profile_names.begin());
  }

  FleetReport& fleet_;
  FleetGroup& group_;
  std::vector<std::vector<OutlierReason>> outliers_;  // per machine of the group
};

}  // namespace

size_t FleetReport::outlier_count() const {
  size_t n = 0;
  for (const auto& g : groups) n += g.outliers.size();
  return n;
}

GroupKey group_key(const FleetDeviceInput& device) {
  GroupKey key;
  key.model = device.name;
  if (device.simulated) key.model += " (simulated " + device.preset + ")";
  std::set<std::string> drivers;
  for (const auto& v : device.views) {
    key.memory_bytes = std::max(key.memory_bytes, v.global_mem_size);
    if (v.api == "drm" || !v.usable) continue;
    drivers.insert(v.api + " " + v.driver_version);
  }
  if (device.simulated_global_mem) key.memory_bytes = *device.simulated_global_mem;
  for (const auto& d : drivers) key.driver += (key.driver.empty() ? "" : ", ") + d;
  return key;
}

std::string describe(const GroupKey& key) {
  return key.model + " | " + (key.driver.empty() ? "no usable driver" : key.driver) + " | " +
         detail::format_bytes(key.memory_bytes);
}

FleetBuilder::FleetBuilder(double threshold) {
  fleet_.threshold = threshold;
  reason_id("");
}

uint32_t FleetBuilder::reason_id(const std::string& text) {
  auto [it, inserted] = reason_ids_.try_emplace(text, static_cast<uint32_t>(fleet_.reasons.size()));
  if (inserted) fleet_.reasons.push_back(text);
  return it->second;
}

uint32_t FleetBuilder::profile_id(const std::string& name) {
  auto [it, inserted] =
      profile_ids_.try_emplace(name, static_cast<uint32_t>(fleet_.profile_names.size()));
  if (inserted) fleet_.profile_names.push_back(name);
  return it->second;
}

void FleetBuilder::add(const std::string& source, const Report& report) {
  add(source, fleet_input(report));
}

void FleetBuilder::add(const std::string& source, const FleetInput& report) {
  ++fleet_.reports;
  for (const auto& d : report.devices) {
    FleetMachine m;
    m.host = report.host;
    m.device = d.key;
    m.source = source;
    m.budget_bytes = d.budget_bytes;
    m.recommended = d.recommended;
    m.soak_profile = d.soak_profile;
    m.steady_tok_s = d.steady_tok_s;
    m.max_temperature_c = d.max_temperature_c;
    m.profiles.reserve(d.profiles.size());
    for (const auto& p : d.profiles) {
      const bool safe = p.verdict == ProfileVerdict::safe;
      m.profiles.push_back(
          {profile_id(p.name), p.verdict, p.tok_s, safe ? 0 : reason_id(p.reason)});
    }
    std::sort(m.profiles.begin(), m.profiles.end(),
              [](const MachineProfile& a, const MachineProfile& b) { return a.id < b.id; });
    auto key = group_key(d);
    auto it = std::find(keys_.begin(), keys_.end(), key);
    m.group = static_cast<size_t>(it - keys_.begin());
    if (it == keys_.end()) keys_.push_back(std::move(key));
    fleet_.machines.push_back(std::move(m));
  }
}

void FleetBuilder::skip(const std::string& source, const std::string& reason) {
  fleet_.skipped.push_back({source, reason});
}

FleetReport FleetBuilder::finish() {
  // Groups in a stable order (model, driver, memory), whatever order the files came in.
  std::vector<size_t> order(keys_.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return std::tie(keys_[a].model, keys_[a].driver, keys_[a].memory_bytes) <
           std::tie(keys_[b].model, keys_[b].driver, keys_[b].memory_bytes);
  });
  std::vector<size_t> position(keys_.size());
  for (size_t i = 0; i < order.size(); ++i) {
    position[order[i]] = i;
    FleetGroup group;
    group.key = keys_[order[i]];
    fleet_.groups.push_back(std::move(group));
  }
  for (size_t i = 0; i < fleet_.machines.size(); ++i) {
    auto& m = fleet_.machines[i];
    m.group = position[m.group];
    fleet_.groups[m.group].machines.push_back(i);
  }
  for (auto& g : fleet_.groups) GroupAnalysis(fleet_, g).run();
  return std::move(fleet_);
}

}  // namespace gauntlet::reports
