#include "engine/device/reference_memo.h"

#include <algorithm>
#include <deque>
#include <functional>
#include <mutex>
#include <string_view>
#include <utility>

namespace gauntlet::engine::device {

namespace {

constexpr size_t kKeptRuns = 8;
// A real model's vocabulary (262144 logits) makes one run of a 512-token pass tens of MiB.
constexpr size_t kKeptFloats = size_t{64} << 20 >> 2;
constexpr size_t kSamples = 64, kSampleBytes = 4096;

struct Memo {
  std::mutex mutex;
  std::deque<std::pair<std::string, ReferenceRun>> runs;
};

Memo& memo() {
  static Memo m;
  return m;
}

// Hashes the whole header (every key and tensor description) and 64 windows of 4 KiB spread over
// the tensor data (all of it when smaller): files made with another seed, type or shape differ
// throughout their data, and a many-GiB file is not read whole.
uint64_t sample_hash(std::span<const std::byte> bytes, uint64_t data_offset) {
  const auto hash = [&](size_t at, size_t n) {
    return std::hash<std::string_view>{}(
        std::string_view(reinterpret_cast<const char*>(bytes.data()) + at, n));
  };
  const size_t header = std::min<size_t>(data_offset, bytes.size());
  uint64_t h = hash(0, header);
  const size_t data = bytes.size() - header;
  if (data <= kSamples * kSampleBytes) return h * 1099511628211ull ^ hash(header, data);
  const size_t stride = (data - kSampleBytes) / (kSamples - 1);
  for (size_t i = 0; i < kSamples; ++i) {
    h = h * 1099511628211ull ^ hash(header + i * stride, kSampleBytes);
  }
  return h;
}

}  // namespace

std::string reference_key(const model::GgufFile& file, std::span<const uint64_t> parts) {
  std::string key = file.path().string() + '|' + std::to_string(file.bytes().size()) + '|' +
                    std::to_string(sample_hash(file.bytes(), file.info().data_offset));
  for (uint64_t p : parts) key += '|' + std::to_string(p);
  return key;
}

std::optional<ReferenceRun> find_reference_run(const std::string& key) {
  auto& m = memo();
  std::lock_guard lock(m.mutex);
  for (const auto& [k, run] : m.runs) {
    if (k == key) return run;
  }
  return std::nullopt;
}

size_t floats_of(const ReferenceRun& run) {
  size_t n = 0;
  for (const auto& l : run.logits) n += l.size();
  return n;
}

void keep_reference_run(const std::string& key, ReferenceRun run) {
  auto& m = memo();
  std::lock_guard lock(m.mutex);
  m.runs.emplace_back(key, std::move(run));
  size_t kept = 0;
  for (const auto& [k, r] : m.runs) kept += floats_of(r);
  while (m.runs.size() > 1 && (m.runs.size() > kKeptRuns || kept > kKeptFloats)) {
    kept -= floats_of(m.runs.front().second);
    m.runs.pop_front();
  }
}

}  // namespace gauntlet::engine::device
