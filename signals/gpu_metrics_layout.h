#pragma once
// The binary layouts of amdgpu's gpu_metrics file, as the kernel declares them in
// drivers/gpu/drm/amd/include/kgd_pp_interface.h (struct metrics_table_header, gpu_metrics_v1_0
// .. v1_3 for discrete GPUs, v2_0 .. v2_4 for APUs), with the C alignment the kernel compiles
// them with. Only gpu_metrics.cpp includes this.
#include <cstdint>

namespace gauntlet::signals::amd {

struct Header {
  uint16_t structure_size;
  uint8_t format_revision;
  uint8_t content_revision;
};

// The fields v1.0 .. v1.3 share after their first differences.
struct V1Clocks {
  uint16_t average_gfxclk_frequency, average_socclk_frequency, average_uclk_frequency;
  uint16_t average_vclk0_frequency, average_dclk0_frequency, average_vclk1_frequency;
  uint16_t average_dclk1_frequency;
  uint16_t current_gfxclk, current_socclk, current_uclk, current_vclk0, current_dclk0;
  uint16_t current_vclk1, current_dclk1;
};

struct V1_0 {
  Header header;
  uint64_t system_clock_counter;
  uint16_t temperature_edge, temperature_hotspot, temperature_mem;
  uint16_t temperature_vrgfx, temperature_vrsoc, temperature_vrmem;
  uint16_t average_gfx_activity, average_umc_activity, average_mm_activity;
  uint16_t average_socket_power;
  uint32_t energy_accumulator;
  V1Clocks clocks;
  uint32_t throttle_status;
  uint16_t current_fan_speed;
  uint8_t pcie_link_width, pcie_link_speed;
};

struct V1_1 {
  Header header;
  uint16_t temperature_edge, temperature_hotspot, temperature_mem;
  uint16_t temperature_vrgfx, temperature_vrsoc, temperature_vrmem;
  uint16_t average_gfx_activity, average_umc_activity, average_mm_activity;
  uint16_t average_socket_power;
  uint64_t energy_accumulator;
  uint64_t system_clock_counter;
  V1Clocks clocks;
  uint32_t throttle_status;
  uint16_t current_fan_speed;
  uint16_t pcie_link_width, pcie_link_speed;
  uint16_t padding;
  uint32_t gfx_activity_acc, mem_activity_acc;
  uint16_t temperature_hbm[4];
};

struct V1_2 : V1_1 {
  uint64_t firmware_timestamp;
};

struct V1_3 : V1_2 {
  uint16_t voltage_soc, voltage_gfx, voltage_mem;
  uint16_t padding1;
  uint64_t indep_throttle_status;
};

struct V2Clocks {
  uint16_t average_gfxclk_frequency, average_socclk_frequency, average_uclk_frequency;
  uint16_t average_fclk_frequency, average_vclk_frequency, average_dclk_frequency;
  uint16_t current_gfxclk, current_socclk, current_uclk, current_fclk, current_vclk;
  uint16_t current_dclk;
  uint16_t current_coreclk[8];
  uint16_t current_l3clk[2];
};

struct V2Power {
  uint16_t average_socket_power, average_cpu_power, average_soc_power, average_gfx_power;
  uint16_t average_core_power[8];
};

struct V2_0 {
  Header header;
  uint64_t system_clock_counter;
  uint16_t temperature_gfx, temperature_soc;
  uint16_t temperature_core[8];
  uint16_t temperature_l3[2];
  uint16_t average_gfx_activity, average_mm_activity;
  V2Power power;
  V2Clocks clocks;
  uint32_t throttle_status;
  uint16_t fan_pwm;
  uint16_t padding;
};

struct V2_1 {
  Header header;
  uint16_t temperature_gfx, temperature_soc;
  uint16_t temperature_core[8];
  uint16_t temperature_l3[2];
  uint16_t average_gfx_activity, average_mm_activity;
  uint64_t system_clock_counter;
  V2Power power;
  V2Clocks clocks;
  uint32_t throttle_status;
  uint16_t fan_pwm;
  uint16_t padding[3];
};

struct V2_2 : V2_1 {
  uint64_t indep_throttle_status;
};

struct V2_3 : V2_2 {
  uint16_t average_temperature_gfx, average_temperature_soc;
  uint16_t average_temperature_core[8];
  uint16_t average_temperature_l3[2];
};

struct V2_4 : V2_3 {
  uint16_t average_cpu_voltage, average_soc_voltage, average_gfx_voltage;
  uint16_t average_cpu_current, average_soc_current, average_gfx_current;
};

// The sizes the kernel's structs have on x86-64 and arm64 (structure_size in their headers).
static_assert(sizeof(V1_0) == 80 && sizeof(V1_1) == 96 && sizeof(V1_2) == 104);
static_assert(sizeof(V1_3) == 120);
static_assert(sizeof(V2_0) == 120 && sizeof(V2_1) == 120 && sizeof(V2_2) == 128);
static_assert(sizeof(V2_3) == 152 && sizeof(V2_4) == 168);

}  // namespace gauntlet::signals::amd
