// dtype cases: storage round trip, add, mul, fma (ULP bounds) and a reduction (NMSE bound) for
// f32, f64, f16 (native, and emulated: 16-bit storage with f32 arithmetic), bf16 (emulated) and
// int8, each against the host backend running the same kernel's C++ reference.
#include <cmath>
#include <cstring>

#include "conformance/case_util.h"
#include "conformance/compare.h"
#include "conformance/run_kernel.h"
#include "core/half.h"
#include "core/rng.h"
#include "kernels/dtype_cl.h"
#include "kernels/ew_bf16e_comp.h"
#include "kernels/ew_f16e_comp.h"
#include "kernels/ew_f16n_comp.h"
#include "kernels/ew_f32_comp.h"
#include "kernels/ew_f64_comp.h"
#include "kernels/ew_i8_comp.h"

namespace gauntlet::conformance {

namespace {

using core::RowStatus;

// How one storage type loads, computes and stores, on the host, exactly as its kernel does.
struct F32 {
  using S = float;
  using A = float;
  static A load(S s) { return s; }
  static S store(A a) { return a; }
  static A add(A x, A y) { return x + y; }
  static A mul(A x, A y) { return x * y; }
  static A fma(A x, A y, A z) { return std::fma(x, y, z); }
};
struct F64 {
  using S = double;
  using A = double;
  static A load(S s) { return s; }
  static S store(A a) { return a; }
  static A add(A x, A y) { return x + y; }
  static A mul(A x, A y) { return x * y; }
  static A fma(A x, A y, A z) { return std::fma(x, y, z); }
};
struct F16E : F32 {
  using S = uint16_t;
  static A load(S s) { return core::f16_to_f32(s); }
  static S store(A a) { return core::f32_to_f16(a); }
};
// Native half: every operation rounds to half (double rounding via f32 is innocuous for + and *).
struct F16N : F16E {
  static A round(A a) { return core::f16_to_f32(core::f32_to_f16(a)); }
  static A add(A x, A y) { return round(x + y); }
  static A mul(A x, A y) { return round(x * y); }
  static A fma(A x, A y, A z) { return round(static_cast<float>(static_cast<double>(x) * y + z)); }
};
struct BF16E : F32 {
  using S = uint16_t;
  static A load(S s) { return core::bf16_to_f32(s); }
  static S store(A a) { return core::f32_to_bf16(a); }
};
struct I8 {
  using S = int8_t;
  using A = int32_t;
  static A load(S s) { return s; }
  static S store(A a) { return static_cast<S>(static_cast<uint8_t>(a & 0xff)); }
  static A add(A x, A y) { return x + y; }
  static A mul(A x, A y) { return x * y; }
  static A fma(A x, A y, A z) { return x * y + z; }
};

// Host only: a multiply then an add, each rounded, as Vulkan's fma may compute it.
constexpr uint32_t kUnfusedFma = 5;

template <typename T>
Status ew_host(const backends::HostInvocation& call) {
  const auto p = call.params_as<EwParams>();
  auto a = call.buffer<const typename T::S>(0);
  auto b = call.buffer<const typename T::S>(1);
  auto c = call.buffer<const typename T::S>(2);
  auto out = call.buffer<typename T::S>(3);
  for (uint32_t i = 0; i < p.n; ++i) {
    typename T::A r{};
    switch (p.op) {
      case op_copy:
        out[i] = a[i];
        continue;
      case op_add:
        r = T::add(T::load(a[i]), T::load(b[i]));
        break;
      case op_mul:
        r = T::mul(T::load(a[i]), T::load(b[i]));
        break;
      case op_fma:
        r = T::fma(T::load(a[i]), T::load(b[i]), T::load(c[i]));
        break;
      case kUnfusedFma:
        r = T::add(T::mul(T::load(a[i]), T::load(b[i])), T::load(c[i]));
        break;
      default:
        for (uint32_t j = 0; j < p.k; ++j) r = T::add(r, T::load(a[size_t{i} * p.k + j]));
    }
    out[i] = T::store(r);
  }
  return Status::ok();
}

struct TypeCase {
  std::string prefix;  // "conform.f16.emulated"
  std::string feature_family;
  const char* cl_name;
  std::span<const uint32_t> spirv;
  backends::HostKernelFn host;
  size_t size;           // bytes per element
  uint32_t per_item_vk;  // values per invocation in the Vulkan kernel
  bool has_reduce = true;
};

double as_double(const TypeCase& t, const Bytes& data, size_t i) {
  if (t.size == 8) return from_bytes<double>(data)[i];
  if (t.size == 4) return from_bytes<float>(data)[i];
  if (t.size == 1) return static_cast<double>(static_cast<int8_t>(data[i]));
  uint16_t bits;
  std::memcpy(&bits, data.data() + 2 * i, 2);
  return t.prefix.find("bf16") != std::string::npos ? core::bf16_to_f32(bits)
                                                    : core::f16_to_f32(bits);
}

uint64_t bits_at(const TypeCase& t, const Bytes& data, size_t i) {
  uint64_t v = 0;
  std::memcpy(&v, data.data() + t.size * i, t.size);
  return v;
}

std::string text_at(const TypeCase& t, const Bytes& data, size_t i) {
  const uint64_t bits = bits_at(t, data, i);
  if (t.size == 8) return hex_float(std::bit_cast<double>(bits));
  if (t.size == 4) return hex_float(std::bit_cast<float>(static_cast<uint32_t>(bits)));
  if (t.size == 1) return std::to_string(static_cast<int8_t>(bits));
  return t.prefix.find("bf16") != std::string::npos ? hex_bf16(static_cast<uint16_t>(bits))
                                                    : hex_f16(static_cast<uint16_t>(bits));
}

uint64_t ulp_at(const TypeCase& t, const Bytes& x, const Bytes& y, size_t i) {
  const uint64_t a = bits_at(t, x, i), b = bits_at(t, y, i);
  if (t.size == 8) return ulp_distance(std::bit_cast<double>(a), std::bit_cast<double>(b));
  if (t.size == 4) {
    return ulp_distance(std::bit_cast<float>(static_cast<uint32_t>(a)),
                        std::bit_cast<float>(static_cast<uint32_t>(b)));
  }
  if (t.size == 1) return a == b ? 0 : UINT64_MAX;  // wrapping integers: exact or wrong
  return t.prefix.find("bf16") != std::string::npos
             ? ulp_distance_bf16(static_cast<uint16_t>(a), static_cast<uint16_t>(b))
             : ulp_distance_f16(static_cast<uint16_t>(a), static_cast<uint16_t>(b));
}

// One value of the type from a random source: arithmetic inputs are in ±[0.5, 2) so that no
// result is subnormal or cancels; storage inputs are any non-NaN bit pattern (normal only for
// the 16-bit emulated paths, whose unpack may flush subnormals on Vulkan).
void fill_value(const TypeCase& t, core::Rng& rng, uint32_t op, std::byte* dst) {
  if (op == op_copy) {
    for (;;) {
      uint64_t bits = rng.next_u64();
      if (t.size == 4) {
        auto f = std::bit_cast<float>(static_cast<uint32_t>(bits));
        if (std::isnan(f)) continue;
      } else if (t.size == 8) {
        if (std::isnan(std::bit_cast<double>(bits))) continue;
      } else if (t.size == 2) {
        const uint16_t h = static_cast<uint16_t>(bits);
        const bool bf = t.prefix.find("bf16") != std::string::npos;
        const uint16_t exp = bf ? ((h >> 7) & 0xff) : ((h >> 10) & 0x1f);
        const uint16_t max_exp = bf ? 0xff : 0x1f;
        if (exp == max_exp || (exp == 0 && (h & 0x7fff) != 0)) continue;
      }
      std::memcpy(dst, &bits, t.size);
      return;
    }
  }
  if (t.size == 1) {
    const auto v = static_cast<int8_t>(rng.next_u32());
    std::memcpy(dst, &v, 1);
    return;
  }
  const float sign = (rng.next_u32() & 1) ? -1.0f : 1.0f;
  const float value = op == op_reduce ? rng.uniform(-1.0f, 1.0f) : sign * rng.uniform(0.5f, 2.0f);
  if (t.size == 8) {
    const double d = static_cast<double>(value) + rng.uniform(0.0f, 1.0f) * 1e-9;
    std::memcpy(dst, &d, 8);
  } else if (t.size == 4) {
    std::memcpy(dst, &value, 4);
  } else {
    const bool bf = t.prefix.find("bf16") != std::string::npos;
    const uint16_t h = bf ? core::f32_to_bf16(value) : core::f32_to_f16(value);
    std::memcpy(dst, &h, 2);
  }
}

backends::KernelSource source_for(const CaseContext& ctx, const TypeCase& t) {
  backends::KernelSource s;
  s.name = t.cl_name;
  s.opencl_c = kernels::dtype_cl;
  s.spirv = t.spirv;
  s.host = t.host;
  s.buffer_count = 4;
  s.params_bytes = sizeof(EwParams);
  if (ctx.claimed.features.fp64) s.build_options += " -DHAVE_FP64";
  if (ctx.claimed.features.fp16_arithmetic) s.build_options += " -DHAVE_FP16";
  return s;
}

// A copy keeps the bits. add and mul are correctly rounded in OpenCL and Vulkan, and so is
// OpenCL's fma; Vulkan's fma may be a multiply and an add, each correctly rounded, which is judged
// as a second reference. A reduction sums in its own order: an NMSE by the type's precision.
ErrorBound declared_bound(const TypeCase& t, uint32_t op) {
  if (op == op_copy) return ErrorBound::exact();
  if (op == op_reduce) {
    return ErrorBound::max_nmse(t.size >= 4                                  ? 1e-10
                                : t.prefix.find("bf16") != std::string::npos ? 1e-4
                                                                             : 1e-6);
  }
  if (op == op_fma) return ErrorBound::ulps(0, "on Vulkan fused or unfused (mul, add)");
  return ErrorBound::ulps(0);
}

// Runs one op of one type on the device and on the host, and judges the difference.
core::Row run_op(CaseContext& ctx, const TypeCase& t, const backends::Kernel& device_kernel,
                 const backends::Kernel& host_kernel, uint32_t op, const std::string& id) {
  const uint32_t n = static_cast<uint32_t>(ctx.elements());
  const uint32_t k = op == op_reduce ? 16 : 1;
  const uint32_t outputs = op == op_reduce ? n / k : n;
  const ErrorBound bound = declared_bound(t, op);
  core::Row row = pass_row(ctx, id);
  double worst_nmse = 0.0;
  uint64_t worst_ulp = 0;
  for (unsigned rep = 0; rep < ctx.seed_count(); ++rep) {
    const uint64_t seed = case_seed(ctx, id, rep);
    core::Rng rng(seed);
    KernelRun run;
    for (int b = 0; b < 3; ++b) {
      Bytes data(size_t{n} * t.size);
      for (size_t i = 0; i < n; ++i) fill_value(t, rng, op, data.data() + i * t.size);
      run.buffers.push_back(std::move(data));
      run.is_output.push_back(false);
    }
    run.buffers.emplace_back(size_t{outputs} * t.size);
    run.is_output.push_back(true);
    EwParams params{outputs, op, k, fault_code(ctx, id)};
    run.params = to_bytes(std::vector<EwParams>{params});
    const uint32_t items = ctx.is_vulkan() ? outputs / t.per_item_vk : outputs;
    run.groups = {(items + 63) / 64, 1, 1};
    KernelRun ref = run;
    ref.params = to_bytes(std::vector<EwParams>{EwParams{outputs, op, k, 0}});
    if (Status s = run_kernel(ctx.host, host_kernel, ref); !s) return error_row(ctx, id, s.error());
    if (Status s = run_kernel(ctx.device, device_kernel, run); !s) {
      return error_row(ctx, id, s.error());
    }
    KernelRun unfused = ref;
    const bool two_refs = op == op_fma && ctx.is_vulkan();
    if (two_refs) {
      unfused.params = to_bytes(std::vector<EwParams>{EwParams{outputs, kUnfusedFma, k, 0}});
      if (Status s = run_kernel(ctx.host, host_kernel, unfused); !s) {
        return error_row(ctx, id, s.error());
      }
    }
    const Bytes& want = ref.buffers[3];
    const Bytes& got = run.buffers[3];
    if (op == op_reduce) {
      std::vector<double> e(outputs), a(outputs);
      for (size_t i = 0; i < outputs; ++i) {
        e[i] = as_double(t, want, i);
        a[i] = as_double(t, got, i);
      }
      const double err = nmse(e, a);
      worst_nmse = std::max(worst_nmse, err);
      if (!bound.allows_nmse(err)) {
        size_t worst = 0;
        for (size_t i = 1; i < outputs; ++i) {
          if (std::abs(a[i] - e[i]) > std::abs(a[worst] - e[worst])) worst = i;
        }
        Mismatch m{worst, {}, text_at(t, want, worst), text_at(t, got, worst), bound.exceeded(err),
                   seed};
        return row_with(ctx, id, RowStatus::fail, describe(m));
      }
      continue;
    }
    for (size_t i = 0; i < outputs; ++i) {
      const bool exact = bits_at(t, want, i) == bits_at(t, got, i) ||
                         (two_refs && bits_at(t, unfused.buffers[3], i) == bits_at(t, got, i));
      const uint64_t ulp = exact ? 0 : ulp_at(t, want, got, i);
      if (!bound.allows(exact, ulp)) {
        Mismatch m{i,
                   {},
                   text_at(t, want, i) +
                       (two_refs ? " or, unfused, " + text_at(t, unfused.buffers[3], i) : ""),
                   text_at(t, got, i),
                   bound.exceeded(static_cast<double>(ulp)),
                   seed};
        const char* names[] = {"a", "b", "c"};
        const int inputs = op == op_copy ? 1 : op == op_fma ? 3 : 2;
        for (int b = 0; b < inputs; ++b)
          m.inputs.emplace_back(names[b], text_at(t, run.buffers[b], i));
        return row_with(ctx, id, RowStatus::fail, describe(m));
      }
      worst_ulp = std::max(worst_ulp, ulp);
    }
  }
  row.metrics["elements"] = n;
  row.metrics["seeds"] = ctx.seed_count();
  if (op == op_reduce) {
    row.metrics["nmse"] = worst_nmse;
    row.metrics["nmse_bound"] = bound.limit;
  } else {
    row.metrics["max_ulp"] = worst_ulp;
    row.metrics["ulp_bound"] = static_cast<uint64_t>(bound.limit);
  }
  return row;
}

const char* kOps[] = {"storage", "add", "mul", "fma", "reduce"};

std::vector<TypeCase> type_cases() {
  return {
      {"conform.f32", "f32", "ew_f32", kernels::ew_f32_comp, ew_host<F32>, 4, 1},
      {"conform.f64", "f64", "ew_f64", kernels::ew_f64_comp, ew_host<F64>, 8, 1},
      {"conform.f16.native", "f16.arithmetic", "ew_f16n", kernels::ew_f16n_comp, ew_host<F16N>, 2,
       1},
      {"conform.f16.emulated", "f16", "ew_f16e", kernels::ew_f16e_comp, ew_host<F16E>, 2, 2},
      {"conform.bf16.emulated", "bf16", "ew_bf16e", kernels::ew_bf16e_comp, ew_host<BF16E>, 2, 2},
      {"conform.int8", "int8", "ew_i8", kernels::ew_i8_comp, ew_host<I8>, 1, 4, false},
  };
}

// Why a type cannot run here, or empty when the device claims what its kernel needs.
std::string not_claimed(const CaseContext& ctx, const TypeCase& t) {
  const auto& f = ctx.claimed.features;
  if (t.cl_name == std::string("ew_f64") && !f.fp64) {
    return ctx.is_vulkan() ? "shaderFloat64 not claimed" : "cl_khr_fp64 not claimed";
  }
  if (t.cl_name == std::string("ew_f16n")) {
    if (!f.fp16_arithmetic)
      return ctx.is_vulkan() ? "shaderFloat16 not claimed" : "cl_khr_fp16 not claimed";
    if (ctx.is_vulkan() && !f.fp16_storage) return "storageBuffer16BitAccess not claimed";
  }
  return {};
}

std::vector<core::Row> run_dtype(CaseContext& ctx) {
  std::vector<core::Row> rows;
  for (const TypeCase& t : type_cases()) {
    std::vector<std::pair<uint32_t, std::string>> ops;
    for (uint32_t op = 0; op < (t.has_reduce ? 5u : 4u); ++op) {
      const std::string id = t.prefix + "." + kOps[op];
      if (ctx.wants(id)) ops.emplace_back(op, id);
    }
    if (ops.empty()) continue;
    if (auto why = not_claimed(ctx, t); !why.empty()) {
      for (const auto& [op, id] : ops)
        rows.push_back(row_with(ctx, id, RowStatus::unsupported, why));
      continue;
    }
    auto source = source_for(ctx, t);
    auto device_kernel = ctx.device.build(source);
    auto host_kernel = ctx.host.build(source);
    for (const auto& [op, id] : ops) {
      if (!device_kernel) {
        rows.push_back(error_row(ctx, id, device_kernel.error()));
      } else if (!host_kernel) {
        rows.push_back(error_row(ctx, id, host_kernel.error()));
      } else {
        rows.push_back(run_op(ctx, t, **device_kernel, **host_kernel, op, id));
      }
    }
  }
  // Native bf16 arithmetic (VK_KHR_shader_bfloat16, cl_intel_bfloat16_*) has no kernel here.
  if (ctx.wants("conform.bf16.native")) {
    rows.push_back(
        ctx.claimed.features.bf16
            ? row_with(ctx, "conform.bf16.native", RowStatus::skipped,
                       "native bf16 is claimed, but this build has no native bf16 kernel")
            : row_with(ctx, "conform.bf16.native", RowStatus::unsupported,
                       "native bf16 arithmetic not claimed"));
  }
  return rows;
}

}  // namespace

Family dtype_family() {
  Family family{"dtype", {}, run_dtype};
  for (const TypeCase& t : type_cases()) {
    for (uint32_t op = 0; op < (t.has_reduce ? 5u : 4u); ++op) {
      CaseSpec spec{t.prefix + "." + kOps[op], {}, declared_bound(t, op)};
      if (t.feature_family == "f16") {
        spec.features = op == op_copy ? std::vector<std::string>{"f16", "f16.storage"}
                                      : std::vector<std::string>{"f16"};
      } else if (t.feature_family == "bf16") {
        spec.features = op == op_copy ? std::vector<std::string>{"bf16", "bf16.storage"}
                                      : std::vector<std::string>{"bf16"};
      } else {
        spec.features = {t.feature_family};
      }
      family.cases.push_back(std::move(spec));
    }
  }
  family.cases.push_back({"conform.bf16.native", {"bf16.arithmetic"}, ErrorBound::ulps(0)});
  return family;
}

}  // namespace gauntlet::conformance
