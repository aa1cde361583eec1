// int8 dot products of four packed values (plain, and with the integer dot product extension
// where it is claimed), and GGUF block dequantization of q8_0 and q4_0, bit-exact against the host.
#include <cstring>

#include "conformance/case_util.h"
#include "conformance/compare.h"
#include "conformance/run_kernel.h"
#include "core/half.h"
#include "core/rng.h"
#include "kernels/dequant_comp.h"
#include "kernels/dot4_comp.h"
#include "kernels/quant_cl.h"

namespace gauntlet::conformance {

namespace {

using core::RowStatus;

Status dot4_host(const backends::HostInvocation& call) {
  const auto p = call.params_as<EwParams>();
  auto a = call.buffer<const uint32_t>(0);
  auto b = call.buffer<const uint32_t>(1);
  auto acc = call.buffer<const int32_t>(2);
  auto out = call.buffer<int32_t>(3);
  for (uint32_t i = 0; i < p.n; ++i) {
    int32_t r = acc[i];
    for (int e = 0; e < 4; ++e) {
      r += static_cast<int8_t>(a[i] >> (8 * e)) * static_cast<int8_t>(b[i] >> (8 * e));
    }
    out[i] = r;
  }
  return Status::ok();
}

Status dequant_host(const backends::HostInvocation& call) {
  const auto p = call.params_as<EwParams>();
  auto q = call.buffer<const uint8_t>(0);
  auto out = call.buffer<float>(1);
  const size_t block = p.op == 0 ? 34 : 18;
  for (uint32_t i = 0; i < p.n; ++i) {
    const uint8_t* base = q.data() + (i / 32) * block;
    const uint32_t j = i % 32;
    const float d = core::f16_to_f32(static_cast<uint16_t>(base[0] | (base[1] << 8)));
    if (p.op == 0) {
      out[i] = d * static_cast<float>(static_cast<int8_t>(base[2 + j]));
    } else {
      const uint8_t byte = base[2 + j % 16];
      const int v = j < 16 ? (byte & 15) : (byte >> 4);
      out[i] = d * static_cast<float>(v - 8);
    }
  }
  return Status::ok();
}

backends::KernelSource dot4_source(const CaseContext& ctx, bool with_extension) {
  backends::KernelSource s;
  s.name = "dot4";
  s.opencl_c = kernels::quant_cl;
  s.spirv = kernels::dot4_comp;
  s.host = dot4_host;
  s.buffer_count = 4;
  s.params_bytes = sizeof(EwParams);
  if (with_extension && ctx.is_opencl()) s.build_options = "-cl-std=CL3.0 -DHAVE_DOT";
  return s;
}

core::Row run_dot4(CaseContext& ctx, const std::string& id, bool with_extension) {
  if (with_extension) {
    if (!ctx.claimed.features.integer_dot_product) {
      return row_with(ctx, id, RowStatus::unsupported,
                      ctx.is_vulkan() ? "shaderIntegerDotProduct not claimed"
                                      : "cl_khr_integer_dot_product not claimed");
    }
    if (ctx.is_vulkan()) {
      return row_with(ctx, id, RowStatus::skipped,
                      "integer dot product is claimed, but this build has no Vulkan kernel that "
                      "uses it");
    }
  }
  auto source = dot4_source(ctx, with_extension);
  auto dev = ctx.device.build(source);
  if (!dev) return error_row(ctx, id, dev.error());
  auto host = ctx.host.build(source);
  if (!host) return error_row(ctx, id, host.error());
  const uint32_t n = static_cast<uint32_t>(ctx.elements());
  for (unsigned rep = 0; rep < ctx.seed_count(); ++rep) {
    const uint64_t seed = case_seed(ctx, id, rep);
    core::Rng rng(seed);
    std::vector<uint32_t> a(n), b(n);
    std::vector<int32_t> acc(n);
    for (uint32_t i = 0; i < n; ++i) {
      a[i] = rng.next_u32();
      b[i] = rng.next_u32();
      acc[i] = static_cast<int32_t>(rng.next_u32() % 2001) - 1000;
    }
    // The extremes: -128 * -128 four times.
    a[0] = b[0] = 0x80808080u;
    KernelRun run;
    run.buffers = {to_bytes(a), to_bytes(b), to_bytes(acc), Bytes(size_t{n} * 4)};
    run.is_output = {false, false, false, true};
    run.params = to_bytes(std::vector<EwParams>{{n, with_extension ? 1u : 0u, 1, 0}});
    run.groups = {(n + 63) / 64, 1, 1};
    KernelRun ref = run;
    if (Status s = run_kernel(ctx.host, **host, ref); !s) return error_row(ctx, id, s.error());
    if (Status s = run_kernel(ctx.device, **dev, run); !s) return error_row(ctx, id, s.error());
    const auto want = from_bytes<int32_t>(ref.buffers[3]);
    const auto got = from_bytes<int32_t>(run.buffers[3]);
    for (uint32_t i = 0; i < n; ++i) {
      if (want[i] != got[i]) {
        char packed[64];
        std::snprintf(packed, sizeof packed, "0x%08x", a[i]);
        Mismatch m{i,   {{"a", packed}}, std::to_string(want[i]), std::to_string(got[i]), "exact",
                   seed};
        std::snprintf(packed, sizeof packed, "0x%08x", b[i]);
        m.inputs.emplace_back("b", packed);
        m.inputs.emplace_back("acc", std::to_string(acc[i]));
        return row_with(ctx, id, RowStatus::fail, describe(m));
      }
    }
  }
  core::Row row = pass_row(ctx, id);
  row.metrics["elements"] = n;
  return row;
}

core::Row run_dequant(CaseContext& ctx, const backends::Kernel& dev, const backends::Kernel& host,
                      uint32_t op, const std::string& id) {
  const size_t block = op == 0 ? 34 : 18;
  const uint32_t blocks = static_cast<uint32_t>(std::max<size_t>(ctx.elements() / 32, 4));
  const uint32_t n = blocks * 32;
  for (unsigned rep = 0; rep < ctx.seed_count(); ++rep) {
    const uint64_t seed = case_seed(ctx, id, rep);
    core::Rng rng(seed);
    std::vector<uint8_t> q((blocks * block + 3) / 4 * 4);
    for (uint32_t b = 0; b < blocks; ++b) {
      uint8_t* base = q.data() + b * block;
      // Scales as an engine writes them: normal halves, either sign, some tiny, some large.
      const float scale =
          (rng.next_u32() & 1 ? -1.0f : 1.0f) *
          std::ldexp(rng.uniform(1.0f, 2.0f), static_cast<int>(rng.next_u32() % 24) - 14);
      const uint16_t d = core::f32_to_f16(scale);
      base[0] = static_cast<uint8_t>(d & 0xff);
      base[1] = static_cast<uint8_t>(d >> 8);
      for (size_t j = 2; j < block; ++j) base[j] = static_cast<uint8_t>(rng.next_u32());
    }
    KernelRun run;
    run.buffers = {to_bytes(q), Bytes(size_t{n} * 4)};
    run.is_output = {false, true};
    run.params = to_bytes(std::vector<EwParams>{{n, op, 1, 0}});
    run.groups = {(n + 63) / 64, 1, 1};
    KernelRun ref = run;
    if (Status s = run_kernel(ctx.host, host, ref); !s) return error_row(ctx, id, s.error());
    if (Status s = run_kernel(ctx.device, dev, run); !s) return error_row(ctx, id, s.error());
    const auto want = from_bytes<float>(ref.buffers[1]);
    const auto got = from_bytes<float>(run.buffers[1]);
    for (uint32_t i = 0; i < n; ++i) {
      if (std::bit_cast<uint32_t>(want[i]) != std::bit_cast<uint32_t>(got[i])) {
        const uint8_t* base = q.data() + (i / 32) * block;
        const uint16_t d = static_cast<uint16_t>(base[0] | (base[1] << 8));
        const uint32_t j = i % 32;
        const unsigned byte = op == 0 ? base[2 + j] : base[2 + j % 16];
        Mismatch m{i,
                   {{"block", std::to_string(i / 32)},
                    {"d", hex_f16(d)},
                    {"q byte", std::to_string(byte)}},
                   hex_float(want[i]),
                   hex_float(got[i]),
                   "bit-exact",
                   seed};
        return row_with(ctx, id, RowStatus::fail, describe(m));
      }
    }
  }
  core::Row row = pass_row(ctx, id);
  row.metrics["blocks"] = blocks;
  return row;
}

std::vector<core::Row> run_quant(CaseContext& ctx) {
  std::vector<core::Row> rows;
  if (ctx.wants("conform.int8.dot4")) rows.push_back(run_dot4(ctx, "conform.int8.dot4", false));
  if (ctx.wants("conform.int8.dot4_ext")) {
    rows.push_back(run_dot4(ctx, "conform.int8.dot4_ext", true));
  }
  const char* names[] = {"conform.gguf.q8_0", "conform.gguf.q4_0"};
  if (!ctx.wants(names[0]) && !ctx.wants(names[1])) return rows;
  backends::KernelSource s;
  s.name = "dequant";
  s.opencl_c = kernels::quant_cl;
  s.spirv = kernels::dequant_comp;
  s.host = dequant_host;
  s.buffer_count = 2;
  s.params_bytes = sizeof(EwParams);
  auto dev = ctx.device.build(s);
  auto host = ctx.host.build(s);
  for (uint32_t op = 0; op < 2; ++op) {
    if (!ctx.wants(names[op])) continue;
    if (!dev)
      rows.push_back(error_row(ctx, names[op], dev.error()));
    else if (!host)
      rows.push_back(error_row(ctx, names[op], host.error()));
    else
      rows.push_back(run_dequant(ctx, **dev, **host, op, names[op]));
  }
  return rows;
}

}  // namespace

Family quant_family() {
  return {"quant",
          {{"conform.int8.dot4", {"int8.dot"}, "exact"},
           {"conform.int8.dot4_ext", {"int8.dot"}, "exact"},
           {"conform.gguf.q8_0", {"q8_0"}, "bit-exact"},
           {"conform.gguf.q4_0", {"q4_0"}, "bit-exact"}},
          run_quant};
}

}  // namespace gauntlet::conformance
