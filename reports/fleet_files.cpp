// Merging report files into a fleet report: files are read and parsed a batch at a time on every
// core, then folded in on this thread in the order given, so memory holds one batch of parsed
// reports at most.
#include <algorithm>
#include <atomic>
#include <thread>

#include "reports/fleet.h"

namespace gauntlet::reports {

namespace {

constexpr size_t kBatch = 64;

}  // namespace

FleetReport merge_report_files(const std::vector<std::string>& files, double threshold) {
  FleetBuilder builder(threshold);
  const size_t threads = std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::optional<core::Result<FleetInput>>> batch(kBatch);
  for (size_t start = 0; start < files.size(); start += kBatch) {
    const size_t count = std::min(kBatch, files.size() - start);
    std::atomic<size_t> next{0};
    auto work = [&] {
      for (size_t i = next++; i < count; i = next++) batch[i] = read_fleet_input(files[start + i]);
    };
    std::vector<std::thread> pool;
    for (size_t t = 1; t < std::min(threads, count); ++t) pool.emplace_back(work);
    work();
    for (auto& t : pool) t.join();
    for (size_t i = 0; i < count; ++i) {
      if (*batch[i]) {
        builder.add(files[start + i], **batch[i]);
      } else {
        builder.skip(files[start + i], batch[i]->error().describe());
      }
      batch[i].reset();
    }
  }
  return builder.finish();
}

}  // namespace gauntlet::reports
