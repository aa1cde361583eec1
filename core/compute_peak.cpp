#include "core/compute_peak.h"

#include <cstdio>

namespace gauntlet::core {

namespace {

Json optional_number(const std::optional<double>& value) {
  return value ? Json(*value) : Json(nullptr);
}

std::optional<double> number_from(const Json& j, const char* key) {
  if (!j.contains(key) || j.at(key).is_null()) return std::nullopt;
  return j.at(key).get<double>();
}

std::string figure(const char* name, const std::optional<double>& value, const char* unit,
                   const std::string& reason) {
  if (!value) return std::string(name) + " " + (reason.empty() ? "not measured" : reason);
  char text[64];
  std::snprintf(text, sizeof text, "%s %.1f %s", name, *value, unit);
  return text;
}

}  // namespace

std::optional<double> ratio_to_peak(double achieved_gflops, const ComputePeak& peak) {
  if (!peak.f32_gflops || !(*peak.f32_gflops > 0)) return std::nullopt;
  return achieved_gflops / *peak.f32_gflops;
}

std::string describe(const ComputePeak& peak) {
  return figure("f32", peak.f32_gflops, "GFLOP/s", peak.f32_reason) + ", " +
         figure("f16", peak.f16_gflops, "GFLOP/s", peak.f16_reason) + ", " +
         figure("int8", peak.int8_gops, "GOP/s", peak.int8_reason);
}

void to_json(Json& j, const ComputePeak& v) {
  j = Json{{"f32_gflops", optional_number(v.f32_gflops)},
           {"f32_reason", v.f32_reason},
           {"f16_gflops", optional_number(v.f16_gflops)},
           {"f16_reason", v.f16_reason},
           {"int8_gops", optional_number(v.int8_gops)},
           {"int8_reason", v.int8_reason},
           {"method", v.method},
           {"seconds", v.seconds}};
}

void from_json(const Json& j, ComputePeak& v) {
  v.f32_gflops = number_from(j, "f32_gflops");
  v.f32_reason = j.value("f32_reason", "");
  v.f16_gflops = number_from(j, "f16_gflops");
  v.f16_reason = j.value("f16_reason", "");
  v.int8_gops = number_from(j, "int8_gops");
  v.int8_reason = j.value("int8_reason", "");
  v.method = j.value("method", "");
  v.seconds = j.value("seconds", 0.0);
}

}  // namespace gauntlet::core
