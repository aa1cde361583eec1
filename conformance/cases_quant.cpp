// int8 dot products of four packed values (plain, and with the integer dot product extension
// where it is claimed), and GGUF dequantization of every weight type, bit-exact against the host.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "conformance/case_util.h"
#include "conformance/compare.h"
#include "conformance/run_kernel.h"
#include "core/rng.h"
#include "core/tensor_type.h"
#include "core/type_kernels.h"
#include "kernels/dequant_type_cl.h"
#include "kernels/dequant_type_typed.h"
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
        Mismatch m{i,
                   {{"a", packed}},
                   std::to_string(want[i]),
                   std::to_string(got[i]),
                   find_case(id)->bound.exceeded(0),
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

// GGUF dequantization of every weight type gauntlet knows (core::all_tensor_types()), through the
// type's own block decoder (core/kernels/types/<type>.cl and .glsl): decode16 and value_at both,
// bit-exact against the host decode, core::dequantize_row.

std::string dequant_id(const core::TypeTraits& t) { return std::string("conform.gguf.") + t.name; }

// The feature a type's row speaks for, the type's ggml name: a quantized type's own key ("q8_0",
// "q4_K"); for f32, f16 and bf16 the element type's key, since reading f16 or bf16 weights is
// the emulated path (16-bit data, f32 arithmetic) that "f16" and "bf16" stand for.
std::vector<std::string> dequant_features(const core::TypeTraits& t) { return {t.name}; }

Status dequant_type_host(const backends::HostInvocation& call) {
  const auto p = call.params_as<EwParams>();
  const auto type = core::tensor_type_from_id(p.op);
  if (!type) {
    return core::make_error(core::ErrorKind::invalid_argument,
                            "dequant_type: unknown type id " + std::to_string(p.op));
  }
  auto blocks = call.buffer<const std::byte>(0);
  auto out16 = call.buffer<float>(1);
  auto out1 = call.buffer<float>(2);
  core::dequantize_row(*type, blocks.data(), out16.data(), p.n);
  std::copy(out16.begin(), out16.begin() + p.n, out1.begin());
  return Status::ok();
}

// Byte offsets of a block's f16 scale fields (d, and m or dmin where the type has one), from
// ggml-common.h: the hand-made blocks set them.
std::vector<size_t> scale_fields(core::TensorType type) {
  switch (type) {
    case core::TensorType::q4_0:
    case core::TensorType::q5_0:
    case core::TensorType::q8_0:
    case core::TensorType::iq4_nl:
    case core::TensorType::iq4_xs:
    case core::TensorType::iq2_xxs:
    case core::TensorType::iq2_xs:
    case core::TensorType::iq2_s:
    case core::TensorType::iq3_xxs:
    case core::TensorType::iq3_s:
    case core::TensorType::iq1_s:
    case core::TensorType::q1_0:
    case core::TensorType::q2_0:
      return {0};
    case core::TensorType::q4_1:
    case core::TensorType::q5_1:
    case core::TensorType::q4_K:
    case core::TensorType::q5_K:
      return {0, 2};
    case core::TensorType::q2_K:
      return {80, 82};
    case core::TensorType::q3_K:
      return {108};
    case core::TensorType::q6_K:
      return {208};
    case core::TensorType::tq1_0:
      return {52};
    case core::TensorType::tq2_0:
      return {64};
    // iq1_m's d is spread over the top nibbles of its four scale words: the fills set it with them.
    // mxfp4's scale is a byte (e8m0_fields), as are nvfp4's four UE4M3 scales, which the fills
    // set (0xff: 240, the top bit ignored; 0x7f: 0, E4M3's NaN; 0x00, 0x80: 0; 0x0f: a small
    // normal scale; random: any).
    default:
      return {};
  }
}

// Byte offsets of a block's E8M0 scale (mxfp4: the power of two 2^(e - 127), halved): the
// hand-made blocks set it to the extremes, 2^126 and 2^127 (the largest codes overflow to
// infinity) and 2^-128 and 2^-127 (subnormal scales: codes of magnitude 1 to 3 give subnormal
// values, which a device that flushes subnormals would lose).
std::vector<size_t> e8m0_fields(core::TensorType type) {
  return type == core::TensorType::mxfp4 ? std::vector<size_t>{0} : std::vector<size_t>{};
}

void put_u16(std::vector<uint8_t>& bytes, size_t at, uint16_t v) {
  bytes[at] = static_cast<uint8_t>(v & 0xff);
  bytes[at + 1] = static_cast<uint8_t>(v >> 8);
}

// Hand-made blocks at the front of the row: extreme quant bytes (all 0xff, all 0x80, all 0x7f,
// alternating nibbles, random) under extreme scales (negative, the smallest and largest
// subnormals, the largest finite value, signed zeros). Returns how many blocks it wrote.
uint32_t put_quant_extremes(core::TensorType type, std::vector<uint8_t>& bytes, core::Rng& rng) {
  struct Extreme {
    int fill;  // the byte every quant, scale and high-bit byte gets; -1: random; -2: 0x0f/0xf0
    uint16_t scales[2];
  };
  const Extreme extremes[] = {
      {0xff, {0xbe00, 0xc000}},  // -1.5, -2
      {0x00, {0x0001, 0x8001}},  // the smallest subnormals
      {0x80, {0x83ff, 0x03ff}},  // the largest subnormals
      {-1, {0x7bff, 0xfbff}},    // +-65504
      {-2, {0x8000, 0x0000}},    // -0, +0
      {0x7f, {0x3c00, 0xbc00}},  // 1, -1
      {-1, {0, 0}},              // random subnormals (below)
  };
  const auto fields = scale_fields(type);
  const auto e8m0 = e8m0_fields(type);
  // The E8M0 scale of each extreme, in order: 2^126; 2^-128 and 2^-127 (under zero codes); 2^-127
  // under random codes; 2^-128; 2^127; 2^-128 under random codes.
  const uint8_t e8m0_scales[] = {0xfe, 0x00, 0x01, 0x01, 0x00, 0xff, 0x00};
  const size_t block = core::block_bytes(type);
  uint32_t b = 0;
  for (const Extreme& e : extremes) {
    if ((b + 1) * block > bytes.size()) break;
    uint8_t* base = bytes.data() + b * block;
    for (size_t i = 0; i < block; ++i) {
      base[i] = static_cast<uint8_t>(e.fill >= 0    ? e.fill
                                     : e.fill == -1 ? rng.next_u32()
                                                    : (i % 2 ? 0xf0 : 0x0f));
    }
    for (size_t f = 0; f < fields.size(); ++f) {
      uint16_t v = e.scales[f % 2];
      if (v == 0 && e.fill == -1) v = static_cast<uint16_t>(rng.next_u32() & 0x83ff);
      put_u16(bytes, b * block + fields[f], v);
    }
    for (size_t f : e8m0) base[f] = e8m0_scales[b];
    ++b;
  }
  return b;
}

// The types whose values are entries of a lattice table (core/types/iq_tables.h): their rows are
// random blocks, so that every table entry and sign code is decoded (the encoders reach few of
// them, and are checked against ggml's in the core tests).
bool reads_a_lattice(core::TensorType type) {
  switch (type) {
    case core::TensorType::iq2_xxs:
    case core::TensorType::iq2_xs:
    case core::TensorType::iq2_s:
    case core::TensorType::iq3_xxs:
    case core::TensorType::iq3_s:
    case core::TensorType::iq1_s:
    case core::TensorType::iq1_m:
      return true;
    default:
      return false;
  }
}

// Random bytes in every block, with a finite scale: the f16 d fields a random normal value of
// magnitude 2^-8 .. 2^8 (iq1_m's d, spread over its scale words, is kept below 2 by clearing its
// exponent's top bit, bit 6 of the block's last byte).
void put_random_blocks(core::TensorType type, std::vector<uint8_t>& bytes, core::Rng& rng) {
  const size_t block = core::block_bytes(type);
  const auto fields = scale_fields(type);
  for (size_t b = 0; (b + 1) * block <= bytes.size(); ++b) {
    for (size_t i = 0; i < block; ++i) bytes[b * block + i] = static_cast<uint8_t>(rng.next_u32());
    for (size_t f : fields) {
      const uint32_t exponent = 7 + rng.next_u32() % 17;  // 2^-8 .. 2^8
      const auto v = static_cast<uint16_t>((rng.next_u32() & 0x83ffu) | (exponent << 10));
      put_u16(bytes, b * block + f, v);
    }
    if (type == core::TensorType::iq1_m) bytes[b * block + block - 1] &= 0xbf;
  }
}

// Special values at the front of a float-type row: signed zeros, subnormals, the extremes,
// infinities, quiet and signalling NaNs with payloads.
uint32_t put_float_extremes(core::TensorType type, std::vector<uint8_t>& bytes) {
  static const uint16_t f16[] = {0x0000, 0x8000, 0x0001, 0x8001, 0x03ff, 0x0200, 0x0400, 0x7bff,
                                 0xfbff, 0x7c00, 0xfc00, 0x7e00, 0x7d01, 0xfe01, 0x3c00, 0x3555};
  static const uint16_t bf16[] = {0x0000, 0x8000, 0x0001, 0x807f, 0x0080, 0x7f7f, 0xff7f, 0x7f80,
                                  0xff80, 0x7fc0, 0x7f81, 0xffc1, 0x3f80, 0x3eab, 0x0040, 0x8040};
  static const uint32_t f32[] = {0x00000000, 0x80000000, 0x00000001, 0x007fffff,
                                 0x00800000, 0x7f7fffff, 0xff7fffff, 0x7f800000,
                                 0xff800000, 0x7fc00000, 0x7f800001, 0xffc00001,
                                 0x3f800000, 0x3eaaaaab, 0x80000001, 0x807fffff};
  switch (type) {
    case core::TensorType::f16:
      std::memcpy(bytes.data(), f16, sizeof f16);
      return 16;
    case core::TensorType::bf16:
      std::memcpy(bytes.data(), bf16, sizeof bf16);
      return 16;
    case core::TensorType::f32:
      std::memcpy(bytes.data(), f32, sizeof f32);
      return 16;
    default:
      return 0;
  }
}

std::string bits_text(float v) {
  char bits[16];
  std::snprintf(bits, sizeof bits, "0x%08x", std::bit_cast<uint32_t>(v));
  return std::string(bits) + " = " + hex_float(v);
}

// The bytes of block `b`, in hex (the first 32 of a longer block).
std::string block_hex(const std::vector<uint8_t>& bytes, size_t b, size_t block) {
  std::string text;
  const size_t shown = std::min<size_t>(block, 32);
  for (size_t i = 0; i < shown; ++i) {
    char byte[4];
    std::snprintf(byte, sizeof byte, "%02x", bytes[b * block + i]);
    text += byte;
  }
  if (shown < block) text += "... (" + std::to_string(block) + " bytes)";
  return text;
}

core::Row run_dequant(CaseContext& ctx, const core::TypeTraits& t) {
  const std::string id = dequant_id(t);
  backends::KernelSource s;
  s.name = "dequant_type";
  s.opencl_c = kernels::dequant_type_cl;
  s.opencl_headers = core::opencl_type_headers(t.type);
  s.spirv = kernels::dequant_type_spirv(static_cast<uint32_t>(t.type));
  s.host = dequant_type_host;
  s.buffer_count = 3;
  s.params_bytes = sizeof(EwParams);
  if (ctx.is_vulkan() && s.spirv.empty()) {
    return row_with(ctx, id, RowStatus::skipped,
                    std::string("this build has no GLSL decoder for ") + t.name +
                        " (add it to gauntlet_add_typed_kernels in conformance/CMakeLists.txt)");
  }
  if (ctx.is_opencl() && s.opencl_headers.empty()) {
    return row_with(ctx, id, RowStatus::skipped,
                    std::string("this build has no OpenCL C decoder for ") + t.name);
  }
  auto dev = ctx.device.build(s);
  if (!dev) return error_row(ctx, id, dev.error());

  const uint32_t blocks =
      std::max<uint32_t>(static_cast<uint32_t>(ctx.elements() / t.block_elements), 16);
  const uint32_t n = blocks * t.block_elements;  // a multiple of 16 and of the block
  const size_t block = t.block_bytes;
  uint32_t hand_made = 0;
  auto with_sizes = [&](core::Row row) {
    row.metrics["blocks"] = blocks;
    row.metrics["elements"] = n;
    row.metrics["hand_made"] = hand_made;
    return row;
  };
  for (unsigned rep = 0; rep < ctx.seed_count(); ++rep) {
    const uint64_t seed = case_seed(ctx, id, rep);
    core::Rng rng(seed);
    // Random values, a magnitude and an offset per 32 (so that the scales and mins vary), through
    // the host quantizer.
    std::vector<float> values(n);
    for (uint32_t i = 0; i < n; i += 32) {
      const float mag = std::ldexp(1.0f, static_cast<int>(rng.next_u32() % 16) - 8);
      const float offset = rng.next_u32() % 4 == 0 ? rng.uniform(-mag, mag) : 0.0f;
      for (uint32_t j = i; j < std::min(n, i + 32); ++j) {
        values[j] = offset + mag * rng.uniform(-1.0f, 1.0f);
      }
    }
    std::vector<uint8_t> bytes((core::row_bytes(t.type, n) + 3) / 4 * 4);
    if (reads_a_lattice(t.type)) {
      put_random_blocks(t.type, bytes, rng);
    } else {
      core::quantize_row(t.type, values.data(), reinterpret_cast<std::byte*>(bytes.data()), n);
    }
    hand_made = core::is_quantized(t.type) ? put_quant_extremes(t.type, bytes, rng)
                                           : put_float_extremes(t.type, bytes);
    std::vector<float> want(n);
    core::dequantize_row(t.type, reinterpret_cast<const std::byte*>(bytes.data()), want.data(), n);

    KernelRun run;
    run.buffers = {to_bytes(bytes), Bytes(size_t{n} * 4), Bytes(size_t{n} * 4)};
    run.is_output = {false, true, true};
    run.params = to_bytes(std::vector<EwParams>{
        {n, static_cast<uint32_t>(t.type), t.block_elements, fault_code(ctx, id)}});
    run.groups = {(n / 16 + 63) / 64, 1, 1};
    if (Status st = run_kernel(ctx.device, **dev, run); !st) return error_row(ctx, id, st.error());
    for (uint32_t out = 1; out <= 2; ++out) {
      const auto got = from_bytes<float>(run.buffers[out]);
      for (uint32_t i = 0; i < n; ++i) {
        if (std::bit_cast<uint32_t>(want[i]) == std::bit_cast<uint32_t>(got[i])) continue;
        const size_t b = i / t.block_elements;
        Mismatch m{i,
                   {{"type", t.name},
                    {"entry", out == 1 ? "decode16" : "value_at"},
                    {"block", std::to_string(b)},
                    {"element", std::to_string(i % t.block_elements)},
                    {"block bytes", block_hex(bytes, b, block)}},
                   bits_text(want[i]),
                   bits_text(got[i]),
                   find_case(id)->bound.exceeded(0),
                   seed};
        return with_sizes(row_with(ctx, id, RowStatus::fail, describe(m)));
      }
    }
  }
  return with_sizes(pass_row(ctx, id));
}

std::vector<core::Row> run_quant(CaseContext& ctx) {
  std::vector<core::Row> rows;
  if (ctx.wants("conform.int8.dot4")) rows.push_back(run_dot4(ctx, "conform.int8.dot4", false));
  if (ctx.wants("conform.int8.dot4_ext")) {
    rows.push_back(run_dot4(ctx, "conform.int8.dot4_ext", true));
  }
  for (const core::TypeTraits& t : core::all_tensor_types()) {
    if (ctx.wants(dequant_id(t))) rows.push_back(run_dequant(ctx, t));
  }
  return rows;
}
}  // namespace

Family quant_family() {
  Family family{"quant",
                {{"conform.int8.dot4", {"int8.dot"}, ErrorBound::exact()},
                 {"conform.int8.dot4_ext", {"int8.dot"}, ErrorBound::exact()}},
                run_quant};
  for (const core::TypeTraits& t : core::all_tensor_types()) {
    family.cases.push_back({dequant_id(t), dequant_features(t), ErrorBound::exact()});
  }
  return family;
}

}  // namespace gauntlet::conformance
