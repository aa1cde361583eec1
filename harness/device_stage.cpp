#include "harness/device_stage.h"

#include <algorithm>
#include <cstdio>

#include "conformance/conformance.h"
#include "core/tensor_type.h"
#include "stress/compute_peak.h"
#include "stress/stress.h"

namespace gauntlet::harness {

namespace {

// The host backend is the reference every device is compared with: its features are correct by
// construction, and it has no local memory (the planner does not check it on the host).
void host_reference_caps(DeviceStage& stage) {
  for (const char* key : {"f32", "f16", "f16.storage", "f16.arithmetic", "bf16", "bf16.storage",
                          "bf16.arithmetic", "f64", "int8", "int8.dot"}) {
    stage.verified.features[key] = {reports::FeatureVerdict::verified, {"host.reference"}};
  }
  // Every weight type: the host decodes each with the codec that defines it.
  for (const auto& type : core::all_tensor_types()) {
    stage.verified.features[type.name] = {reports::FeatureVerdict::verified, {"host.reference"}};
  }
}

// f16 and int8 peaks only where conformance verified the arithmetic they use.
stress::PeakOptions peak_options(const reports::VerifiedCaps& verified, core::Level level) {
  stress::PeakOptions options = stress::peak_options_for(level);
  auto decide = [&](const std::string& key, bool& ok, std::string& reason) {
    const auto found = verified.features.find(key);
    ok = found != verified.features.end() &&
         found->second.verdict == reports::FeatureVerdict::verified;
    if (ok) return;
    reason = "not verified: " + key + " " +
             (found == verified.features.end() ? std::string("not tested")
                                               : std::string(to_string(found->second.verdict)));
    if (found != verified.features.end() && !found->second.rows.empty()) {
      std::string rows;
      for (const auto& id : found->second.rows) rows += (rows.empty() ? "" : ", ") + id;
      reason += " (" + rows + ")";
    }
  };
  decide("f16.arithmetic", options.f16_verified, options.f16_reason);
  decide("int8.dot", options.int8_verified, options.int8_reason);
  return options;
}

}  // namespace

StageProgress::StageProgress(const Progress& progress, std::string device, std::string stage)
    : progress_(progress),
      prefix_(std::move(device) + " " + std::move(stage)),
      start_(std::chrono::steady_clock::now()) {
  progress_(ProgressKind::stage, prefix_ + " ...");
}

void StageProgress::done(const std::string& found) const {
  const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start_;
  char seconds[32];
  std::snprintf(seconds, sizeof seconds, " %.1f s", took.count());
  progress_(ProgressKind::stage, prefix_ + " " + found + seconds);
}

core::Result<DeviceStage> measure_device(const core::DeviceInfo& claimed,
                                         const core::Options& options,
                                         const std::optional<SimulateClamps>& clamps,
                                         Journal& journal, const Progress& progress,
                                         DeviceWatch& watch, const DeviceClock& clock) {
  DeviceStage stage;
  const std::string dev = claimed.id.to_string();
  stage.facts.info = claimed;

  if (claimed.id.api == core::Api::host) {
    host_reference_caps(stage);
  } else {
    const std::string unit = "conform:" + dev;
    conformance::ConformanceResult result;
    const StageProgress conform(progress, dev, "conform");
    if (const auto* saved = journal.find(unit)) {
      auto decoded = journal_payload<conformance::ConformanceResult>(*saved, unit, journal);
      if (!decoded) return decoded.error();
      result = std::move(*decoded);
      watch.restore(unit, journal);
      conform.done("from the journal");
    } else {
      conformance::ConformanceOptions conf;
      conf.level = options.level;
      watch.begin(unit);
      result = conformance::run_conformance(claimed, options, conf);
      watch.end(&journal);
      GAUNTLET_TRY(journal.append(unit, core::Json(result)));
      const auto passed = std::count_if(result.rows.begin(), result.rows.end(), [](const auto& r) {
        return r.status == core::RowStatus::pass;
      });
      conform.done(std::to_string(passed) + "/" + std::to_string(result.rows.size()) +
                   " rows pass");
    }
    stage.conformance = result.rows;
    for (const auto& [key, verdict] : result.features) stage.verified.features[key] = verdict;
    stage.verified.local_mem_verified_bytes = result.local_mem_verified_bytes;
    stage.verified.max_workgroup_verified = result.max_workgroup_verified;
    stage.verified.subgroup_size_observed = result.subgroup_size_observed;
  }

  const std::string unit = "stress:" + dev;
  stress::StressResult measured;
  const StageProgress stress_stage(progress, dev, "stress");
  if (const auto* saved = journal.find(unit)) {
    auto decoded = journal_payload<stress::StressResult>(*saved, unit, journal);
    if (!decoded) return decoded.error();
    measured = std::move(*decoded);
    watch.restore(unit, journal);
    stress_stage.done("from the journal");
  } else {
    stress::StressOptions stress_options;
    stress_options.level = options.level;
    stress_options.time_budget_s = clock.left_s() * kStressShare;
    if (clamps && clamps->global_mem_size) stress_options.cap_bytes = *clamps->global_mem_size;
    watch.begin(unit);
    measured = stress::run_stress(claimed, options, stress_options);
    watch.end(&journal);
    GAUNTLET_TRY(journal.append(unit, core::Json(measured)));
    stress_stage.done("budget " + std::to_string(measured.safe_budget_bytes >> 20) + " MiB");
  }
  stage.stress = static_cast<const core::StressResult&>(measured);

  if (clamps) {
    stage.verified.local_mem_verified_bytes =
        clamp_local_memory(stage.verified.local_mem_verified_bytes, *clamps);
    for (const auto& feature : clamps->features_off) {
      // Simulation switches off the claimed feature; the conformance keys built on it follow.
      for (auto& [key, result] : stage.verified.features) {
        if (key.rfind(feature == "fp16_arithmetic" ? "f16.arithmetic" : feature, 0) == 0) {
          result.verdict = reports::FeatureVerdict::unsupported;
          result.rows = {"simulate." + clamps->name};
        }
      }
    }
    stage.stress->safe_budget_bytes = clamp_memory_budget(stage.stress->safe_budget_bytes, *clamps);
  }

  const std::string peak_unit = "peak:" + dev;
  const StageProgress peak_stage(progress, dev, "peak");
  if (const auto* saved = journal.find(peak_unit)) {
    auto decoded = journal_payload<core::ComputePeak>(*saved, peak_unit, journal);
    if (!decoded) return decoded.error();
    stage.compute_peak = std::move(*decoded);
    watch.restore(peak_unit, journal);
    peak_stage.done("from the journal");
  } else {
    watch.begin(peak_unit);
    stage.compute_peak = stress::run_compute_peak(
        claimed, options, peak_options(stage.verified, options.level), core::IsolationLimits{});
    watch.end(&journal);
    GAUNTLET_TRY(journal.append(peak_unit, core::Json(*stage.compute_peak)));
    char tail[64];
    std::snprintf(tail, sizeof tail, ", copy %.1f GB/s", stage.stress->copy_bandwidth_gbps);
    peak_stage.done(core::describe(*stage.compute_peak) + tail);
  }

  stage.facts.local_mem_verified_bytes = stage.verified.local_mem_verified_bytes;
  stage.facts.safe_budget_bytes = stage.stress->safe_budget_bytes;
  stage.facts.budget_capped_by_level =
      options.level != core::Level::full && measured.bound_by.find("level") != std::string::npos;
  for (const auto& [key, result] : stage.verified.features) {
    stage.facts.features[key] = result.verdict;
  }
  return stage;
}

}  // namespace gauntlet::harness
