// Conversions f32 <-> f16 and f32 <-> bf16: the edge values (signed zeros, subnormals, infinities,
// NaN, the largest finite value, ties to even) plus random values one way, every 16-bit pattern
// the other way. Judged bit-exactly against the host where the API defines the rounding (OpenCL
// vstore_half_rte / vload_half; bf16 in integer code on both APIs). Vulkan's packHalf2x16 leaves
// rounding and subnormals to the implementation, so there round-toward-zero and flushed
// subnormals are accepted too, and the row says which it saw. NaN must stay NaN (any payload).
#include <cmath>
#include <cstring>
#include <limits>

#include "conformance/case_util.h"
#include "conformance/compare.h"
#include "conformance/run_kernel.h"
#include "core/half.h"
#include "core/rng.h"
#include "kernels/cvt_comp.h"
#include "kernels/dtype_cl.h"

namespace gauntlet::conformance {

namespace {

using core::RowStatus;

enum CvtOp : uint32_t { f32_to_f16 = 0, f16_to_f32 = 1, f32_to_bf16 = 2, bf16_to_f32 = 3 };

Status cvt_host(const backends::HostInvocation& call) {
  const auto p = call.params_as<EwParams>();
  auto in_f = call.buffer<const float>(0);
  auto in_h = call.buffer<const uint16_t>(1);
  auto out_h = call.buffer<uint16_t>(2);
  auto out_f = call.buffer<float>(3);
  for (uint32_t i = 0; i < p.n; ++i) {
    switch (p.op) {
      case f32_to_f16:
        out_h[i] = core::f32_to_f16(in_f[i]);
        break;
      case f16_to_f32:
        out_f[i] = core::f16_to_f32(in_h[i]);
        break;
      case f32_to_bf16:
        out_h[i] = core::f32_to_bf16(in_f[i]);
        break;
      default:
        out_f[i] = core::bf16_to_f32(in_h[i]);
    }
  }
  return Status::ok();
}

uint16_t f32_to_f16_rtz(float value) {
  const uint32_t bits = std::bit_cast<uint32_t>(value);
  const uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
  const float mag = std::fabs(value);
  if (std::isnan(value)) return static_cast<uint16_t>(sign | 0x7e00u);
  if (std::isinf(value)) return static_cast<uint16_t>(sign | 0x7c00u);
  if (mag >= 65504.0f) return static_cast<uint16_t>(sign | 0x7bffu);
  // Truncate: the largest half not above |value|.
  uint16_t h = core::f32_to_f16(mag);
  if (core::f16_to_f32(h) > mag) --h;
  return static_cast<uint16_t>(sign | h);
}

std::vector<float> f32_inputs(const CaseContext& ctx, uint64_t seed, bool bf16) {
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<float> v = {0.0f,
                          -0.0f,
                          inf,
                          -inf,
                          std::numeric_limits<float>::quiet_NaN(),
                          1.0f,
                          -1.0f,
                          std::numeric_limits<float>::denorm_min(),
                          -std::numeric_limits<float>::min()};
  if (!bf16) {
    const float edges[] = {
        65504.0f,
        65519.99f,
        65520.0f,
        -65520.0f,
        1e6f,
        std::ldexp(1.0f, -14),
        std::ldexp(1.0f, -24),
        std::ldexp(1.0f, -25),
        std::ldexp(3.0f, -26),
        std::ldexp(1.0f, -26),
        std::ldexp(1023.0f, -24),
        1.0f + std::ldexp(1.0f, -11),  // tie: rounds down to even 1.0
        1.0f + std::ldexp(3.0f, -11),  // tie: rounds up to even
        -(1.0f + std::ldexp(1.0f, -11)),
        std::ldexp(1.0f, -24) * 1.5f,  // tie between subnormals 1 and 2: to 2
        std::ldexp(1.0f, -24) * 2.5f,  // tie between 2 and 3: to 2
    };
    v.insert(v.end(), std::begin(edges), std::end(edges));
  } else {
    const float edges[] = {
        std::numeric_limits<float>::max(),
        std::bit_cast<float>(0x7f7fffffu),  // rounds to inf
        std::bit_cast<float>(0x3f808000u),  // tie: down to even
        std::bit_cast<float>(0x3f818000u),  // tie: up to even
        std::bit_cast<float>(0x3f808001u),  // above the tie: up
        std::bit_cast<float>(0x00008000u),  // subnormal tie
        std::bit_cast<float>(0x7f800001u),  // signalling NaN: quieted
    };
    v.insert(v.end(), std::begin(edges), std::end(edges));
  }
  core::Rng rng(seed);
  const size_t n = std::max<size_t>(ctx.elements(), 64);
  while (v.size() < n) {
    const float sign = (rng.next_u32() & 1) ? -1.0f : 1.0f;
    v.push_back(bf16 ? std::bit_cast<float>(rng.next_u32())
                     : sign * std::ldexp(rng.uniform(1.0f, 2.0f),
                                         static_cast<int>(rng.next_u32() % 44) - 28));
  }
  v.resize((v.size() + 63) / 64 * 64, 1.0f);
  return v;
}

bool is_f16_nan(uint16_t h) { return (h & 0x7fff) > 0x7c00; }
bool is_bf16_nan(uint16_t h) { return (h & 0x7fff) > 0x7f80; }

struct Judged {
  bool ok = true;
  std::string how;  // "rtz", "flushed" when an alternative was taken
};

Judged judge(const CaseContext& ctx, uint32_t op, float in_f, uint16_t in_h, uint16_t want_h,
             uint16_t got_h, float want_f, float got_f) {
  switch (op) {
    case f32_to_f16:
      if (want_h == got_h || (is_f16_nan(want_h) && is_f16_nan(got_h))) return {};
      if (ctx.is_vulkan()) {
        if (got_h == f32_to_f16_rtz(in_f)) return {true, "rtz"};
        if ((want_h & 0x7c00) == 0 && (got_h & 0x7fff) == 0 && (got_h >> 15) == (want_h >> 15)) {
          return {true, "flushed"};
        }
      }
      return {false, {}};
    case f16_to_f32:
      if (std::bit_cast<uint32_t>(want_f) == std::bit_cast<uint32_t>(got_f)) return {};
      if (std::isnan(want_f) && std::isnan(got_f)) return {};
      if (ctx.is_vulkan() && (in_h & 0x7c00) == 0 && got_f == 0.0f &&
          std::signbit(got_f) == std::signbit(want_f)) {
        return {true, "flushed"};
      }
      return {false, {}};
    case f32_to_bf16:
      return {want_h == got_h || (is_bf16_nan(want_h) && is_bf16_nan(got_h) && ctx.is_vulkan()),
              {}};
    default:
      return {std::bit_cast<uint32_t>(want_f) == std::bit_cast<uint32_t>(got_f), {}};
  }
}

core::Row run_cvt(CaseContext& ctx, const backends::Kernel& dev, const backends::Kernel& host,
                  uint32_t op, const std::string& id) {
  const bool from_f32 = op == f32_to_f16 || op == f32_to_bf16;
  const bool bf16 = op == f32_to_bf16 || op == bf16_to_f32;
  core::Row row = pass_row(ctx, id);
  size_t rtz = 0, flushed = 0, n = 0;
  const unsigned reps = from_f32 ? ctx.seed_count() : 1;  // the 16-bit side is exhaustive
  for (unsigned rep = 0; rep < reps; ++rep) {
    const uint64_t seed = case_seed(ctx, id, rep);
    std::vector<float> in_f;
    std::vector<uint16_t> in_h;
    if (from_f32) {
      in_f = f32_inputs(ctx, seed, bf16);
      in_h.assign(in_f.size(), 0);
    } else {
      in_h.resize(65536);
      for (size_t i = 0; i < in_h.size(); ++i) in_h[i] = static_cast<uint16_t>(i);
      in_f.assign(in_h.size(), 0.0f);
    }
    n = in_f.size();
    KernelRun run;
    run.buffers = {to_bytes(in_f), to_bytes(in_h), Bytes(n * 2), Bytes(n * 4)};
    run.is_output = {false, false, true, true};
    run.params =
        to_bytes(std::vector<EwParams>{{static_cast<uint32_t>(n), op, 1, fault_code(ctx, id)}});
    const uint32_t items = static_cast<uint32_t>(ctx.is_vulkan() ? n / 2 : n);
    run.groups = {(items + 63) / 64, 1, 1};
    KernelRun ref = run;
    ref.params = to_bytes(std::vector<EwParams>{{static_cast<uint32_t>(n), op, 1, 0}});
    if (Status s = run_kernel(ctx.host, host, ref); !s) return error_row(ctx, id, s.error());
    if (Status s = run_kernel(ctx.device, dev, run); !s) return error_row(ctx, id, s.error());
    const auto want_h = from_bytes<uint16_t>(ref.buffers[2]);
    const auto got_h = from_bytes<uint16_t>(run.buffers[2]);
    const auto want_f = from_bytes<float>(ref.buffers[3]);
    const auto got_f = from_bytes<float>(run.buffers[3]);
    for (size_t i = 0; i < n; ++i) {
      Judged j = judge(ctx, op, in_f[i], in_h[i], want_h[i], got_h[i], want_f[i], got_f[i]);
      if (!j.ok) {
        Mismatch m;
        m.index = i;
        m.seed = seed;
        m.bound = find_case(id)->bound.describe();
        auto h16 = [&](uint16_t h) { return bf16 ? hex_bf16(h) : hex_f16(h); };
        if (from_f32) {
          m.inputs.emplace_back("in", hex_float(in_f[i]));
          m.expected = h16(want_h[i]);
          m.actual = h16(got_h[i]);
        } else {
          m.inputs.emplace_back("in", h16(in_h[i]));
          m.expected = hex_float(want_f[i]);
          m.actual = hex_float(got_f[i]);
        }
        return row_with(ctx, id, RowStatus::fail, describe(m));
      }
      rtz += j.how == "rtz";
      flushed += j.how == "flushed";
    }
  }
  row.metrics["elements"] = n;
  row.metrics["rounded_toward_zero"] = rtz;
  row.metrics["flushed_subnormals"] = flushed;
  return row;
}

const char* kNames[] = {"conform.convert.f32_to_f16", "conform.convert.f16_to_f32",
                        "conform.convert.f32_to_bf16", "conform.convert.bf16_to_f32"};

std::vector<core::Row> run_convert(CaseContext& ctx) {
  std::vector<core::Row> rows;
  std::vector<uint32_t> ops;
  for (uint32_t op = 0; op < 4; ++op) {
    if (ctx.wants(kNames[op])) ops.push_back(op);
  }
  if (ops.empty()) return rows;
  backends::KernelSource s;
  s.name = "cvt";
  s.opencl_c = kernels::dtype_cl;
  s.spirv = kernels::cvt_comp;
  s.host = cvt_host;
  s.buffer_count = 4;
  s.params_bytes = sizeof(EwParams);
  auto dev = ctx.device.build(s);
  auto host = ctx.host.build(s);
  for (uint32_t op : ops) {
    if (!dev)
      rows.push_back(error_row(ctx, kNames[op], dev.error()));
    else if (!host)
      rows.push_back(error_row(ctx, kNames[op], host.error()));
    else
      rows.push_back(run_cvt(ctx, **dev, **host, op, kNames[op]));
  }
  return rows;
}

}  // namespace

Family convert_family() {
  return {"convert",
          {{kNames[0], {"f16", "f16.storage"}, ErrorBound::exact("on Vulkan RTE or RTZ")},
           {kNames[1],
            {"f16", "f16.storage"},
            ErrorBound::exact("on Vulkan subnormals may flush to zero")},
           {kNames[2], {"bf16", "bf16.storage"}, ErrorBound::exact()},
           {kNames[3], {"bf16", "bf16.storage"}, ErrorBound::exact()}},
          run_convert};
}

}  // namespace gauntlet::conformance
