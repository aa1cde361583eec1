#include "signals/sampler.h"

namespace gauntlet::signals {

Sampler::Sampler(std::vector<const DeviceSignals*> devices, SamplerOptions options)
    : devices_(std::move(devices)), options_(options) {}

Sampler::~Sampler() {
  if (thread_.joinable()) (void)stop();
}

void Sampler::start() {
  if (thread_.joinable()) return;
  builders_.clear();
  for (const auto* device : devices_) builders_.emplace_back(device->device, options_.max_series);
  stopping_ = false;
  started_ = std::chrono::steady_clock::now();
  sample_all();
  thread_ = std::thread([this] { run(); });
}

void Sampler::sample_all() {
  for (size_t i = 0; i < devices_.size(); ++i) {
    const Snapshot snapshot = devices_[i]->snapshot();
    const std::chrono::duration<double> since = std::chrono::steady_clock::now() - started_;
    builders_[i].add(snapshot, since.count());
  }
}

void Sampler::run() {
  std::unique_lock lock(mutex_);
  auto next = std::chrono::steady_clock::now() + options_.interval;
  while (!wake_.wait_until(lock, next, [this] { return stopping_; })) {
    lock.unlock();
    sample_all();
    lock.lock();
    next += options_.interval;
    // A reading slower than the interval does not queue up readings behind it.
    const auto now = std::chrono::steady_clock::now();
    if (next < now) next = now + options_.interval;
  }
}

std::vector<DeviceSummary> Sampler::stop() {
  std::vector<DeviceSummary> summaries;
  if (!thread_.joinable()) {
    for (const auto* device : devices_) {
      DeviceSummary empty;
      empty.device = device->device;
      summaries.push_back(std::move(empty));
    }
    return summaries;
  }
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
  sample_all();
  for (const auto& builder : builders_) summaries.push_back(builder.summary());
  return summaries;
}

}  // namespace gauntlet::signals
