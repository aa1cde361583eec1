#pragma once
// What a SPIR-V compute module needs, read from its words (no Vulkan headers): the shared
// memory a kernel declares, so that a kernel that cannot fit is refused before a driver sees it.
#include <cstdint>
#include <map>
#include <optional>
#include <span>

namespace gauntlet::backends::vulkan {

// Bytes of Workgroup (shared) memory the module declares once its specialization constants take
// `spec_values` (SpecId -> value; others keep their defaults). nullopt when a size depends on
// something not knowable here (an OpSpecConstantOp array length, a malformed module).
std::optional<uint64_t> workgroup_memory_bytes(std::span<const uint32_t> spirv,
                                               const std::map<uint32_t, uint32_t>& spec_values);

}  // namespace gauntlet::backends::vulkan
