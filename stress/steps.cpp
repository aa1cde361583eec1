#include "stress/steps.h"

#include <signal.h>
#include <sys/mman.h>

#include <algorithm>
#include <memory>
#include <vector>

#include "backends/catalog.h"
#include "core/clock.h"
#include "stress/bandwidth.h"
#include "stress/verify.h"

namespace gauntlet::stress {

template <typename T>
Shared<T>::Shared() {
  void* p = ::mmap(nullptr, sizeof(T), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (p != MAP_FAILED) value_ = new (p) T();
}

template <typename T>
Shared<T>::~Shared() {
  if (value_ != nullptr) {
    value_->~T();
    ::munmap(value_, sizeof(T));
  }
}

template class Shared<SearchProgress>;

namespace {

core::Json error_json(const std::string& reason) {
  return {{"status", "error"}, {"reason", reason}};
}

// Allocates `bytes`, writes and checks a random pattern. Empty string = verified.
std::string try_size(backends::Device& device, PatternRunner& runner, uint64_t bytes) {
  auto buffer = device.allocate(bytes);
  if (!buffer) return buffer.error().describe();
  auto report = runner.check(**buffer, Pattern::random, static_cast<uint32_t>(bytes >> 20));
  if (!report) return "allocated, but writing or reading it failed: " + report.error().describe();
  if (report->errors > 0) return "allocated, but it does not hold data: " + report->describe();
  return {};
}

}  // namespace

core::Json search_largest_allocation(const core::DeviceInfo& claimed, const core::Options& options,
                                     SearchState state, SearchProgress* progress) {
  auto device = backends::open(claimed.id, options);
  if (!device) return error_json(device.error().describe());
  auto runner = PatternRunner::create(**device, options);
  if (!runner) return error_json(runner.error().describe());

  core::Json tried = core::Json::array();
  std::string failure;
  auto attempt = [&](uint64_t bytes) {
    if (progress) progress->in_progress = bytes;
    std::string why = try_size(**device, *runner, bytes);
    tried.push_back({{"bytes", bytes}, {"ok", why.empty()}, {"reason", why}});
    if (why.empty()) {
      state.largest_ok = std::max(state.largest_ok, bytes);
      if (progress) progress->largest_verified = state.largest_ok;
      return true;
    }
    if (state.smallest_failed == 0 || bytes < state.smallest_failed) {
      state.smallest_failed = bytes;
      failure = why;
    }
    return false;
  };

  // Most devices hold their whole upper bound: trying it first verifies one size instead of every
  // power of two below it (half the bytes written). Only when it fails does the search grow.
  if (state.largest_ok == 0 && state.smallest_failed == 0 && state.upper > 0) attempt(state.upper);
  if (state.largest_ok < state.upper) {
    const uint64_t ceiling = state.smallest_failed ? state.smallest_failed : state.upper + 1;
    uint64_t size = std::max<uint64_t>(std::min(kMiB, state.upper), state.largest_ok * 2);
    while (size > 0 && size < ceiling && attempt(size) && size < state.upper)
      size = std::min(size * 2, state.upper);
  }
  while (state.smallest_failed > 0 && state.smallest_failed - state.largest_ok > kMiB) {
    uint64_t mid = round_mib(state.largest_ok + (state.smallest_failed - state.largest_ok) / 2);
    if (mid <= state.largest_ok) mid = state.largest_ok + kMiB;
    if (mid >= state.smallest_failed) break;
    attempt(mid);
  }
  if (progress) progress->in_progress = 0;
  return {{"status", "pass"},
          {"largest_ok", state.largest_ok},
          {"smallest_failed", state.smallest_failed},
          {"failure", failure},
          {"tried", tried}};
}

core::Json run_step(const core::DeviceInfo& claimed, const core::Options& options,
                    const StepPlan& plan) {
  const auto started = std::chrono::steady_clock::now();
  auto device = backends::open(claimed.id, options);
  if (!device) return error_json(device.error().describe());
  auto runner = PatternRunner::create(**device, options);
  if (!runner) return error_json(runner.error().describe());

  core::Json out{{"status", "pass"},     {"reason", ""}, {"verified_bytes", 0},
                 {"allocated_bytes", 0}, {"chunks", 0},  {"errors", 0}};
  std::vector<std::unique_ptr<backends::Buffer>> chunks;
  uint64_t allocated = 0;
  while (allocated < plan.bytes) {
    const uint64_t size = std::min(plan.chunk_bytes, plan.bytes - allocated);
    auto chunk = (*device)->allocate(size);
    if (!chunk) {
      out["status"] = "fail";
      out["reason"] = "allocation of chunk " + std::to_string(chunks.size()) + " (" +
                      std::to_string(size) + " bytes) failed after " + std::to_string(allocated) +
                      " bytes: " + chunk.error().describe();
      break;
    }
    allocated += size;
    chunks.push_back(std::move(*chunk));
  }
  out["allocated_bytes"] = allocated;
  out["chunks"] = chunks.size();
  if (auto kill = parse_fault_number(options, "stress.kill_step");
      kill && *kill == static_cast<uint64_t>(plan.step)) {
    ::raise(SIGKILL);
  }

  // Every chunk is written and read back: a driver that overcommits or allocates lazily fails
  // here (or is killed here), not later in a deployment.
  static constexpr Pattern kRotation[] = {Pattern::random, Pattern::walking_ones,
                                          Pattern::own_address, Pattern::walking_zeros};
  VerifyReport total;
  uint64_t verified = 0;
  uint64_t chunks_verified = 0;
  for (size_t i = 0; i < chunks.size(); ++i) {
    if (i % plan.verify_every != 0 && i + 1 != chunks.size()) continue;
    ++chunks_verified;
    std::vector<Pattern> patterns;
    if (plan.level == core::Level::quick) {
      patterns = {Pattern::random};
    } else if (plan.level == core::Level::standard) {
      patterns = {kRotation[i % 4]};
    } else {
      patterns = {Pattern::walking_ones, Pattern::walking_zeros, Pattern::own_address,
                  Pattern::random};
    }
    VerifyReport chunk_report;
    std::string failed;
    const uint32_t seed = plan.seed + static_cast<uint32_t>(i);
    for (Pattern pattern : patterns) {
      auto r = runner->check(*chunks[i], pattern, seed);
      if (!r) {
        failed = r.error().describe();
        break;
      }
      chunk_report.merge(*r);
    }
    if (failed.empty() && plan.level == core::Level::full) {
      auto r = runner->moving_inversions(*chunks[i], seed ^ 0x5bd1e995u);
      if (r)
        chunk_report.merge(*r);
      else
        failed = r.error().describe();
    }
    if (!failed.empty()) {
      out["status"] = "error";
      out["reason"] = "chunk " + std::to_string(i) + ": " + failed;
      break;
    }
    if (chunk_report.errors > 0 && total.errors == 0) {
      out["status"] = "fail";
      out["reason"] = "chunk " + std::to_string(i) + " (" + std::to_string(chunks[i]->size()) +
                      " bytes) does not hold data: " + chunk_report.describe();
    }
    total.merge(chunk_report);
    if (chunk_report.errors == 0 && total.errors == 0) verified += chunks[i]->size();
  }
  options.slow_down_as_faulted(core::seconds_since(started));
  // A sample that found nothing wrong stands for the step's whole occupancy; the bytes it wrote
  // and read back are said beside it.
  out["checked_bytes"] = verified;
  out["chunks_verified"] = chunks_verified;
  out["verified_bytes"] =
      plan.verify_every > 1 && total.errors == 0 && out["status"] == "pass" ? allocated : verified;
  out["errors"] = total.errors;
  out["verify"] = total.to_json();

  if (out["status"] == "pass" && !chunks.empty()) {
    backends::Buffer& a = *chunks.front();
    backends::Buffer& b = chunks.size() > 1 ? *chunks[1] : *chunks.front();
    auto bw = measure_device_bandwidth(**device, a, b, plan.level == core::Level::quick ? 2 : 3);
    if (bw) {
      out["bandwidth"] = bw->to_json();
    } else {
      out["bandwidth_error"] = bw.error().describe();
    }
  }
  return out;
}

core::Json run_patterns_unit(const core::DeviceInfo& claimed, const core::Options& options,
                             uint64_t bytes, int passes, uint32_t seed) {
  auto device = backends::open(claimed.id, options);
  if (!device) return error_json(device.error().describe());
  auto runner = PatternRunner::create(**device, options);
  if (!runner) return error_json(runner.error().describe());
  auto buffer = (*device)->allocate(bytes);
  if (!buffer) return error_json(buffer.error().describe());
  auto rows = run_pattern_suite(*runner, **buffer, claimed.id.to_string(), seed, passes);
  return {{"status", "pass"}, {"rows", rows}};
}

}  // namespace gauntlet::stress
