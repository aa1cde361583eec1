#pragma once
// Error bounds and failure evidence: ULP distance, NMSE, hex-float text, and the CTS-style
// description of a mismatch (index, inputs, expected, actual, seed).
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace gauntlet::conformance {

// Distance in units in the last place between two values of one format, counting the
// representable values between them. +0 and -0 are 0 apart; inf is one step past the largest
// finite value; two NaNs are 0 apart; a NaN and a non-NaN are UINT64_MAX apart.
uint64_t ulp_distance(float a, float b);
uint64_t ulp_distance(double a, double b);
uint64_t ulp_distance_f16(uint16_t a, uint16_t b);
uint64_t ulp_distance_bf16(uint16_t a, uint16_t b);

// Normalised mean squared error: sum (actual - expected)^2 / sum expected^2. Infinite when an
// actual value is NaN or infinite where the expected one is not; when every expected value is
// 0, the plain sum of squared actual values.
double nmse(std::span<const double> expected, std::span<const double> actual);

// "0x1.8p+0 (1.5)"; 16-bit formats show their bits too: "0x3e00 = 0x1.8p+0 (1.5)".
std::string hex_float(double value);
std::string hex_float(float value);
std::string hex_f16(uint16_t bits);
std::string hex_bf16(uint16_t bits);

struct Mismatch {
  size_t index = 0;
  std::vector<std::pair<std::string, std::string>> inputs;  // name, value text
  std::string expected;
  std::string actual;
  std::string bound;  // e.g. "ulp 3 > 0"
  uint64_t seed = 0;
};

// "index 17: a = 0x1.8p+0 (1.5), b = ...; expected 0x1.2p+1 (2.25), actual 0x1.3p+1 (2.375)
//  (ulp 1 > 0); seed 0x2a"
std::string describe(const Mismatch& m);

}  // namespace gauntlet::conformance
