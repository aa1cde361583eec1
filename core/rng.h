#pragma once
// A small, seedable, platform-independent generator (splitmix64), so that a seed in a failure
// message reproduces the same inputs on any machine.
#include <cstdint>

namespace gauntlet::core {

class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}

  uint64_t next_u64() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  uint32_t next_u32() { return static_cast<uint32_t>(next_u64() >> 32); }
  // Uniform in [lo, hi).
  float uniform(float lo, float hi) {
    return lo + (hi - lo) * static_cast<float>(next_u64() >> 40) * (1.0f / 16777216.0f);
  }

 private:
  uint64_t state_;
};

}  // namespace gauntlet::core
