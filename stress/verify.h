#pragma once
// Writing patterns on the device and checking them on the host, memtest style: every mismatch
// counts, and the first ones are kept with their byte address, expected and actual words.
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "backends/device.h"
#include "core/options.h"
#include "core/outcome.h"
#include "stress/kernels.h"

namespace gauntlet::stress {

// Work per dispatch and per read-back, so that no kernel runs long enough for a GPU watchdog.
// One word per work-item within the 65535 workgroups every Vulkan device allows (about 16 MiB):
// CPU drivers vectorise across work-items only without a per-item loop.
inline constexpr uint64_t kMaxDispatchBytes = uint64_t{kMaxGroups} * kWorkgroup * 4;

struct Mismatch {
  uint64_t address = 0;  // byte offset in the buffer of the first byte that differs
  uint32_t expected = 0;
  uint32_t actual = 0;
};

struct VerifyReport {
  uint64_t words = 0;
  uint64_t errors = 0;
  std::vector<Mismatch> first;  // at most kKeptMismatches

  void merge(const VerifyReport& other);
  core::Json to_json() const;
  // "2 errors in 262144 words; first at byte 0x1000: expected 0x00000001, actual 0x00000003"
  std::string describe() const;
};

inline constexpr size_t kKeptMismatches = 8;

class PatternRunner {
 public:
  // Builds the fill and invert kernels on `device`. The test fault "stress.bitflip=<byte
  // address>" in `options` flips one bit of every read-back at that buffer address.
  static core::Result<PatternRunner> create(backends::Device& device, const core::Options& options);

  core::Status fill(backends::Buffer& buffer, Pattern pattern, uint32_t seed, uint32_t mask = 0);
  core::Status invert(backends::Buffer& buffer);
  core::Result<VerifyReport> verify(const backends::Buffer& buffer, Pattern pattern, uint32_t seed,
                                    uint32_t mask = 0);
  // Fill then verify.
  core::Result<VerifyReport> check(backends::Buffer& buffer, Pattern pattern, uint32_t seed);
  // Moving inversions: a random pattern, verified; complemented in place on the device, verified.
  core::Result<VerifyReport> moving_inversions(backends::Buffer& buffer, uint32_t seed);

 private:
  PatternRunner(backends::Device& device, std::unique_ptr<backends::Kernel> fill,
                std::unique_ptr<backends::Kernel> invert, std::optional<uint64_t> bitflip)
      : device_(&device), fill_(std::move(fill)), invert_(std::move(invert)), bitflip_(bitflip) {}

  backends::Device* device_;
  std::unique_ptr<backends::Kernel> fill_;
  std::unique_ptr<backends::Kernel> invert_;
  std::optional<uint64_t> bitflip_;
  std::vector<uint32_t> staging_;
};

// The whole suite on one buffer: walking ones, walking zeros, own address, moving inversions,
// seeded random; `passes` repeats it with other seeds. One row per pattern, id
// "stress.pattern.<name>", with errors and first failures in the metrics.
std::vector<core::Row> run_pattern_suite(PatternRunner& runner, backends::Buffer& buffer,
                                         const std::string& device, uint32_t seed, int passes);

std::optional<uint64_t> parse_fault_number(const core::Options& options, const std::string& site);

}  // namespace gauntlet::stress
