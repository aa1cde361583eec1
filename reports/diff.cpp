#include "reports/diff.h"

#include <map>

#include "reports/text_util.h"

namespace gauntlet::reports {

namespace {

using detail::format_bytes;
using detail::format_number;

bool works(FeatureVerdict v) {
  return v == FeatureVerdict::verified || v == FeatureVerdict::emulated;
}
bool broken(FeatureVerdict v) {
  return v == FeatureVerdict::failed || v == FeatureVerdict::unsupported;
}

std::string percent(double before, double after) {
  if (before == 0.0) return "";
  return " (" + std::string(after >= before ? "+" : "") +
         format_number(100.0 * (after - before) / before, 1) + " %)";
}

class Differ {
 public:
  explicit Differ(double threshold) { result_.threshold = threshold; }

  void device(const DeviceReport* before, const DeviceReport* after) {
    if (after == nullptr) {
      add(true, {"device", before->key, "", "present", "gone",
                 "device " + before->key + " (" + before->name + ") is missing"});
      return;
    }
    if (before == nullptr) {
      add(false, {"device", after->key, "", "absent", "present",
                  "device " + after->key + " (" + after->name + ") is new"});
      return;
    }
    const auto& key = after->key;
    profiles(key, *before, *after);
    features(key, before->verified, after->verified);
    figure("local_memory", key, static_cast<double>(before->verified.local_mem_verified_bytes),
           static_cast<double>(after->verified.local_mem_verified_bytes), "verified local memory",
           true);
    if (before->stress && after->stress) {
      figure("budget", key, static_cast<double>(before->stress->safe_budget_bytes),
             static_cast<double>(after->stress->safe_budget_bytes), "safe budget", true);
    } else if (before->stress && !after->stress) {
      add(true, {"budget", key, "", format_bytes(before->stress->safe_budget_bytes), "not measured",
                 key + ": safe budget no longer measured"});
    }
    soaks(key, before->soak, after->soak);
  }

  DiffResult result_;

 private:
  void add(bool regression, Change change) {
    (regression ? result_.regressions : result_.improvements).push_back(std::move(change));
  }

  void figure(const char* kind, const std::string& key, double before, double after,
              const std::string& what, bool bytes, const std::string& subject = {}) {
    const double t = result_.threshold;
    auto show = [&](double v) {
      return bytes ? format_bytes(static_cast<uint64_t>(v)) : format_number(v, 2);
    };
    const std::string where = key + (subject.empty() ? "" : " " + subject);
    if (after < before * (1.0 - t)) {
      add(true, {kind, key, subject, show(before), show(after),
                 where + ": " + what + " down " + show(before) + " -> " + show(after) +
                     percent(before, after)});
    } else if (after > before * (1.0 + t) && before > 0.0) {
      add(false, {kind, key, subject, show(before), show(after),
                  where + ": " + what + " up " + show(before) + " -> " + show(after) +
                      percent(before, after)});
    }
  }

  // The same profile held busy in both: its steady speed down, or the hottest temperature up, by
  // more than the threshold.
  void soaks(const std::string& key, const std::optional<SoakResult>& before,
             const std::optional<SoakResult>& after) {
    if (!before || !after || before->samples.empty() || after->samples.empty() ||
        before->profile != after->profile) {
      return;
    }
    figure("steady_tok_s", key, before->steady_tok_s, after->steady_tok_s,
           "held busy, steady tok/s", false, before->profile);
    if (!before->max_temperature_c || !after->max_temperature_c) return;
    const double was = *before->max_temperature_c, now = *after->max_temperature_c;
    const double t = result_.threshold;
    if (now > was * (1.0 + t) || now < was * (1.0 - t)) {
      const bool hotter = now > was;
      const std::string from = format_number(was, 0) + " °C", to = format_number(now, 0) + " °C";
      add(hotter, {"temperature", key, before->profile, from, to,
                   key + " " + before->profile + ": held busy it reached " + to + ", " +
                       (hotter ? "up" : "down") + " from " + from});
    }
  }

