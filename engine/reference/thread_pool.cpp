#include "engine/reference/thread_pool.h"

#include <algorithm>

namespace gauntlet::engine::reference {

namespace {
std::pair<uint64_t, uint64_t> range_of(uint64_t n, unsigned parts, unsigned index) {
  return {n * index / parts, n * (index + 1) / parts};
}
}  // namespace

ThreadPool::ThreadPool(unsigned threads) {
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  for (unsigned i = 1; i < threads; ++i) workers_.emplace_back([this, i] { work(i); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  start_.notify_all();
  for (auto& t : workers_) t.join();
}

void ThreadPool::work(unsigned index) {
  uint64_t seen = 0;
  for (;;) {
    const std::function<void(uint64_t, uint64_t)>* job;
    uint64_t n;
    {
      std::unique_lock lock(mutex_);
      start_.wait(lock, [&] { return stop_ || generation_ != seen; });
      if (stop_) return;
      seen = generation_;
      job = job_;
      n = n_;
    }
    auto [begin, end] = range_of(n, size(), index);
    if (begin < end) (*job)(begin, end);
    {
      std::lock_guard lock(mutex_);
      if (--pending_ == 0) done_.notify_one();
    }
  }
}

void ThreadPool::parallel_for(uint64_t n,
                              const std::function<void(uint64_t begin, uint64_t end)>& fn) {
  if (workers_.empty() || n < 2) {
    if (n > 0) fn(0, n);
    return;
  }
  {
    std::lock_guard lock(mutex_);
    job_ = &fn;
    n_ = n;
    pending_ = static_cast<unsigned>(workers_.size());
    ++generation_;
  }
  start_.notify_all();
  auto [begin, end] = range_of(n, size(), 0);
  if (begin < end) fn(begin, end);
  std::unique_lock lock(mutex_);
  done_.wait(lock, [&] { return pending_ == 0; });
}

}  // namespace gauntlet::engine::reference
