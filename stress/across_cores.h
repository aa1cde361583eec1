#pragma once
// Splits [0, count) into one contiguous range per core and runs f(begin, end, part) on each, the
// last range on the calling thread. The stress's host-side passes (the host backend's pattern
// fill, every device's verification) stream a gigabyte at the quick level; one core left the
// other idle.
#include <algorithm>
#include <cstdint>
#include <thread>
#include <vector>

namespace gauntlet::stress {

inline unsigned cores_for(uint64_t count) {
  // Below this many words a thread costs more than it saves.
  constexpr uint64_t kMinPerCore = uint64_t{1} << 20;
  const uint64_t useful = std::max<uint64_t>(1, count / kMinPerCore);
  return static_cast<unsigned>(
      std::min<uint64_t>(useful, std::max(1u, std::thread::hardware_concurrency())));
}

template <typename F>
void across_cores(uint64_t count, unsigned parts, F&& f) {
  std::vector<std::thread> threads;
  const uint64_t per = (count + parts - 1) / parts;
  for (unsigned part = 0; part + 1 < parts; ++part) {
    threads.emplace_back([&f, part, per, count] {
      f(std::min(count, part * per), std::min(count, (part + 1) * per), part);
    });
  }
  f(std::min(count, (parts - 1) * per), count, parts - 1);
  for (auto& t : threads) t.join();
}

}  // namespace gauntlet::stress