  void profiles(const std::string& key, const DeviceReport& before, const DeviceReport& after) {
    std::map<std::string, const Profile*> now;
    for (const auto& p : after.profiles) now[p.name] = &p;
    for (const auto& old : before.profiles) {
      auto it = now.find(old.name);
      const Profile* cur = it == now.end() ? nullptr : it->second;
      const bool was_safe = old.verdict == ProfileVerdict::safe;
      if (cur == nullptr) {
        if (was_safe) {
          add(true,
              {"profile", key, old.name, "safe", "gone", key + " " + old.name + ": safe -> gone"});
        }
        continue;
      }
      const bool is_safe = cur->verdict == ProfileVerdict::safe;
      if (was_safe && !is_safe) {
        add(true, {"profile", key, old.name, "safe", to_string(cur->verdict),
                   key + " " + old.name + ": safe -> " + to_string(cur->verdict) +
                       (cur->reason.empty() ? "" : " (" + cur->reason + ")")});
      } else if (!was_safe && is_safe) {
        add(false, {"profile", key, old.name, to_string(old.verdict), "safe",
                    key + " " + old.name + ": " + to_string(old.verdict) + " -> safe"});
      } else if (was_safe && is_safe && old.figures.tok_s && cur->figures.tok_s) {
        figure("tok_s", key, *old.figures.tok_s, *cur->figures.tok_s, "tok/s", false, old.name);
      }
    }
    std::map<std::string, const Profile*> then;
    for (const auto& p : before.profiles) then[p.name] = &p;
    for (const auto& p : after.profiles) {
      if (!then.count(p.name) && p.verdict == ProfileVerdict::safe) {
        add(false,
            {"profile", key, p.name, "absent", "safe", key + " " + p.name + ": new and safe"});
      }
    }
  }

  void features(const std::string& key, const VerifiedCaps& before, const VerifiedCaps& after) {
    for (const auto& [name, old] : before.features) {
      auto it = after.features.find(name);
      const FeatureVerdict cur =
          it == after.features.end() ? FeatureVerdict::not_tested : it->second.verdict;
      if (works(old.verdict) && broken(cur)) {
        std::string rows;
        if (it != after.features.end()) {
          for (const auto& id : it->second.rows) rows += (rows.empty() ? " (rows " : ", ") + id;
          if (!rows.empty()) rows += ")";
        }
        add(true,
            {"feature", key, name, to_string(old.verdict), to_string(cur),
             key + " " + name + ": " + to_string(old.verdict) + " -> " + to_string(cur) + rows});
      } else if (broken(old.verdict) && works(cur)) {
        add(false, {"feature", key, name, to_string(old.verdict), to_string(cur),
                    key + " " + name + ": " + to_string(old.verdict) + " -> " + to_string(cur)});
      }
    }
  }
};

}  // namespace

DiffResult diff_reports(const Report& before, const Report& after, double threshold) {
  Differ differ(threshold);
  std::map<std::string, const DeviceReport*> now;
  for (const auto& d : after.devices) now[d.key] = &d;
  for (const auto& d : before.devices) {
    auto it = now.find(d.key);
    differ.device(&d, it == now.end() ? nullptr : it->second);
    if (it != now.end()) now.erase(it);
  }
  for (const auto& d : after.devices) {
    if (now.count(d.key)) differ.device(nullptr, &d);
  }
  return differ.result_;
}

std::string render_diff_text(const DiffResult& diff) {
  std::string out;
  out += std::to_string(diff.regressions.size()) + " regression(s), " +
         std::to_string(diff.improvements.size()) + " improvement(s) (threshold " +
         format_number(diff.threshold * 100.0, 1) + " %)\n";
  if (!diff.regressions.empty()) {
    out += "Regressions:\n";
    for (const auto& c : diff.regressions) out += "  - " + c.message + "\n";
  }
  if (!diff.improvements.empty()) {
    out += "Improvements:\n";
    for (const auto& c : diff.improvements) out += "  + " + c.message + "\n";
  }
  return out;
}

core::Json diff_to_json(const DiffResult& diff) {
  auto list = [](const std::vector<Change>& changes) {
    core::Json out = core::Json::array();
    for (const auto& c : changes) {
      out.push_back({{"kind", c.kind},
                     {"device", c.device},
                     {"subject", c.subject},
                     {"before", c.before},
                     {"after", c.after},
                     {"message", c.message}});
    }
    return out;
  };
  return {{"threshold", diff.threshold},
          {"regressions", list(diff.regressions)},
          {"improvements", list(diff.improvements)}};
}

}  // namespace gauntlet::reports
