#include "stress/kernels.h"

#include <algorithm>

#include "build_options.h"
#include "kernels/stress_bandwidth_cl.h"
#include "kernels/stress_fill_cl.h"
#include "kernels/stress_invert_cl.h"
#include "stress/across_cores.h"
#ifdef GAUNTLET_HAVE_SPIRV
#include "kernels/stress_copy_comp.h"
#include "kernels/stress_fill_comp.h"
#include "kernels/stress_invert_comp.h"
#include "kernels/stress_read_comp.h"
#include "kernels/stress_write_comp.h"
#endif

namespace gauntlet::stress {

namespace {

using backends::HostInvocation;
using backends::KernelSource;
using core::Status;

uint64_t offset_of(uint32_t lo, uint32_t hi) { return uint64_t{lo} | (uint64_t{hi} << 32); }

Status fill_host(const HostInvocation& call) {
  auto p = call.params_as<FillParams>();
  auto data = call.buffer<uint32_t>(0);
  const uint64_t offset = offset_of(p.offset_lo, p.offset_hi);
  across_cores(p.count, cores_for(p.count), [&](uint64_t begin, uint64_t end, unsigned) {
    with_pattern(static_cast<Pattern>(p.mode), [&](auto pattern) {
      for (uint64_t i = begin; i < end; ++i) {
        data[offset + i] = pattern_word(pattern, p.seed, offset + i) ^ p.mask;
      }
    });
  });
  return Status::ok();
}

Status invert_host(const HostInvocation& call) {
  auto p = call.params_as<InvertParams>();
  auto data = call.buffer<uint32_t>(0);
  const uint64_t offset = offset_of(p.offset_lo, p.offset_hi);
  for (uint64_t i = 0; i < p.count; ++i) data[offset + i] = ~data[offset + i];
  return Status::ok();
}

Status copy_host(const HostInvocation& call) {
  auto p = call.params_as<BwParams>();
  std::copy_n(call.buffer<const uint32_t>(0).data(), uint64_t{p.count} * 4,
              call.buffer<uint32_t>(1).data());
  return Status::ok();
}

Status read_host(const HostInvocation& call) {
  auto p = call.params_as<BwParams>();
  auto src = call.buffer<const uint32_t>(0);
  auto out = call.buffer<uint32_t>(1);
  const uint64_t threads = uint64_t{call.groups[0]} * kWorkgroup;
  for (uint64_t t = 0; t < threads && t < out.size(); ++t) {
    const uint64_t per = p.per_invocation;
    const uint64_t begin = per == 0 ? t : t * per;
    const uint64_t end = per == 0 ? p.count : std::min<uint64_t>(begin + per, p.count);
    const uint64_t step = per == 0 ? threads : 1;
    uint32_t acc = 0;
    for (uint64_t i = begin; i < end; i += step) {
      for (uint64_t lane = 0; lane < 4; ++lane) acc ^= src[4 * i + lane];
    }
    out[t] = acc;
  }
  return Status::ok();
}

Status write_host(const HostInvocation& call) {
  auto p = call.params_as<BwParams>();
  auto dst = call.buffer<uint32_t>(0);
  for (uint32_t i = 0; i < p.count; ++i) {
    for (uint32_t lane = 0; lane < 4; ++lane) dst[4 * uint64_t{i} + lane] = i ^ 0x5a5a5a5au;
  }
  return Status::ok();
}

// Builds without Vulkan have no SPIR-V to embed.
#ifdef GAUNTLET_HAVE_SPIRV
#define STRESS_SPIRV(symbol) kernels::symbol
#else
#define STRESS_SPIRV(symbol) std::span<const uint32_t>()
#endif

KernelSource make(const char* name, std::string_view cl, std::span<const uint32_t> spirv,
                  uint32_t buffers, uint32_t params_bytes, backends::HostKernelFn host) {
  KernelSource source;
  source.name = name;
  source.opencl_c = cl;
  source.spirv = spirv;
  source.host = std::move(host);
  source.workgroup = {kWorkgroup, 1, 1};
  source.buffer_count = buffers;
  source.params_bytes = params_bytes;
  return source;
}

}  // namespace

const char* to_string(Pattern pattern) {
  switch (pattern) {
    case Pattern::walking_ones:
      return "walking_ones";
    case Pattern::walking_zeros:
      return "walking_zeros";
    case Pattern::own_address:
      return "own_address";
    case Pattern::random:
      return "random";
  }
  return "unknown";
}

uint32_t groups_for(uint64_t count) {
  return static_cast<uint32_t>(
      std::clamp<uint64_t>((count + kWorkgroup - 1) / kWorkgroup, 1, kMaxGroups));
}

std::array<BwLaunch, 4> bandwidth_launches(uint64_t count) {
  const uint32_t all = groups_for(count);
  const auto vectors = static_cast<uint32_t>(count);
  auto strided = [&](uint32_t groups) { return BwLaunch{std::min(all, groups), {vectors, 0}}; };
  auto runs = [&](uint32_t groups) {
    const uint64_t invocations = uint64_t{std::min(all, groups)} * kWorkgroup;
    const auto run = static_cast<uint32_t>((count + invocations - 1) / invocations);
    return BwLaunch{std::min(all, groups), {vectors, run}};
  };
  return {strided(all), strided(1024), runs(64), runs(256)};
}

KernelSource fill_kernel() {
  return make("stress_fill", kernels::stress_fill_cl, STRESS_SPIRV(stress_fill_comp), 1,
              sizeof(FillParams), fill_host);
}

KernelSource invert_kernel() {
  return make("stress_invert", kernels::stress_invert_cl, STRESS_SPIRV(stress_invert_comp), 1,
              sizeof(InvertParams), invert_host);
}

KernelSource copy_kernel() {
  return make("stress_copy", kernels::stress_bandwidth_cl, STRESS_SPIRV(stress_copy_comp), 2,
              sizeof(BwParams), copy_host);
}

KernelSource read_kernel() {
  return make("stress_read", kernels::stress_bandwidth_cl, STRESS_SPIRV(stress_read_comp), 2,
              sizeof(BwParams), read_host);
}

KernelSource write_kernel() {
  return make("stress_write", kernels::stress_bandwidth_cl, STRESS_SPIRV(stress_write_comp), 1,
              sizeof(BwParams), write_host);
}

}  // namespace gauntlet::stress
