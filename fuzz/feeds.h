#pragma once
// One function per reader of outside input: it reads the bytes as gauntlet reads such a file and
// uses what reads as the commands do. The libFuzzer targets call them; so does the regression
// test (tests/fuzz), with the inputs the fuzzers found.
#include <cstddef>
#include <span>
#include <string>

namespace gauntlet::fuzz {

struct Fed {
  bool accepted = false;
  std::string error;  // why the reader refused the input
};

Fed feed_gguf(std::span<const std::byte> bytes);
Fed feed_report(std::span<const std::byte> bytes);
Fed feed_journal(std::span<const std::byte> bytes);
Fed feed_simulate(std::span<const std::byte> bytes);
Fed feed_gpu_metrics(std::span<const std::byte> bytes);
Fed feed_kmsg(std::span<const std::byte> bytes);

}  // namespace gauntlet::fuzz
