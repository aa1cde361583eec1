#include "conformance/compare.h"

#include <bit>
#include <cmath>
#include <cstdio>
#include <limits>

#include "core/half.h"

namespace gauntlet::conformance {

namespace {

// Maps the bits of a sign-magnitude float onto a line where neighbours differ by one and both
// zeros meet at 0.
int64_t ordered(uint64_t bits, int sign_bit) {
  const uint64_t sign = uint64_t{1} << sign_bit;
  const auto magnitude = static_cast<int64_t>(bits & (sign - 1));
  return (bits & sign) != 0 ? -magnitude : magnitude;
}

uint64_t distance(int64_t a, int64_t b) {
  return a > b ? static_cast<uint64_t>(a) - static_cast<uint64_t>(b)
               : static_cast<uint64_t>(b) - static_cast<uint64_t>(a);
}

constexpr uint64_t kNanApart = std::numeric_limits<uint64_t>::max();

std::string value_text(double value, const char* hex) {
  char plain[64];
  std::snprintf(plain, sizeof plain, "%.9g", value);
  return std::string(hex) + " (" + plain + ")";
}

}  // namespace

uint64_t ulp_distance(float a, float b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b) ? 0 : kNanApart;
  return distance(ordered(std::bit_cast<uint32_t>(a), 31), ordered(std::bit_cast<uint32_t>(b), 31));
}

uint64_t ulp_distance(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b) ? 0 : kNanApart;
  return distance(ordered(std::bit_cast<uint64_t>(a), 63), ordered(std::bit_cast<uint64_t>(b), 63));
}

uint64_t ulp_distance_f16(uint16_t a, uint16_t b) {
  const bool nan_a = (a & 0x7fff) > 0x7c00, nan_b = (b & 0x7fff) > 0x7c00;
  if (nan_a || nan_b) return nan_a && nan_b ? 0 : kNanApart;
  return distance(ordered(a, 15), ordered(b, 15));
}

uint64_t ulp_distance_bf16(uint16_t a, uint16_t b) {
  const bool nan_a = (a & 0x7fff) > 0x7f80, nan_b = (b & 0x7fff) > 0x7f80;
  if (nan_a || nan_b) return nan_a && nan_b ? 0 : kNanApart;
  return distance(ordered(a, 15), ordered(b, 15));
}

double nmse(std::span<const double> expected, std::span<const double> actual) {
  double err = 0.0, ref = 0.0;
  const size_t n = std::min(expected.size(), actual.size());
  for (size_t i = 0; i < n; ++i) {
    if (!std::isfinite(actual[i]) && std::isfinite(expected[i])) {
      return std::numeric_limits<double>::infinity();
    }
    if (std::isnan(actual[i]) != std::isnan(expected[i])) {
      return std::numeric_limits<double>::infinity();
    }
    if (!std::isfinite(expected[i])) {
      if (actual[i] != expected[i] && !(std::isnan(actual[i]) && std::isnan(expected[i]))) {
        return std::numeric_limits<double>::infinity();
      }
      continue;
    }
    const double d = actual[i] - expected[i];
    err += d * d;
    ref += expected[i] * expected[i];
  }
  return ref > 0.0 ? err / ref : err;
}

std::string hex_float(double value) {
  char hex[64];
  std::snprintf(hex, sizeof hex, "%a", value);
  return value_text(value, hex);
}

std::string hex_float(float value) { return hex_float(static_cast<double>(value)); }

std::string hex_f16(uint16_t bits) {
  char prefix[16];
  std::snprintf(prefix, sizeof prefix, "0x%04x = ", bits);
  return prefix + hex_float(core::f16_to_f32(bits));
}

std::string hex_bf16(uint16_t bits) {
  char prefix[16];
  std::snprintf(prefix, sizeof prefix, "0x%04x = ", bits);
  return prefix + hex_float(core::bf16_to_f32(bits));
}

std::string describe(const Mismatch& m) {
  std::string text = "index " + std::to_string(m.index) + ":";
  for (size_t i = 0; i < m.inputs.size(); ++i) {
    text += (i == 0 ? " " : ", ") + m.inputs[i].first + " = " + m.inputs[i].second;
  }
  text += (m.inputs.empty() ? " " : "; ") + std::string("expected ") + m.expected + ", actual " +
          m.actual;
  if (!m.bound.empty()) text += " (" + m.bound + ")";
  char seed[32];
  std::snprintf(seed, sizeof seed, "0x%llx", static_cast<unsigned long long>(m.seed));
  return text + "; seed " + seed;
}

}  // namespace gauntlet::conformance
