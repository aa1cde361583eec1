// Workgroups: the largest size that dispatches and computes correctly, without and with a
// barrier (starting at the advertised maximum, halving on failure), and the subgroup size seen.
#include <algorithm>
#include <bit>
#include <vector>

#include "conformance/case_util.h"
#include "conformance/run_kernel.h"
#include "kernels/limits_cl.h"
#include "kernels/wg_barrier_comp.h"
#include "kernels/wg_plain_comp.h"

namespace gauntlet::conformance {

namespace {

using core::RowStatus;

constexpr uint32_t kGroups = 4;

// The kernels of limits.cl in C++, for the in-process devices (host, cpu): each group's work-items
// one after the other, the barrier's local array written whole before any is read.
Status wg_plain_host(const backends::HostInvocation& call) {
  const auto p = call.params_as<LimitsParams>();
  const uint32_t size = call.source->workgroup[0];
  auto out = call.buffer<uint32_t>(0);
  auto sub = call.buffer<uint32_t>(1);
  for (uint32_t i = 0; i < std::min(p.n, call.groups[0] * size); ++i) {
    out[i] = (i * 2654435761u) ^ (i % size);
    sub[i] = 0;
  }
  return Status::ok();
}

Status wg_barrier_host(const backends::HostInvocation& call) {
  const auto p = call.params_as<LimitsParams>();
  const uint32_t size = call.source->workgroup[0];
  auto out = call.buffer<uint32_t>(0);
  std::vector<uint32_t> tmp(size);
  for (uint32_t g = 0; g < call.groups[0]; ++g) {
    for (uint32_t lid = 0; lid < size; ++lid) tmp[lid] = (g * size + lid) * 7u + 1u;
    for (uint32_t lid = 0; lid < size && g * size + lid < p.n; ++lid) {
      out[g * size + lid] = tmp[size - 1 - lid];
    }
  }
  return Status::ok();
}

// Empty when `size` computes correctly; otherwise why not. `subgroup` gets the size seen.
std::string try_size(CaseContext& ctx, bool barrier, uint32_t size, bool subgroups,
                     uint32_t& subgroup) {
  const uint32_t n = size * kGroups;
  backends::KernelSource s;
  s.opencl_c = kernels::limits_cl;
  s.params_bytes = sizeof(LimitsParams);
  s.workgroup = {size, 1, 1};
  KernelRun run;
  run.params = to_bytes(std::vector<LimitsParams>{{0, 0, n, 0}});
  run.groups = {kGroups, 1, 1};
  if (barrier) {
    s.name = "wg_barrier";
    s.spirv = kernels::wg_barrier_comp;
    s.host = wg_barrier_host;
    s.buffer_count = 1;
    run.buffers = {Bytes(size_t{n} * 4)};
    run.is_output = {true};
    if (ctx.is_vulkan()) {
      s.constants = {{"TMP", size}};
    } else {
      s.dynamic_local = true;
      run.dynamic_local_bytes = size_t{size} * 4;
    }
  } else {
    s.name = "wg_plain";
    s.spirv = kernels::wg_plain_comp;
    s.host = wg_plain_host;
    s.buffer_count = 2;
    run.buffers = {Bytes(size_t{n} * 4), Bytes(size_t{n} * 4)};
    run.is_output = {true, true};
    if (subgroups && ctx.is_opencl()) s.build_options = "-cl-std=CL3.0 -DHAVE_SUBGROUPS";
  }
  if (Status st = build_and_run(ctx.device, s, run); !st) return st.error().describe();
  const auto out = from_bytes<uint32_t>(run.buffers[0]);
  for (uint32_t i = 0; i < n; ++i) {
    const uint32_t lid = i % size;
    const uint32_t want =
        barrier ? ((i - lid) + (size - 1 - lid)) * 7u + 1u : (i * 2654435761u) ^ lid;
    if (out[i] != want) {
      return "index " + std::to_string(i) + ": expected " + std::to_string(want) + ", actual " +
             std::to_string(out[i]);
    }
  }
  if (!barrier) subgroup = from_bytes<uint32_t>(run.buffers[1])[0];
  return {};
}

core::Row largest(CaseContext& ctx, const std::string& id, bool barrier, uint32_t& subgroup) {
  uint64_t max = ctx.claimed.max_work_group_size;
  if (ctx.claimed.max_work_item_sizes[0] > 0)
    max = std::min(max, ctx.claimed.max_work_item_sizes[0]);
  if (max == 0) max = 64;
  if (barrier && !ctx.is_vulkan() && ctx.claimed.local_mem_size > 0) {
    max = std::min<uint64_t>(max, ctx.claimed.local_mem_size / 4);
  }
  const bool subgroups = ctx.claimed.features.subgroups;
  auto size = static_cast<uint32_t>(max);
  std::string first_failure;
  while (size >= 1) {
    std::string why = try_size(ctx, barrier, size, subgroups, subgroup);
    if (why.empty()) break;
    if (!barrier && subgroups && ctx.is_opencl() && first_failure.empty()) {
      // A build without subgroup support may be the trouble; retry once without it.
      if (try_size(ctx, barrier, size, false, subgroup).empty()) break;
    }
    if (first_failure.empty()) first_failure = "size " + std::to_string(size) + ": " + why;
    size = size == 1 ? 0 : std::bit_floor(size - 1);
  }
  core::Row row = pass_row(ctx, id);
  if (size != max) {
    row = row_with(ctx, id, RowStatus::fail,
                   "the advertised maximum workgroup size " + std::to_string(max) + " fails (" +
                       first_failure + "); the largest that works is " + std::to_string(size));
  }
  row.metrics["largest"] = size;
  row.metrics["advertised"] = max;
  if (!barrier) row.metrics["subgroup_size"] = subgroup;
  return row;
}

std::vector<core::Row> run_workgroup(CaseContext& ctx) {
  std::vector<core::Row> rows;
  uint32_t subgroup = 0;
  if (ctx.wants("conform.workgroup.plain")) {
    rows.push_back(largest(ctx, "conform.workgroup.plain", false, subgroup));
  }
  if (ctx.wants("conform.workgroup.barrier")) {
    rows.push_back(largest(ctx, "conform.workgroup.barrier", true, subgroup));
  }
  return rows;
}

}  // namespace

Family workgroup_family() {
  return {"workgroup",
          {{"conform.workgroup.plain", {"workgroup"}, ErrorBound::exact()},
           {"conform.workgroup.barrier", {"workgroup"}, ErrorBound::exact()}},
          run_workgroup};
}

}  // namespace gauntlet::conformance
