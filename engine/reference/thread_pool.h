#pragma once
// A fixed set of worker threads for data-parallel loops. parallel_for splits [0, n) into one
// contiguous range per thread, so each index is handled by exactly one thread, in order: results
// do not depend on the number of threads.
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace gauntlet::engine::reference {

class Products;  // matmuls.h

// The pool also names the matrix products the passes run on it use: the exact reference's
// (none set) or a faster one (the cpu device's, engine/cpu/fast_products.h).
class ThreadPool {
 public:
  // 0 threads: one per hardware thread.
  explicit ThreadPool(unsigned threads = 0);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  unsigned size() const { return static_cast<unsigned>(workers_.size()) + 1; }
  void parallel_for(uint64_t n, const std::function<void(uint64_t begin, uint64_t end)>& fn);
  const Products* products() const { return products_; }
  // `products` (null: the exact ones) must outlive the passes run on this pool.
  void set_products(const Products* products) { products_ = products; }

 private:
  void work(unsigned index);

  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable start_, done_;
  const std::function<void(uint64_t, uint64_t)>* job_ = nullptr;
  uint64_t n_ = 0;
  uint64_t generation_ = 0;
  unsigned pending_ = 0;
  bool stop_ = false;
  const Products* products_ = nullptr;
};

}  // namespace gauntlet::engine::reference
