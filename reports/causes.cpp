#include "reports/causes.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>

#include "reports/text_util.h"

namespace gauntlet::reports::detail {

namespace {

// "local memory 704512 > 524288 (matmul.wg64..., n_in 11008)": the figures and the kernel.
Cause local_memory_from(const std::string& reason) {
  Cause c{"local_memory", "", {}};
  unsigned long long need = 0, limit = 0;
  if (std::sscanf(reason.c_str(), "local memory %llu > %llu", &need, &limit) == 2) {
    c.figures = {{"need_bytes", static_cast<double>(need)},
                 {"limit_bytes", static_cast<double>(limit)}};
  }
  if (const auto open = reason.find('('); open != std::string::npos) {
    c.subject = reason.substr(open + 1, reason.find_first_of(".,)", open) - open - 1);
  }
  return c;
}

// Appends `value` to `list` unless it is there already (first-seen order).
void add_once(std::vector<std::string>& list, const std::string& value) {
  if (std::find(list.begin(), list.end(), value) == list.end()) list.push_back(value);
}

std::string joined(const std::vector<std::string>& list) {
  std::string out;
  for (const auto& item : list) out += (out.empty() ? "" : ", ") + item;
  return out;
}

// The smallest and largest of one figure over a group: "65536-704512 B" or "524288 B".
std::string figure_range(const std::vector<const Profile*>& profiles, const char* name,
                         bool bytes) {
  double lo = 0, hi = 0;
  bool any = false;
  for (const auto* p : profiles) {
    const Cause cause = cause_of(*p);
    const auto it = cause.figures.find(name);
    if (it == cause.figures.end()) continue;
    lo = any ? std::min(lo, it->second) : it->second;
    hi = any ? std::max(hi, it->second) : it->second;
    any = true;
  }
  if (!any) return "";
  auto show = [bytes](double v) {
    return bytes ? format_bytes(static_cast<uint64_t>(v)) : format_number(v);
  };
  return lo == hi ? show(lo) : show(lo) + " to " + show(hi);
}

std::string group_text(const Cause& cause, const std::vector<const Profile*>& profiles) {
  const std::string& key = cause.key;
  const std::string& first_reason = profiles.front()->reason;
  if (key.rfind("feature_", 0) == 0) {
    const std::string verdict = key == "feature_failed"       ? "failed"
                                : key == "feature_not_tested" ? "not tested"
                                                              : "unsupported";
    return cause.subject + " " + verdict + " in conformance";
  }
  if (key == "local_memory") {
    const auto need = figure_range(profiles, "need_bytes", false);
    const auto limit = figure_range(profiles, "limit_bytes", false);
    if (need.empty()) return first_reason;
    return "local memory " + need + " > " + limit + " B verified" +
           (cause.subject.empty() ? std::string() : " (the " + cause.subject + " kernel)");
  }
  if (key == "memory_budget" || key == "budget_unverified") {
    const auto need = figure_range(profiles, "need_bytes", true);
    if (need.empty()) return first_reason;
    return "planned peak " + need + " > " +
           (key == "memory_budget" ? "safe budget " : "the budget this level verified, ") +
           figure_range(profiles, "budget_bytes", true);
  }
  if (key == "mismatch") {
    // A speculative check compares with the same device's plain greedy decode (run -md).
    const char* against =
        cause.subject == "speculative" ? "the plain greedy decode" : "the host reference";
    return "the " + cause.subject + " check did not match " + against + " (first: " + first_reason +
           ")";
  }
  if (key == "error" || key == "crash" || key == "timeout") {
    return "the " + cause.subject + " check ended in " + key + " (first: " + first_reason + ")";
  }
  return first_reason;
}

}  // namespace

Cause cause_of(const Profile& p) {
  if (p.cause) return *p.cause;
  const std::string& r = p.reason;
  if (r.rfind("local memory ", 0) == 0) return local_memory_from(r);
  if (r.rfind("needs ", 0) == 0 && r.find("> budget") != std::string::npos) {
    return {p.verdict == ProfileVerdict::unsafe ? "memory_budget" : "budget_unverified", "", {}};
  }
  // "f16 unsupported (conformance f16.arithmetic)", "bf16 failed"
  for (const auto& [word, key] :
       {std::pair{" unsupported", "feature_unsupported"}, std::pair{" failed", "feature_failed"},
        std::pair{" not_tested", "feature_not_tested"}}) {
    const auto at = r.find(word);
    if (at == std::string::npos || r.find(' ') != at) continue;
    std::string subject = r.substr(0, at);
    if (const auto conf = r.find("(conformance "); conf != std::string::npos) {
      subject = r.substr(conf + 13, r.find(')', conf) - conf - 13);
    }
    return {key, subject, {}};
  }
  return {"other", r, {}};
}

std::string pass_label(const Profile& p) {
  if (p.micro_batch > 1) return "pp" + std::to_string(p.micro_batch);
  if (p.batch > 1) return std::to_string(p.batch) + " seqs";
  return "1 token";
}

std::string CauseGroup::families() const {
  std::vector<std::string> formats, kv, compute, variants, passes;
  std::set<uint32_t> contexts;
  for (const auto* p : profiles) {
    add_once(formats, p->weight_format);
    add_once(kv, p->kv_precision);
    add_once(compute, p->compute_precision);
    add_once(variants, p->variant.name);
    add_once(passes, pass_label(*p));
    contexts.insert(p->context);
  }
  std::string out = "formats " + joined(formats) + "; KV " + joined(kv) + "; activations " +
                    joined(compute) + "; variants " + joined(variants) + "; contexts ";
  if (!contexts.empty()) {
    out += std::to_string(*contexts.begin());
    if (contexts.size() > 1) {
      out.append("-").append(std::to_string(*contexts.rbegin()));
      out.append(" (").append(std::to_string(contexts.size())).append(")");
    }
  }
  return out + "; passes " + joined(passes);
}

std::vector<CauseGroup> group_by_cause(const std::vector<Profile>& profiles,
                                       ProfileVerdict verdict) {
  std::vector<CauseGroup> groups;
  std::map<std::string, size_t> index;
  for (const auto& p : profiles) {
    if (p.verdict != verdict) continue;
    Cause cause = cause_of(p);
    const std::string key = cause.key + "\n" + cause.subject;
    auto [it, fresh] = index.try_emplace(key, groups.size());
    if (fresh) groups.push_back({std::move(cause), "", {}});
    groups[it->second].profiles.push_back(&p);
  }
  for (auto& g : groups) g.text = group_text(g.cause, g.profiles);
  std::stable_sort(groups.begin(), groups.end(), [](const CauseGroup& a, const CauseGroup& b) {
    return a.profiles.size() > b.profiles.size();
  });
  return groups;
}

}  // namespace gauntlet::reports::detail
