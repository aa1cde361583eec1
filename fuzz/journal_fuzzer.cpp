// libFuzzer target: the journal reader (fuzz/feeds.cpp).
#include <cstddef>
#include <cstdint>

#include "fuzz/feeds.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  (void)gauntlet::fuzz::feed_journal({reinterpret_cast<const std::byte*>(data), size});
  return 0;
}
