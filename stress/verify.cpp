#include "stress/verify.h"

#include <algorithm>
#include <bit>
#include <chrono>
#include <cstdio>
#include <vector>

#include "stress/across_cores.h"

namespace gauntlet::stress {

namespace {

std::string hex(uint64_t value, int width) {
  char text[32];
  std::snprintf(text, sizeof text, "0x%0*llx", width, static_cast<unsigned long long>(value));
  return text;
}

template <typename Expected>
void compare_each(const uint32_t* words, uint64_t count, uint64_t first_index, Expected expected,
                  VerifyReport& report) {
  for (uint64_t i = 0; i < count; ++i) {
    const uint32_t want = expected(first_index + i);
    if (words[i] != want) [[unlikely]] {
      ++report.errors;
      if (report.first.size() < kKeptMismatches) {
        // The byte that differs first, on a little-endian device.
        const uint64_t byte = static_cast<uint64_t>(std::countr_zero(want ^ words[i])) / 8;
        report.first.push_back({(first_index + i) * 4 + byte, want, words[i]});
      }
    }
  }
  report.words += count;
}

// Words that hold what they must are the rule: a block is first checked as one OR of
// differences (a loop the compiler vectorizes), and only a block with a difference is walked for
// its mismatches.
template <typename Expected>
void compare(const uint32_t* words, uint64_t count, uint64_t first_index, Expected expected,
             VerifyReport& report) {
  constexpr uint64_t kBlock = 4096;
  for (uint64_t at = 0; at < count; at += kBlock) {
    const uint64_t n = std::min(kBlock, count - at);
    uint32_t differ = 0;
    for (uint64_t i = 0; i < n; ++i) differ |= words[at + i] ^ expected(first_index + at + i);
    if (differ != 0) [[unlikely]] {
      compare_each(words + at, n, first_index + at, expected, report);
    } else {
      report.words += n;
    }
  }
}

}  // namespace

void VerifyReport::merge(const VerifyReport& other) {
  words += other.words;
  errors += other.errors;
  for (const auto& m : other.first) {
    if (first.size() < kKeptMismatches) first.push_back(m);
  }
}

core::Json VerifyReport::to_json() const {
  core::Json failures = core::Json::array();
  for (const auto& m : first) {
    failures.push_back({{"address", m.address},
                        {"address_hex", hex(m.address, 1)},
                        {"expected", hex(m.expected, 8)},
                        {"actual", hex(m.actual, 8)}});
  }
  return {{"words", words}, {"errors", errors}, {"first_failures", failures}};
}

std::string VerifyReport::describe() const {
  std::string text = std::to_string(errors) + " error" + (errors == 1 ? "" : "s") + " in " +
                     std::to_string(words) + " words";
  if (!first.empty()) {
    const auto& m = first.front();
    text += "; first at byte " + hex(m.address, 1) + " (" + std::to_string(m.address) +
            "): expected " + hex(m.expected, 8) + ", actual " + hex(m.actual, 8);
  }
  return text;
}

std::optional<uint64_t> parse_fault_number(const core::Options& options, const std::string& site) {
  auto text = options.fault_for(site);
  if (!text) return std::nullopt;
  try {
    size_t used = 0;
    uint64_t value = std::stoull(*text, &used, 0);
    if (used == text->size()) return value;
  } catch (...) {
  }
  return std::nullopt;
}

core::Result<PatternRunner> PatternRunner::create(backends::Device& device,
                                                  const core::Options& options) {
  auto fill = device.build(fill_kernel());
  if (!fill) return fill.error();
  auto invert = device.build(invert_kernel());
  if (!invert) return invert.error();
  return PatternRunner(device, std::move(*fill), std::move(*invert),
                       parse_fault_number(options, "stress.bitflip"));
}

core::Status PatternRunner::fill(backends::Buffer& buffer, Pattern pattern, uint32_t seed,
                                 uint32_t mask) {
  const uint64_t words = buffer.size() / 4;
  for (uint64_t start = 0; start < words; start += kMaxDispatchBytes / 4) {
    const uint64_t count = std::min<uint64_t>(kMaxDispatchBytes / 4, words - start);
    FillParams p{static_cast<uint32_t>(pattern), seed,
                 static_cast<uint32_t>(start),   static_cast<uint32_t>(start >> 32),
                 static_cast<uint32_t>(count),   mask};
    backends::DispatchArgs args;
    args.buffers = {&buffer};
    args.params = std::as_bytes(std::span(&p, 1));
    args.groups = {groups_for(count), 1, 1};
    GAUNTLET_TRY(device_->dispatch(*fill_, args));
    GAUNTLET_TRY(device_->finish());
  }
  return core::Status::ok();
}

core::Status PatternRunner::invert(backends::Buffer& buffer) {
  const uint64_t words = buffer.size() / 4;
  for (uint64_t start = 0; start < words; start += kMaxDispatchBytes / 4) {
    const uint64_t count = std::min<uint64_t>(kMaxDispatchBytes / 4, words - start);
    InvertParams p{static_cast<uint32_t>(start), static_cast<uint32_t>(start >> 32),
                   static_cast<uint32_t>(count)};
    backends::DispatchArgs args;
    args.buffers = {&buffer};
    args.params = std::as_bytes(std::span(&p, 1));
    args.groups = {groups_for(count), 1, 1};
    GAUNTLET_TRY(device_->dispatch(*invert_, args));
    GAUNTLET_TRY(device_->finish());
  }
  return core::Status::ok();
}

core::Result<VerifyReport> PatternRunner::verify(const backends::Buffer& buffer, Pattern pattern,
                                                 uint32_t seed, uint32_t mask) {
  VerifyReport report;
  const uint64_t words = buffer.size() / 4;
  const uint64_t piece = kMaxDispatchBytes / 4;
  staging_.resize(std::min(words, piece));
  for (uint64_t start = 0; start < words; start += piece) {
    const uint64_t count = std::min(piece, words - start);
    auto bytes = std::as_writable_bytes(std::span(staging_.data(), count));
    GAUNTLET_TRY(device_->download(buffer, bytes, start * 4));
    if (bitflip_ && *bitflip_ >= start * 4 && *bitflip_ < (start + count) * 4) {
      bytes[*bitflip_ - start * 4] ^= std::byte{0x01};
    }
    // Each core compares its own range into its own report; merged in address order.
    const unsigned parts = cores_for(count);
    std::vector<VerifyReport> reports(parts);
    across_cores(count, parts, [&](uint64_t begin, uint64_t end, unsigned part) {
      with_pattern(pattern, [&](auto pat) {
        compare(
            staging_.data() + begin, end - begin, start + begin,
            [=](uint64_t index) { return pattern_word(pat, seed, index) ^ mask; }, reports[part]);
      });
    });
    for (const auto& r : reports) report.merge(r);
  }
  return report;
}

core::Result<VerifyReport> PatternRunner::check(backends::Buffer& buffer, Pattern pattern,
                                                uint32_t seed) {
  GAUNTLET_TRY(fill(buffer, pattern, seed));
  return verify(buffer, pattern, seed);
}

core::Result<VerifyReport> PatternRunner::moving_inversions(backends::Buffer& buffer,
                                                            uint32_t seed) {
  auto first = check(buffer, Pattern::random, seed);
  if (!first) return first;
  GAUNTLET_TRY(invert(buffer));
  auto second = verify(buffer, Pattern::random, seed, 0xffffffffu);
  if (!second) return second;
  first->merge(*second);
  return first;
}

std::vector<core::Row> run_pattern_suite(PatternRunner& runner, backends::Buffer& buffer,
                                         const std::string& device, uint32_t seed, int passes) {
  struct Case {
    const char* name;
    std::optional<Pattern> pattern;  // none: moving inversions
  };
  const Case cases[] = {{"walking_ones", Pattern::walking_ones},
                        {"walking_zeros", Pattern::walking_zeros},
                        {"own_address", Pattern::own_address},
                        {"moving_inversions", std::nullopt},
                        {"random", Pattern::random}};
  std::vector<core::Row> rows;
  for (const auto& c : cases) {
    const auto start = std::chrono::steady_clock::now();
    core::Row row =
        core::make_row(std::string("stress.pattern.") + c.name, device, core::RowStatus::pass);
    VerifyReport total;
    for (int pass = 0; pass < passes; ++pass) {
      const uint32_t pass_seed = seed + static_cast<uint32_t>(pass) * 7919u;
      auto report = c.pattern ? runner.check(buffer, *c.pattern, pass_seed)
                              : runner.moving_inversions(buffer, pass_seed);
      if (!report) {
        row.status = core::RowStatus::error;
        row.reason = report.error().describe();
        break;
      }
      total.merge(*report);
    }
    row.metrics = total.to_json();
    row.metrics["bytes"] = buffer.size();
    row.metrics["passes"] = passes;
    row.metrics["seed"] = seed;
    if (row.status == core::RowStatus::pass && total.errors > 0) {
      row.status = core::RowStatus::fail;
      row.reason = std::string(c.name) + " on " + std::to_string(buffer.size()) + " bytes (seed " +
                   std::to_string(seed) + "): " + total.describe();
    }
    row.duration_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace gauntlet::stress
