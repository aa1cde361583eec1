#pragma once
// Little-endian 16-bit loads and stores at any alignment, for the block codecs.
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace gauntlet::core::types {

inline uint16_t load_u16(const std::byte* p) {
  uint16_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

inline void store_u16(std::byte* p, uint16_t v) { std::memcpy(p, &v, sizeof v); }

}  // namespace gauntlet::core::types
