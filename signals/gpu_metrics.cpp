#include "signals/gpu_metrics.h"

#include <cstring>

#include "signals/gpu_metrics_layout.h"

namespace gauntlet::signals {

namespace {

// The kernel fills a field its firmware does not report with all ones
// (smu_cmn_init_soft_gpu_metrics sets the whole table to 0xff first).
std::optional<double> present(uint16_t value, double scale = 1.0) {
  if (value == 0xffff) return std::nullopt;
  return value * scale;
}

void put(std::map<std::string, double>& into, const char* name, std::optional<double> value) {
  if (value) into[name] = *value;
}

template <typename T>
T copy_of(std::span<const std::byte> bytes) {
  T value;
  std::memcpy(&value, bytes.data(), sizeof(T));
  return value;
}

// v1.x: discrete GPUs, temperatures in degrees Celsius and power in watts (the units the kernel's
// comments name for v1.4 and that the v1.x producers, smu_v11/v13, copy from their firmware).
template <typename T>
GpuMetrics decode_v1(const T& m) {
  GpuMetrics out;
  put(out.temperatures_c, "edge", present(m.temperature_edge));
  put(out.temperatures_c, "junction", present(m.temperature_hotspot));
  put(out.temperatures_c, "mem", present(m.temperature_mem));
  out.socket_power_w = present(m.average_socket_power);
  out.gfx_activity_percent = present(m.average_gfx_activity);
  put(out.clocks_mhz, "gfx", present(m.clocks.current_gfxclk));
  put(out.clocks_mhz, "soc", present(m.clocks.current_socclk));
  put(out.clocks_mhz, "mem", present(m.clocks.current_uclk));
  if (m.throttle_status != 0xffffffffu) out.throttle_status = m.throttle_status;
  return out;
}

// v2.x: APUs, temperatures in centi-degrees Celsius and power in milliwatts (the units v2.4's
// comments name; the v2.x producers, renoir and vangogh, copy them from their firmware).
template <typename T>
GpuMetrics decode_v2(const T& m) {
  GpuMetrics out;
  put(out.temperatures_c, "gfx", present(m.temperature_gfx, 0.01));
  put(out.temperatures_c, "soc", present(m.temperature_soc, 0.01));
  out.socket_power_w = present(m.power.average_socket_power, 0.001);
  out.gfx_activity_percent = present(m.average_gfx_activity);
  put(out.clocks_mhz, "gfx", present(m.clocks.current_gfxclk));
  put(out.clocks_mhz, "soc", present(m.clocks.current_socclk));
  put(out.clocks_mhz, "mem", present(m.clocks.current_uclk));
  put(out.clocks_mhz, "fclk", present(m.clocks.current_fclk));
  if (m.throttle_status != 0xffffffffu) out.throttle_status = m.throttle_status;
  return out;
}

template <typename T>
std::optional<uint64_t> indep(const T& m) {
  if (m.indep_throttle_status == ~uint64_t{0}) return std::nullopt;
  return m.indep_throttle_status;
}

template <typename T, typename Decode>
core::Result<GpuMetrics> decode_as(std::span<const std::byte> bytes, const std::string& version,
                                   Decode decode) {
  if (bytes.size() != sizeof(T)) {
    return core::invalid_argument("gpu_metrics " + version + " is " + std::to_string(sizeof(T)) +
                                  " bytes in the kernel's layout, the file has " +
                                  std::to_string(bytes.size()));
  }
  return decode(copy_of<T>(bytes));
}

}  // namespace

core::Result<GpuMetrics> decode_gpu_metrics(std::span<const std::byte> bytes) {
  if (bytes.size() < sizeof(amd::Header)) {
    return core::invalid_argument("gpu_metrics too short: " + std::to_string(bytes.size()) +
                                  " bytes, its header alone is 4");
  }
  const auto header = copy_of<amd::Header>(bytes);
  if (header.structure_size != bytes.size()) {
    return core::invalid_argument("gpu_metrics header says " +
                                  std::to_string(header.structure_size) + " bytes, the file has " +
                                  std::to_string(bytes.size()));
  }
  const int format = header.format_revision;
  const int content = header.content_revision;
  const std::string version = std::to_string(format) + "." + std::to_string(content);
  core::Result<GpuMetrics> decoded =
      core::invalid_argument("gpu_metrics format " + version + " not known");
  if (format == 1 && content == 0) {
    decoded = decode_as<amd::V1_0>(bytes, version, [](const auto& m) { return decode_v1(m); });
  } else if (format == 1 && content == 1) {
    decoded = decode_as<amd::V1_1>(bytes, version, [](const auto& m) { return decode_v1(m); });
  } else if (format == 1 && content == 2) {
    decoded = decode_as<amd::V1_2>(bytes, version, [](const auto& m) { return decode_v1(m); });
  } else if (format == 1 && content == 3) {
    decoded = decode_as<amd::V1_3>(bytes, version, [](const auto& m) {
      GpuMetrics out = decode_v1(m);
      out.indep_throttle_status = indep(m);
      return out;
    });
  } else if (format == 2 && content == 0) {
    decoded = decode_as<amd::V2_0>(bytes, version, [](const auto& m) { return decode_v2(m); });
  } else if (format == 2 && content == 1) {
    decoded = decode_as<amd::V2_1>(bytes, version, [](const auto& m) { return decode_v2(m); });
  } else if (format == 2 && content >= 2 && content <= 4) {
    const auto with_indep = [](const auto& m) {
      GpuMetrics out = decode_v2(m);
      out.indep_throttle_status = indep(m);
      return out;
    };
    if (content == 2) decoded = decode_as<amd::V2_2>(bytes, version, with_indep);
    if (content == 3) decoded = decode_as<amd::V2_3>(bytes, version, with_indep);
    if (content == 4) decoded = decode_as<amd::V2_4>(bytes, version, with_indep);
  }
  if (decoded) {
    decoded->format_revision = format;
    decoded->content_revision = content;
  }
  return decoded;
}

std::string smu_throttler_name(int bit) {
  static const std::map<int, const char*> names = {
      {0, "ppt0"},          {1, "ppt1"},          {2, "ppt2"},          {3, "ppt3"},
      {4, "spl"},           {5, "fppt"},          {6, "sppt"},          {7, "sppt_apu"},
      {16, "tdc_gfx"},      {17, "tdc_soc"},      {18, "tdc_mem"},      {19, "tdc_vdd"},
      {20, "tdc_cvip"},     {21, "edc_cpu"},      {22, "edc_gfx"},      {23, "apcc"},
      {32, "temp_gpu"},     {33, "temp_core"},    {34, "temp_mem"},     {35, "temp_edge"},
      {36, "temp_hotspot"}, {37, "temp_soc"},     {38, "temp_vr_gfx"},  {39, "temp_vr_soc"},
      {40, "temp_vr_mem0"}, {41, "temp_vr_mem1"}, {42, "temp_liquid0"}, {43, "temp_liquid1"},
      {44, "vrhot0"},       {45, "vrhot1"},       {46, "prochot_cpu"},  {47, "prochot_gfx"},
      {56, "ppm"},          {57, "fit"}};
  const auto it = names.find(bit);
  return it != names.end() ? it->second : "bit" + std::to_string(bit);
}

std::vector<std::string> GpuMetrics::throttle_reasons() const {
  std::vector<std::string> reasons;
  if (indep_throttle_status) {
    for (int bit = 0; bit < 64; ++bit) {
      if ((*indep_throttle_status >> bit) & 1u) reasons.push_back(smu_throttler_name(bit));
    }
  } else if (throttle_status && *throttle_status != 0) {
    reasons.push_back("asic_dependent");
  }
  return reasons;
}

}  // namespace gauntlet::signals
