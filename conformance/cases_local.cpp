// Local (shared) memory: kernels that use 25, 50, 75 and 100 % of the advertised limit, each
// byte written by one work-item and read back by another; a request one byte over the limit
// (and 41216 bytes, field case 2, where the limit is below that) must be refused cleanly; where
// 100 % fails, a bisection finds the largest size that works. OpenCL: a __local argument and a
// static array sized by a define; Vulkan: a shared array sized by a specialization constant.
//
// A size within the advertised limit that the driver refuses cleanly is over-advertising (NVIDIA's
// OpenCL refuses a __local argument of exactly CL_DEVICE_LOCAL_MEM_SIZE): a finding, reported as
// unsupported with the figure that works, which the planner then uses. Only a wrong result
// within the limit fails. The test fault conform.local.over_advertise=N refuses the top N bytes.
#include <algorithm>
#include <cstdlib>
#include <optional>

#include "conformance/case_util.h"
#include "conformance/run_kernel.h"
#include "kernels/limits_cl.h"
#include "kernels/local_shared_comp.h"

namespace gauntlet::conformance {

namespace {

using core::RowStatus;

constexpr uint32_t kGroup = 64;

std::vector<uint32_t> expected_sums(bool vulkan, uint64_t bytes, uint32_t seed, uint32_t group) {
  std::vector<uint32_t> sums(group, 0);
  if (vulkan) {
    const uint64_t words = (bytes + 3) / 4;
    for (uint32_t lid = 0; lid < group; ++lid) {
      for (uint64_t j = (lid + 1) % group; j < words; j += group) {
        const uint32_t w = (static_cast<uint32_t>(j) * 2654435761u + seed) >> 8;
        sums[lid] += (w & 0xffu) * (1u + (j & 7u)) + (w >> 20);
      }
    }
  } else {
    for (uint32_t lid = 0; lid < group; ++lid) {
      for (uint64_t j = (lid + 1) % group; j < bytes; j += group) {
        const uint32_t b = (static_cast<uint32_t>(j) * 2654435761u + seed) >> 24;
        sums[lid] += b * (1u + (j & 7u));
      }
    }
  }
  return sums;
}

struct Form {
  std::string name;  // "opencl_arg", "opencl_static", "vulkan_shared"
  std::string limit_name;
};

// Runs one size in one form: ok, or the error (a build or dispatch refusal), or a wrong sum.
struct Attempt {
  enum { ok, refused, wrong } kind = ok;
  std::string detail;
};

// The test fault's refusal of the top N advertised bytes, as a driver that over-advertises gives.
std::optional<Attempt> injected_refusal(const CaseContext& ctx, uint64_t bytes) {
  const std::string fault = ctx.fault("conform.local.over_advertise");
  if (fault.empty()) return std::nullopt;
  // A value that is not a byte count refuses nothing (a test switch, never a crash).
  const uint64_t over = std::strtoull(fault.c_str(), nullptr, 10);
  const uint64_t limit = ctx.claimed.local_mem_size;
  if (bytes + over <= limit || bytes > limit) return std::nullopt;
  return Attempt{Attempt::refused,
                 "CL_OUT_OF_RESOURCES (fault conform.local.over_advertise=" + fault + ")"};
}

Attempt attempt(CaseContext& ctx, const Form& form, uint64_t bytes, uint32_t group) {
  if (auto refused = injected_refusal(ctx, bytes)) return *refused;
  const uint32_t seed = static_cast<uint32_t>(case_seed(ctx, "conform.local", 0));
  backends::KernelSource s;
  s.opencl_c = kernels::limits_cl;
  s.spirv = kernels::local_shared_comp;
  s.buffer_count = 1;
  s.params_bytes = sizeof(LimitsParams);
  s.workgroup = {group, 1, 1};
  KernelRun run;
  run.buffers = {Bytes(size_t{group} * 4)};
  run.is_output = {true};
  run.params = to_bytes(std::vector<LimitsParams>{{static_cast<uint32_t>(bytes), seed, 0, 0}});
  // The size under test is the kernel's whole local memory: the driver, not a count padded by
  // its own bookkeeping, decides whether a size within the limit runs.
  run.declared_local_bytes = bytes;
  if (form.name == "opencl_arg") {
    s.name = "local_arg";
    s.dynamic_local = true;
    run.dynamic_local_bytes = bytes;
  } else if (form.name == "opencl_static") {
    s.name = "local_static";
    s.constants = {{"LOCAL_BYTES", static_cast<int64_t>(bytes)}};
  } else {
    s.name = "local_shared";
    s.constants = {{"SHARED_WORDS", static_cast<int64_t>((bytes + 3) / 4)}};
  }
  if (Status st = build_and_run(ctx.device, s, run); !st) {
    const bool guard = st.error().message.rfind("guard region", 0) == 0;
    return {guard ? Attempt::wrong : Attempt::refused, st.error().describe()};
  }
  const auto got = from_bytes<uint32_t>(run.buffers[0]);
  const auto want = expected_sums(ctx.is_vulkan(), bytes, seed, group);
  for (uint32_t i = 0; i < group; ++i) {
    if (got[i] != want[i]) {
      return {Attempt::wrong, "work-item " + std::to_string(i) + ": checksum expected " +
                                  std::to_string(want[i]) + ", actual " + std::to_string(got[i]) +
                                  "; seed " + std::to_string(seed)};
    }
  }
  return {};
}

core::Row size_row(CaseContext& ctx, const Form& form, const std::string& id, uint64_t bytes,
                   uint64_t limit, uint32_t group) {
  Attempt a = attempt(ctx, form, bytes, group);
  core::Row row = pass_row(ctx, id);
  if (a.kind == Attempt::refused) {
    row = row_with(ctx, id, RowStatus::unsupported,
                   "local memory " + std::to_string(bytes) + " <= " + std::to_string(limit) + " (" +
                       form.limit_name + ") was refused, the driver over-advertises: " + a.detail);
  } else if (a.kind == Attempt::wrong) {
    row = row_with(ctx, id, RowStatus::fail,
                   "local memory " + std::to_string(bytes) + " of " + std::to_string(limit) + " (" +
                       form.limit_name + "): " + a.detail);
  }
  row.metrics["bytes"] = bytes;
  row.metrics["limit"] = limit;
  row.metrics["form"] = form.name;
  return row;
}

core::Row over_row(CaseContext& ctx, const Form& form, const std::string& id, uint64_t bytes,
                   uint64_t limit, uint32_t group) {
  Attempt a = attempt(ctx, form, bytes, group);
  const std::string what = "local memory " + std::to_string(bytes) + " > " + std::to_string(limit) +
                           " (" + form.limit_name + ")";
  core::Row row = a.kind == Attempt::refused
                      ? row_with(ctx, id, RowStatus::unsupported, what + ": refused: " + a.detail)
                      : row_with(ctx, id, RowStatus::fail,
                                 what + " was accepted and ran instead of being refused" +
                                     (a.detail.empty() ? "" : ": " + a.detail));
  row.metrics["bytes"] = bytes;
  row.metrics["limit"] = limit;
  row.metrics["form"] = form.name;
  row.metrics["refused"] = a.kind == Attempt::refused;
  return row;
}

std::vector<core::Row> run_local(CaseContext& ctx) {
  std::vector<core::Row> rows;
  const uint64_t limit = ctx.claimed.local_mem_size;
  const uint32_t group =
      static_cast<uint32_t>(std::clamp<uint64_t>(ctx.claimed.max_work_group_size, 1, kGroup));
  std::vector<Form> forms;
  if (ctx.is_vulkan()) {
    forms = {{"vulkan_shared", "maxComputeSharedMemorySize"}};
  } else {
    forms = {{"opencl_arg", "CL_DEVICE_LOCAL_MEM_SIZE"},
             {"opencl_static", "CL_DEVICE_LOCAL_MEM_SIZE"}};
  }
  if (limit == 0) {
    if (ctx.wants("conform.local.limit")) {
      rows.push_back(row_with(ctx, "conform.local.limit", RowStatus::unsupported,
                              "the device advertises no local memory"));
    }
    return rows;
  }
  for (const Form& form : forms) {
    const std::string prefix = "conform.local." + form.name + ".";
    uint64_t largest_ok = 0;
    bool full_ok = false;
    bool wrong = false;
    for (int pct : {25, 50, 75, 100}) {
      const std::string id = prefix + std::to_string(pct) + "pct";
      if (!ctx.wants(id)) continue;
      // Vulkan sizes are in 32-bit words; round down to stay within the limit.
      uint64_t bytes = limit * pct / 100;
      if (ctx.is_vulkan()) bytes = bytes / 4 * 4;
      rows.push_back(size_row(ctx, form, id, bytes, limit, group));
      if (rows.back().status == RowStatus::pass) {
        largest_ok = std::max(largest_ok, bytes);
        full_ok = full_ok || pct == 100;
      }
      wrong = wrong || rows.back().status == RowStatus::fail;
    }
    if (!full_ok && largest_ok > 0 && ctx.wants(prefix + "largest")) {
      uint64_t lo = largest_ok, hi = limit;  // lo works, hi does not
      const uint64_t step = ctx.is_vulkan() ? 4 : 1;
      while (hi - lo > std::max<uint64_t>(step, limit / 256)) {
        const uint64_t mid = (lo + (hi - lo) / 2) / step * step;
        if (attempt(ctx, form, mid, group).kind == Attempt::ok)
          lo = mid;
        else
          hi = mid;
      }
      // Refusals alone are a finding (the figure that works is planned against); a wrong
      // result within the limit is a failure of the device.
      core::Row row =
          row_with(ctx, prefix + "largest", wrong ? RowStatus::fail : RowStatus::unsupported,
                   "the advertised " + std::to_string(limit) + " bytes (" + form.limit_name + ") " +
                       (wrong ? "fail" : "are over-advertised") +
                       "; the largest that works is about " + std::to_string(lo) + " bytes");
      row.metrics["bytes"] = lo;
      row.metrics["over_advertised_bytes"] = limit - lo;
      row.metrics["limit"] = limit;
      row.metrics["form"] = form.name;
      rows.push_back(row);
    }
    if (ctx.wants(prefix + "over_by_one")) {
      rows.push_back(over_row(ctx, form, prefix + "over_by_one", limit + 1, limit, group));
    }
    if (limit < 41216 && ctx.wants(prefix + "41216")) {
      rows.push_back(over_row(ctx, form, prefix + "41216", 41216, limit, group));
    }
  }
  return rows;
}

}  // namespace

Family local_memory_family() {
  Family family{"local_memory", {}, run_local};
  for (std::string form : {"opencl_arg", "opencl_static", "vulkan_shared"}) {
    for (std::string c : {"25pct", "50pct", "75pct", "100pct", "largest", "over_by_one", "41216"}) {
      family.cases.push_back(
          {"conform.local." + form + "." + c, {"local_memory"}, ErrorBound::exact()});
    }
  }
  family.cases.push_back({"conform.local.limit", {"local_memory"}, ErrorBound{}});
  return family;
}

}  // namespace gauntlet::conformance
