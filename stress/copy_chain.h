#pragma once
// A copy cut into a chain of dispatches, one after the other and finished once: the time a device
// takes to move a pass's bytes when it must launch as many kernels as the pass does. Where each
// launch costs its own wake-up and barrier (llvmpipe starts and joins its threads per dispatch),
// that cost, and what a busy core adds to it, is part of every decode's time and of this
// reference's alike; a copy in one dispatch has neither.
#include <cstdint>
#include <memory>
#include <vector>

#include "backends/device.h"
#include "stress/kernels.h"

namespace gauntlet::stress {

class CopyChain {
 public:
  // `bytes` moved in all (read and written, as Bandwidth counts a copy) by `dispatches` copies,
  // each between a pair of buffers of its own. The sources are written once here, and the launch
  // shape chosen: the fastest of bandwidth_launches' shapes, each run three times.
  static core::Result<CopyChain> allocate(backends::Device& device, uint64_t bytes,
                                          uint32_t dispatches);

  // One run of the chain in its shape: one sample, as one pass of the path is (the best of several
  // would find the quiet moments of a busy core more often than the path it is compared with).
  core::Result<double> seconds();

  uint64_t bytes() const { return bytes_; }
  uint32_t dispatches() const { return static_cast<uint32_t>(sources_.size()); }
  const backends::Buffer& source(uint32_t d) const { return *sources_.at(d); }
  const backends::Buffer& destination(uint32_t d) const { return *destinations_.at(d); }

 private:
  explicit CopyChain(backends::Device& device) : device_(&device) {}
  core::Result<double> run(const BwLaunch& launch);

  backends::Device* device_;
  std::unique_ptr<backends::Kernel> copy_;
  BwLaunch launch_{};
  std::vector<std::unique_ptr<backends::Buffer>> sources_, destinations_;
  uint64_t bytes_ = 0;
};

}  // namespace gauntlet::stress
