// libFuzzer target: the amdgpu gpu_metrics decoder (fuzz/feeds.cpp).
#include <cstddef>
#include <cstdint>

#include "fuzz/feeds.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  (void)gauntlet::fuzz::feed_gpu_metrics({reinterpret_cast<const std::byte*>(data), size});
  return 0;
}
