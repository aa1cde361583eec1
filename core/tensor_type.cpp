#include "core/tensor_type.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstring>
#include <memory>

#include "core/half.h"
#include "core/llamafile_dot.h"
#include "core/text.h"
#include "core/types/codecs.h"

namespace gauntlet::core {

namespace {

using namespace types;

// In ggml id order, one entry a line of the registry.
constexpr TypeTraits kTypes[] = {
#define GAUNTLET_WEIGHT_TYPE(name, id, elements, bytes, codec, matvec) \
  TypeTraits{TensorType::name, #name, elements, bytes, quantize_##name, dequantize_##name},
#include "core/weight_types.def"
#undef GAUNTLET_WEIGHT_TYPE
};

const std::array<float, 65536>& f16_table() {
  static const auto table = [] {
    auto t = std::make_unique<std::array<float, 65536>>();
    for (uint32_t i = 0; i < 65536; ++i) (*t)[i] = f16_to_f32(static_cast<uint16_t>(i));
    return t;
  }();
  return *table;
}

// The exact products' one rounding order: eight partial sums, each a multiply then an add (never
// fused), added in a fixed order, so the compiler can vectorise the loop and the result depends
// only on the inputs. The AVX2 clone does the same operations eight lanes at a time.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define GAUNTLET_EXACT_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define GAUNTLET_EXACT_CLONES
#endif

// Eight floats as one value (GCC and clang vector extensions): one register with AVX2, two
// without; each lane's multiply and add are the scalar ones.
typedef float Lanes __attribute__((vector_size(32)));

// By reference: a vector passed or returned by value would change the ABI between the clones.
void load_lanes(Lanes& v, const float* p) { std::memcpy(&v, p, sizeof v); }

float sum_partials(const Lanes& acc, const float* w, const float* x, uint32_t i, uint32_t n) {
  float a[8];
  std::memcpy(a, &acc, sizeof a);
  for (; i < n; ++i) a[i % 8] += w[i] * x[i];
  return ((a[0] + a[1]) + (a[2] + a[3])) + ((a[4] + a[5]) + (a[6] + a[7]));
}

GAUNTLET_EXACT_CLONES float dot_floats(const float* w, const float* x, uint32_t n) {
  Lanes acc = {};
  uint32_t i = 0;
  Lanes wi, xi;
  for (; i + 8 <= n; i += 8) {
    load_lanes(wi, w + i);
    load_lanes(xi, x + i);
    acc += wi * xi;
  }
  return sum_partials(acc, w, x, i, n);
}

// Four tokens' dot products with the same weights (token t's input at x + t * stride), each
// exactly dot_floats': every weight loaded serves four tokens.
GAUNTLET_EXACT_CLONES void dot_floats4(const float* w, const float* x, uint64_t stride, uint32_t n,
                                       float* sums) {
  Lanes a0 = {}, a1 = {}, a2 = {}, a3 = {};
  const float *x0 = x, *x1 = x + stride, *x2 = x + 2 * stride, *x3 = x + 3 * stride;
  uint32_t i = 0;
  Lanes wi, xi;
  for (; i + 8 <= n; i += 8) {
    load_lanes(wi, w + i);
    load_lanes(xi, x0 + i);
    a0 += wi * xi;
    load_lanes(xi, x1 + i);
    a1 += wi * xi;
    load_lanes(xi, x2 + i);
    a2 += wi * xi;
    load_lanes(xi, x3 + i);
    a3 += wi * xi;
  }
  sums[0] = sum_partials(a0, w, x0, i, n);
  sums[1] = sum_partials(a1, w, x1, i, n);
  sums[2] = sum_partials(a2, w, x2, i, n);
  sums[3] = sum_partials(a3, w, x3, i, n);
}

}  // namespace

float f16_lookup(uint16_t bits) { return f16_table()[bits]; }
const float* f16_table_data() { return f16_table().data(); }

std::span<const TypeTraits> all_tensor_types() { return kTypes; }

const TypeTraits& traits(TensorType type) {
  for (const auto& t : kTypes) {
    if (t.type == type) return t;
  }
  return kTypes[0];  // unreachable for a valid enum value
}

const char* to_string(TensorType type) {
  for (const auto& t : kTypes) {
    if (t.type == type) return t.name;
  }
  return "unknown";
}

std::optional<TensorType> parse_tensor_type(std::string_view name) {
  for (const auto& t : kTypes) {
    if (same_ignoring_case(name, t.name)) return t.type;
  }
  return std::nullopt;
}

std::optional<TensorType> tensor_type_from_id(uint32_t id) {
  for (const auto& t : kTypes) {
    if (static_cast<uint32_t>(t.type) == id) return t.type;
  }
  return std::nullopt;
}

std::string known_tensor_types() {
  std::string s;
  for (const auto& t : kTypes) {
    s += (s.empty() ? "" : ", ") + std::string(t.name) + " (" +
         std::to_string(static_cast<uint32_t>(t.type)) + ")";
  }
  return s;
}

bool is_quantized(TensorType type) { return block_elements(type) > 1; }

void quantize_row(TensorType type, const float* src, std::byte* dst, uint64_t n,
                  const float* importance) {
  traits(type).quantize(src, dst, n, importance);
}

void dequantize_row(TensorType type, const std::byte* src, float* dst, uint64_t n) {
  traits(type).dequantize(src, dst, n);
}

float dot_row(TensorType type, const std::byte* row, const float* x, uint64_t n) {
  if (type == TensorType::f32) {
    const auto* w = reinterpret_cast<const float*>(row);
    if (sums_in_llamafile_order(n)) return dot_f32_as_llamafile(w, x, n);
    return dot_floats(w, x, static_cast<uint32_t>(n));
  }
  // Decoded a chunk of whole blocks (256 elements, or one block if larger) at a time.
  const TypeTraits& t = traits(type);
  const uint32_t chunk = std::max<uint32_t>(256, t.block_elements);
  float w[256];
  float sum = 0;
  for (uint64_t i = 0; i < n; i += chunk) {
    const auto len = static_cast<uint32_t>(std::min<uint64_t>(chunk, n - i));
    t.dequantize(row + row_bytes(type, i), w, len);
    sum += dot_floats(w, x + i, len);
  }
  return sum;
}

void dot_row_tokens(TensorType type, const std::byte* row, const float* x, uint64_t n,
                    size_t n_tokens, uint64_t stride, float* out) {
  if (type == TensorType::f32 || n_tokens == 1) {
    for (size_t t = 0; t < n_tokens; ++t) out[t * stride] = dot_row(type, row, x + t * stride, n);
    return;
  }
  const TypeTraits& tt = traits(type);
  const uint32_t chunk = std::max<uint32_t>(256, tt.block_elements);
  float w[256];
  for (size_t t = 0; t < n_tokens; ++t) out[t * stride] = 0;
  for (uint64_t i = 0; i < n; i += chunk) {
    const auto len = static_cast<uint32_t>(std::min<uint64_t>(chunk, n - i));
    tt.dequantize(row + row_bytes(type, i), w, len);
    size_t t = 0;
    for (; t + 4 <= n_tokens; t += 4) {
      float sums[4];
      dot_floats4(w, x + t * stride + i, stride, len, sums);
      for (size_t k = 0; k < 4; ++k) out[(t + k) * stride] += sums[k];
    }
    for (; t < n_tokens; ++t) out[t * stride] += dot_floats(w, x + t * stride + i, len);
  }
}

}  // namespace gauntlet::core
