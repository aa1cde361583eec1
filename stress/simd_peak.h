#pragma once
// The cpu device's f32 peak as its kernels run: Highway's widest FMA (dispatched at run time to
// the best instruction set, as engine/cpu's dot products are) in independent chains on every
// hardware thread at once.
#include <cstdint>

namespace gauntlet::stress {

struct SimdPeak {
  double gflops = 0;
  unsigned threads = 0;
  const char* target = "";  // Highway's name of the instruction set ("AVX2", ...)
  uint32_t lanes = 0;       // f32 lanes of one vector
};

// Grown until one run takes at least half of `target_seconds`, then the best of `reps` runs.
SimdPeak measure_simd_f32_peak(double target_seconds, int reps);

}  // namespace gauntlet::stress
