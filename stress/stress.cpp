#include "stress/stress.h"

#include <algorithm>
#include <cstdio>

#include "core/clock.h"
#include "stress/bandwidth.h"
#include "stress/host_limits.h"
#include "stress/step_budget.h"
#include "stress/steps.h"
#include "stress/verify.h"

namespace gauntlet::stress {

namespace {

using core::Json;
using core::Row;
using core::RowStatus;

std::string mib(uint64_t bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f MiB", static_cast<double>(bytes) / kMiB);
  return text;
}

Json host_json(const HostMemory& host) {
  Json j = Json::object();
  if (host.mem_available) j["mem_available"] = *host.mem_available;
  if (host.mem_total) j["mem_total"] = *host.mem_total;
  if (host.cgroup_room) {
    j["cgroup_room"] = *host.cgroup_room;
    j["cgroup_source"] = host.cgroup_source;
  }
  if (host.rlimit_as_room) j["rlimit_as_room"] = *host.rlimit_as_room;
  return j;
}

struct SearchOutcome {
  uint64_t largest = 0;
  std::string bound_by;
};

SearchOutcome search(const core::DeviceInfo& claimed, const core::Options& options,
                     const StressOptions& stress, const Cap& cap, std::vector<Row>& rows) {
  const std::string dev = claimed.id.to_string();
  auto [api_max, api_name] = api_max_allocation(claimed);
  SearchState state;
  state.upper = round_mib(std::min(api_max, cap.bytes));
  const std::string upper_name = api_max <= cap.bytes ? api_name : cap.bound_by;
  Shared<SearchProgress> progress;
  // The search verifies a dozen sizes or more in one child: several steps' worth of time.
  core::IsolationLimits search_limits = stress.limits;
  search_limits.timeout *= 4;
  Row row = core::make_row("stress.max_single_alloc", dev, RowStatus::pass);
  std::string failure;
  for (int attempt = 0; attempt < 3; ++attempt) {
    const uint64_t before = state.largest_ok;
    auto run = core::run_isolated("stress.max_single_alloc", dev, search_limits, [&] {
      return search_largest_allocation(claimed, options, state, progress.get());
    });
    row.duration_s += run.duration_s;
    if (run.completed && run.payload.value("status", "") == "pass") {
      state.largest_ok = run.payload.value("largest_ok", uint64_t{0});
      state.smallest_failed = run.payload.value("smallest_failed", uint64_t{0});
      if (!run.payload.value("failure", "").empty()) failure = run.payload.value("failure", "");
      row.metrics["tried"] = run.payload["tried"];
      break;
    }
    if (run.completed) {
      row.status = RowStatus::error;
      row.reason = run.payload.value("reason", "allocation search failed");
      break;
    }
    // The child died: the size it was verifying is where the device (or host) gave way.
    const uint64_t dying = progress ? progress.get()->in_progress.load() : 0;
    Row crash = run.failure;
    crash.id = "stress.max_single_alloc.attempt" + std::to_string(attempt + 1);
    crash.reason +=
        dying ? " while verifying an allocation of " + std::to_string(dying) + " bytes" : "";
    crash.metrics["bytes"] = dying;
    rows.push_back(crash);
    if (progress)
      state.largest_ok = std::max(state.largest_ok, progress.get()->largest_verified.load());
    if (dying == 0 || dying <= state.largest_ok) break;
    // A timeout covers the whole search, not one size: go on from what was verified, unless
    // this size alone used the attempt.
    if (run.failure.status == RowStatus::timeout && state.largest_ok > before) continue;
    state.smallest_failed = dying;
    failure = crash.reason;
  }
  SearchOutcome out;
  out.largest = state.largest_ok;
  if (out.largest == state.upper && out.largest > 0) {
    out.bound_by = upper_name;
  } else if (state.smallest_failed > 0) {
    out.bound_by = "failed at " + std::to_string(state.smallest_failed) + " bytes: " + failure;
  } else {
    out.bound_by = row.reason;
  }
  if (row.status == RowStatus::pass && out.largest == 0) {
    row.status = RowStatus::fail;
    row.reason = "no allocation of even 1 MiB could be verified: " + out.bound_by;
  }
  row.metrics["bytes"] = out.largest;
  row.metrics["upper"] = state.upper;
  row.metrics["upper_bound_by"] = upper_name;
  row.metrics["api_max"] = api_max;
  row.metrics["api_limit"] = api_name;
  row.metrics["bound_by"] = out.bound_by;
  rows.push_back(row);
  return out;
}

// Bytes per second the pattern suite's random pattern wrote and read back (0: not measured).
double suite_verify_rate(const std::vector<Row>& rows) {
  for (const auto& r : rows) {
    if (r.id != "stress.pattern.random" || r.status != RowStatus::pass || r.duration_s <= 0)
      continue;
    return static_cast<double>(r.metrics.value("bytes", uint64_t{0})) *
           r.metrics.value("passes", 1) / r.duration_s;
  }
  return 0;
}

}  // namespace

StressResult run_stress(const core::DeviceInfo& claimed, const core::Options& options,
                        const StressOptions& stress) {
  const auto started = std::chrono::steady_clock::now();
  StressResult result;
  result.device = claimed.id.to_string();
  const std::string& dev = result.device;
  auto log = [&](const std::string& line) {
    if (stress.progress) stress.progress("stress " + dev + ": " + line);
  };
  const uint64_t memory = device_memory(claimed);
  const HostMemory host = read_host_memory();
  const Cap cap = compute_cap(claimed, stress.level, stress.max_fraction, stress.cap_bytes, host);
  Row cap_row = core::make_row("stress.cap", dev, RowStatus::pass);
  cap_row.metrics = {{"cap_bytes", cap.bytes},
                     {"bound_by", cap.bound_by},
                     {"device_memory", memory},
                     {"shares_host_memory", shares_host_memory(claimed)},
                     {"host", host_json(host)},
                     {"host_margin_bytes", cap.host_margin_bytes},
                     {"host_margin_rule", cap.margin_rule},
                     {"level", core::to_string(stress.level)}};
  log("cap " + mib(cap.bytes) + " of " + mib(memory) + " (bound by " + cap.bound_by + ")");
  result.host_memcpy_gbps =
      measure_host_memcpy_gbps(std::clamp<uint64_t>(cap.bytes / 4, kMiB, 64 * kMiB));
  cap_row.metrics["host_memcpy_gbps"] = result.host_memcpy_gbps;
  result.rows.push_back(cap_row);
  if (cap.bytes < kMiB) {
    result.bound_by = cap.bound_by;
    Row row = core::make_row("stress.budget", dev, RowStatus::skipped,
                             "the cap (" + std::to_string(cap.bytes) + " bytes, bound by " +
                                 cap.bound_by + ") leaves less than 1 MiB to test");
    result.rows.push_back(row);
    return result;
  }

  log("largest single allocation, up to " +
      mib(std::min(cap.bytes, api_max_allocation(claimed).first)));
  SearchOutcome single = search(claimed, options, stress, cap, result.rows);
  result.max_single_alloc_verified_bytes = single.largest;
  result.max_single_alloc_bound_by = single.bound_by;
  log("largest single allocation verified: " + mib(single.largest) + " (" + single.bound_by + ")");

  const uint32_t seed = 0x5eed0000u + static_cast<uint32_t>(claimed.id.index);
  {
    // Without a verified allocation the suite still runs, on a small buffer: its rows say why.
    const uint64_t bytes =
        std::min<uint64_t>(single.largest > 0 ? single.largest : round_mib(cap.bytes),
                           stress.level == core::Level::quick ? 16 * kMiB : 64 * kMiB);
    const int passes = stress.level == core::Level::full ? 3 : 1;
    log("pattern suite on " + mib(bytes) + ", " + std::to_string(passes) + " pass(es)");
    auto run = core::run_isolated("stress.pattern", dev, stress.limits, [&] {
      return run_patterns_unit(claimed, options, bytes, passes, seed);
    });
    if (!run.completed) {
      result.rows.push_back(run.failure);
    } else if (run.payload.value("status", "") != "pass") {
      result.rows.push_back(core::make_row("stress.pattern", dev, RowStatus::error,
                                           run.payload.value("reason", "pattern suite failed")));
    } else {
      for (auto& r : run.payload["rows"].get<std::vector<Row>>()) result.rows.push_back(r);
    }
  }

  // Occupancy steps, smallest first; a crash or timeout makes that step and larger ones unsafe.
  std::vector<uint64_t> sizes;
  for (double f : step_fractions(stress.level)) {
    uint64_t bytes = round_mib(static_cast<uint64_t>(static_cast<double>(cap.bytes) * f));
    if (bytes >= kMiB && (sizes.empty() || bytes > sizes.back())) sizes.push_back(bytes);
  }
  uint64_t largest_verified = 0;
  std::string first_trouble;
  int unsafe_from = 0;
  const int patterns = step_patterns(stress.level);
  double verify_rate = suite_verify_rate(result.rows);
  for (size_t i = 0; i < sizes.size(); ++i) {
    core::StressPoint point;
    point.step = static_cast<int>(i) + 1;
    point.bytes = sizes[i];
    point.fraction = memory ? static_cast<double>(sizes[i]) / static_cast<double>(memory) : 0;
    const std::string id = "stress.step." + std::to_string(point.step);
    Row row = core::make_row(id, dev, RowStatus::pass);
    row.metrics = {{"step", point.step}, {"bytes", point.bytes}, {"fraction", point.fraction}};
    if (unsafe_from > 0 || single.largest == 0) {
      point.status = RowStatus::skipped;
      point.reason = single.largest == 0 ? "not run: no single allocation was verified"
                                         : "not run: step " + std::to_string(unsafe_from) +
                                               " did not complete, so this larger step is unsafe";
      row.status = point.status;
      row.reason = point.reason;
      result.curve.push_back(point);
      result.rows.push_back(row);
      continue;
    }
    StepPlan plan;
    plan.step = point.step;
    plan.bytes = point.bytes;
    plan.chunk_bytes = step_chunk_bytes(point.bytes, single.largest);
    plan.level = stress.level;
    plan.seed = seed + static_cast<uint32_t>(i) * 104729u;
    row.metrics["chunk_bytes"] = plan.chunk_bytes;
    core::IsolationLimits limits = stress.limits;
    std::string sampled;
    if (stress.time_budget_s > 0) {
      // Spent already: the least a step verifies, its first and last chunk.
      const double share_s = std::max(1e-3, stress.time_budget_s - core::seconds_since(started)) /
                             static_cast<double>(sizes.size() - i);
      const StepBudget budget =
          plan_step_budget(plan.bytes, plan.chunk_bytes, patterns, verify_rate, share_s);
      plan.verify_every = budget.verify_every;
      row.metrics["verify_every"] = budget.verify_every;
      row.metrics["planned_s"] = budget.planned_s;
      if (budget.verify_every > 1) {
        sampled = ", verifying " + std::to_string(budget.chunks_verified) + " of " +
                  std::to_string(budget.chunks) + " chunks (the level's time budget)";
      }
      // A step planned longer than the default limit gets room for it; a hang is still cut.
      limits.timeout = std::max(
          limits.timeout,
          std::chrono::milliseconds(static_cast<int64_t>((2 * budget.planned_s + 30) * 1000)));
    }
    log("step " + std::to_string(point.step) + "/" + std::to_string(sizes.size()) + ": " +
        mib(point.bytes) + " (" + std::to_string(static_cast<int>(point.fraction * 100 + 0.5)) +
        "% of device memory) in chunks of " + mib(plan.chunk_bytes) + sampled);
    auto run =
        core::run_isolated(id, dev, limits, [&] { return run_step(claimed, options, plan); });
    row.duration_s = run.duration_s;
    row.metrics["peak_rss_kb"] = run.peak_rss_kb;
    if (!run.completed) {
      point.status = run.failure.status;
      point.reason = run.failure.reason;
      row.status = run.failure.status;
      row.reason = "step " + std::to_string(point.step) + " (" + std::to_string(point.bytes) +
                   " bytes): " + run.failure.reason;
      for (auto& [k, v] : run.failure.metrics.items()) row.metrics[k] = v;
      if (run.failure.status == RowStatus::crash || run.failure.status == RowStatus::timeout) {
        unsafe_from = point.step;
      }
    } else {
      const Json& p = run.payload;
      point.status =
          core::row_status_from_string(p.value("status", "error")).value_or(RowStatus::error);
      point.reason = p.value("reason", "");
      point.verified = point.status == RowStatus::pass;
      row.status = point.status;
      row.reason = point.reason;
      for (const char* key :
           {"verified_bytes", "checked_bytes", "chunks", "chunks_verified", "allocated_bytes",
            "errors", "verify", "bandwidth", "bandwidth_error"}) {
        if (p.contains(key)) row.metrics[key] = p[key];
      }
      // The rate this step verified at (its allocation included) plans the next.
      const double checked = static_cast<double>(p.value("checked_bytes", uint64_t{0}));
      if (checked > 0 && run.duration_s > 0) verify_rate = checked * patterns / run.duration_s;
      if (p.value("errors", uint64_t{0}) == 0) {
        largest_verified = std::max(largest_verified, p.value("verified_bytes", uint64_t{0}));
      }
      if (p.contains("bandwidth")) {
        const Json& bw = p["bandwidth"];
        point.bandwidth_gbps = bw.value("copy_gbps", 0.0);
        result.copy_bandwidth_gbps = point.bandwidth_gbps;
        result.read_bandwidth_gbps = bw.value("read_gbps", 0.0);
        result.write_bandwidth_gbps = bw.value("write_gbps", 0.0);
        result.h2d_gbps = bw.value("h2d_gbps", 0.0);
        result.d2h_gbps = bw.value("d2h_gbps", 0.0);
      }
    }
    if (point.status != RowStatus::pass && first_trouble.empty()) {
      first_trouble = "step " + std::to_string(point.step) + " (" + std::to_string(point.bytes) +
                      " bytes) " + core::to_string(point.status);
    }
    log("step " + std::to_string(point.step) + ": " + core::to_string(point.status) +
        (point.reason.empty() ? "" : " (" + point.reason + ")") +
        (point.bandwidth_gbps > 0 ? ", copy " + std::to_string(point.bandwidth_gbps) + " GB/s"
                                  : ""));
    result.curve.push_back(point);
    result.rows.push_back(row);
  }

  // The budget: the largest verified total less a margin for what the deployment itself needs.
  result.margin_rule = "10% of the largest verified total, at least min(64 MiB, a quarter of it)";
  result.margin_bytes = std::max(largest_verified / 10, std::min(64 * kMiB, largest_verified / 4));
  result.safe_budget_bytes = largest_verified - result.margin_bytes;
  result.bound_by = single.largest == 0     ? "no verified allocation: " + single.bound_by
                    : first_trouble.empty() ? cap.bound_by
                                            : first_trouble;
  Row budget = core::make_row("stress.budget", dev,
                              largest_verified > 0 ? RowStatus::pass : RowStatus::fail);
  if (largest_verified == 0) budget.reason = "no occupancy step was verified: " + result.bound_by;
  budget.metrics = {
      {"safe_budget_bytes", result.safe_budget_bytes},
      {"largest_verified_bytes", largest_verified},
      {"margin_bytes", result.margin_bytes},
      {"margin_rule", result.margin_rule},
      {"bound_by", result.bound_by},
      {"copy_gbps", result.copy_bandwidth_gbps},
      {"host_memcpy_gbps", result.host_memcpy_gbps},
      {"copy_vs_host_memcpy",
       result.host_memcpy_gbps > 0 ? result.copy_bandwidth_gbps / result.host_memcpy_gbps : 0.0}};
  result.rows.push_back(budget);
  log("safe budget " + mib(result.safe_budget_bytes) + " (largest verified " +
      mib(largest_verified) + " less " + mib(result.margin_bytes) + "; bound by " +
      result.bound_by + ")");
  return result;
}

void to_json(core::Json& j, const StressResult& r) {
  core::to_json(j, static_cast<const core::StressResult&>(r));
  j["device"] = r.device;
  j["margin_rule"] = r.margin_rule;
  j["bound_by"] = r.bound_by;
  j["max_single_alloc_bound_by"] = r.max_single_alloc_bound_by;
  j["read_bandwidth_gbps"] = r.read_bandwidth_gbps;
  j["write_bandwidth_gbps"] = r.write_bandwidth_gbps;
  j["h2d_gbps"] = r.h2d_gbps;
  j["d2h_gbps"] = r.d2h_gbps;
}

void from_json(const core::Json& j, StressResult& r) {
  core::from_json(j, static_cast<core::StressResult&>(r));
  r.device = j.at("device").get<std::string>();
  r.margin_rule = j.value("margin_rule", "");
  r.bound_by = j.value("bound_by", "");
  r.max_single_alloc_bound_by = j.value("max_single_alloc_bound_by", "");
  r.read_bandwidth_gbps = j.value("read_bandwidth_gbps", 0.0);
  r.write_bandwidth_gbps = j.value("write_bandwidth_gbps", 0.0);
  r.h2d_gbps = j.value("h2d_gbps", 0.0);
  r.d2h_gbps = j.value("d2h_gbps", 0.0);
}

}  // namespace gauntlet::stress
