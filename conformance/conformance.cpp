#include "conformance/conformance.h"

#include <algorithm>

#include "backends/catalog.h"
#include "backends/host/host_device.h"
#include "build_options.h"
#include "conformance/registry.h"
#include "core/tensor_type.h"
#ifdef GAUNTLET_WITH_VULKAN
#include "backends/vulkan/vulkan_device.h"
#endif

namespace gauntlet::conformance {

namespace {

using core::RowStatus;

constexpr uint64_t kBaseSeed = 0x6761756e746c6574ull;  // "gauntlet"

std::string family_unit(const Family& f) { return "conform." + f.name; }

bool family_wanted(const Family& f, const CaseContext& probe) {
  return std::any_of(f.cases.begin(), f.cases.end(),
                     [&](const CaseSpec& c) { return probe.wants(c.id); });
}

std::vector<core::Row> run_family(const Family& family, const core::DeviceInfo& claimed,
                                  const core::Options& options, const ConformanceOptions& conf) {
  const std::string name = claimed.id.to_string();
  auto device = backends::open(claimed.id, options);
  if (!device) {
    return {core::make_row(family_unit(family), name, RowStatus::error,
                           "could not open the device: " + device.error().describe())};
  }
  auto host = backends::host::open();
  CaseContext ctx{**device, *host, claimed, options, conf.level, conf.filter, kBaseSeed};
  auto rows = family.run(ctx);
#ifdef GAUNTLET_WITH_VULKAN
  // Under the validation layer every message is a defect of this suite or of the backend.
  if (claimed.id.api == core::Api::vulkan && options.vulkan_validation) {
    auto messages = backends::vulkan::validation_messages();
    if (!messages.empty()) {
      std::string text = std::to_string(messages.size()) + " validation message(s): ";
      for (const auto& m : messages) text += m + "\n";
      rows.push_back(
          core::make_row(family_unit(family) + ".validation", name, RowStatus::fail, text));
    }
  }
#endif
  return rows;
}

// The features a row speaks for: its case's, or every feature of its family for a row that
// stands for a whole child (a crash, a timeout, a device that would not open).
std::vector<std::string> features_of(const core::Row& row) {
  if (const CaseSpec* spec = find_case(row.id)) return spec->features;
  for (const Family& f : families()) {
    if (row.id != family_unit(f) && row.id != family_unit(f) + ".validation") continue;
    std::vector<std::string> out;
    for (const CaseSpec& c : f.cases) {
      for (const auto& feature : c.features) {
        if (std::find(out.begin(), out.end(), feature) == out.end()) out.push_back(feature);
      }
    }
    return out;
  }
  return {};
}

bool is_failure(RowStatus s) {
  return s == RowStatus::fail || s == RowStatus::error || s == RowStatus::crash ||
         s == RowStatus::timeout;
}

// A request over the local memory limit that was refused is the expected outcome.
bool refused_as_expected(const core::Row& row) {
  return row.status == RowStatus::unsupported && row.metrics.value("refused", false);
}

FeatureVerdict judge_rows(const std::vector<const core::Row*>& rows) {
  FeatureVerdict v;
  bool any_pass = false, any_unsupported = false;
  for (const core::Row* r : rows) {
    v.rows.push_back(r->id);
    if (is_failure(r->status)) {
      if (v.verdict != Verdict::failed) v.reason = r->id + ": " + r->reason;
      v.verdict = Verdict::failed;
    } else if (r->status == RowStatus::pass || refused_as_expected(*r)) {
      any_pass = true;
    } else if (r->status == RowStatus::unsupported) {
      any_unsupported = true;
      if (v.reason.empty()) v.reason = r->reason;
    }
  }
  if (v.verdict == Verdict::failed) return v;
  if (any_pass) {
    v.verdict = Verdict::verified;
    v.reason.clear();
  } else if (any_unsupported) {
    v.verdict = Verdict::unsupported;
  } else if (!rows.empty()) {
    v.reason = "no case ran: " + rows.front()->reason;
  }
  return v;
}

// f16 and bf16: native arithmetic verified -> verified; otherwise the emulated path (16-bit
// storage, f32 arithmetic) verified -> emulated.
FeatureVerdict combine_half(const std::string& key, const FeatureVerdict& native,
                            const FeatureVerdict& emulated_path) {
  FeatureVerdict v = emulated_path;
  v.rows.insert(v.rows.end(), native.rows.begin(), native.rows.end());
  if (emulated_path.verdict == Verdict::verified) {
    if (native.verdict == Verdict::verified) {
      v.verdict = Verdict::verified;
    } else {
      v.verdict = Verdict::emulated;
      v.reason = "native " + key + " arithmetic " +
                 (native.verdict == Verdict::failed ? "claimed but failed (" + native.reason + ")"
                  : native.verdict == Verdict::unsupported ? "not claimed (" + native.reason + ")"
                                                           : "not tested") +
                 "; 16-bit storage with f32 arithmetic verified";
    }
  }
  return v;
}

void fill_verdicts(ConformanceResult& result) {
  std::map<std::string, std::vector<const core::Row*>> by_feature;
  for (const core::Row& row : result.rows) {
    for (const auto& f : features_of(row)) by_feature[f].push_back(&row);
  }
  for (const auto& key : feature_keys()) result.features[key] = judge_rows(by_feature[key]);
  for (const std::string half : {"f16", "bf16"}) {
    // The "f16" rows are the emulated path; "f16.arithmetic" the native one.
    result.features[half] =
        combine_half(half, result.features[half + ".arithmetic"], result.features[half]);
  }
}

void fill_limits(ConformanceResult& result) {
  std::map<std::string, uint64_t> local_by_form;
  uint64_t wg = 0;
  bool wg_seen = false;
  for (const core::Row& row : result.rows) {
    const auto& m = row.metrics;
    if (row.id.rfind("conform.local.", 0) == 0 && m.contains("form") && m.contains("bytes") &&
        !m.contains("refused")) {
      const std::string form = m["form"].get<std::string>();
      uint64_t& best = local_by_form[form];
      const bool works = row.status == RowStatus::pass || row.id.ends_with(".largest");
      if (works) best = std::max(best, m["bytes"].get<uint64_t>());
    }
    if (row.id.rfind("conform.workgroup.", 0) == 0 && m.contains("largest")) {
      const auto largest = m["largest"].get<uint64_t>();
      wg = wg_seen ? std::min(wg, largest) : largest;
      wg_seen = true;
      if (m.contains("subgroup_size")) {
        result.subgroup_size_observed = m["subgroup_size"].get<uint32_t>();
      }
    }
  }
  if (!local_by_form.empty()) {
    uint64_t verified = UINT64_MAX;
    for (const auto& [form, bytes] : local_by_form) verified = std::min(verified, bytes);
    result.local_mem_verified_bytes = verified;
  }
  result.max_workgroup_verified = wg;
}

}  // namespace

const std::vector<std::string>& feature_keys() {
  static const std::vector<std::string> keys = [] {
    std::vector<std::string> k = {
        "f32", "f16",  "f16.storage", "f16.arithmetic", "bf16", "bf16.storage", "bf16.arithmetic",
        "f64", "int8", "int8.dot",    "q8_0",           "q4_0"};
    // Every other quantized weight type, by its ggml name ("q4_K"): its dequantization row.
    for (const core::TypeTraits& t : core::all_tensor_types()) {
      if (core::is_quantized(t.type) && std::find(k.begin(), k.end(), t.name) == k.end()) {
        k.emplace_back(t.name);
      }
    }
    k.insert(k.end(), {"local_memory", "workgroup"});
    return k;
  }();
  return keys;
}

std::vector<std::string> cases_matching(const std::string& filter) {
  auto host = backends::host::open();
  const core::Options options;
  CaseContext probe{*host, *host, host->info(), options, core::Level::quick, filter, 0};
  std::vector<std::string> ids;
  for (const Family& family : families()) {
    for (const CaseSpec& c : family.cases) {
      if (probe.wants(c.id)) ids.push_back(c.id);
    }
  }
  return ids;
}

ConformanceResult run_conformance(const core::DeviceInfo& claimed, const core::Options& options,
                                  const ConformanceOptions& conf) {
  ConformanceResult result;
  result.device = claimed.id.to_string();
  // A context only to evaluate the filter before any child starts.
  auto probe_host = backends::host::open();
  CaseContext probe{*probe_host, *probe_host, claimed, options, conf.level, conf.filter, 0};
  for (const Family& family : families()) {
    if (!family_wanted(family, probe)) continue;
    auto rows = core::run_isolated_rows(family_unit(family), result.device, conf.limits,
                                        [&] { return run_family(family, claimed, options, conf); });
    result.rows.insert(result.rows.end(), rows.begin(), rows.end());
  }
  fill_verdicts(result);
  fill_limits(result);
  return result;
}

void to_json(core::Json& j, const FeatureVerdict& v) {
  core::to_json(j, static_cast<const core::FeatureResult&>(v));
  j["reason"] = v.reason;
}

void from_json(const core::Json& j, FeatureVerdict& v) {
  core::from_json(j, static_cast<core::FeatureResult&>(v));
  v.reason = j.value("reason", std::string{});
}

void to_json(core::Json& j, const ConformanceResult& r) {
  j = core::Json{{"device", r.device},
                 {"rows", r.rows},
                 {"features", r.features},
                 {"local_mem_verified_bytes", r.local_mem_verified_bytes},
                 {"max_workgroup_verified", r.max_workgroup_verified},
                 {"subgroup_size_observed", r.subgroup_size_observed}};
}

void from_json(const core::Json& j, ConformanceResult& r) {
  r.device = j.at("device").get<std::string>();
  r.rows = j.value("rows", std::vector<core::Row>{});
  r.features = j.value("features", std::map<std::string, FeatureVerdict>{});
  r.local_mem_verified_bytes = j.value("local_mem_verified_bytes", uint64_t{0});
  r.max_workgroup_verified = j.value("max_workgroup_verified", uint64_t{0});
  r.subgroup_size_observed = j.value("subgroup_size_observed", uint32_t{0});
}

}  // namespace gauntlet::conformance
