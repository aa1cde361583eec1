// Every input a fuzzer found a defect with (tests/fuzz/regressions/<reader>/), fed to its reader
// as the fuzz target does: each must now be refused with a message (ASan checks the reads under
// the asan preset).
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

#include "fuzz/feeds.h"

namespace gauntlet::fuzz {
namespace {

std::vector<std::filesystem::path> inputs_of(const std::string& reader) {
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(
           std::filesystem::path(GAUNTLET_SOURCE_DIR) / "tests/fuzz/regressions" / reader)) {
    if (entry.path().filename() != ".gitkeep") files.push_back(entry.path());
  }
  return files;
}

std::vector<std::byte> bytes_of(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<char> chars((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::byte> bytes(chars.size());
  std::memcpy(bytes.data(), chars.data(), chars.size());
  return bytes;
}

void expect_refused(const std::string& reader, Fed (*feed)(std::span<const std::byte>),
                    size_t expected_inputs) {
  const auto files = inputs_of(reader);
  EXPECT_EQ(files.size(), expected_inputs) << "inputs under tests/fuzz/regressions/" << reader;
  for (const auto& file : files) {
    const auto bytes = bytes_of(file);
    const Fed fed = feed(bytes);
    EXPECT_FALSE(fed.accepted) << file;
    EXPECT_FALSE(fed.error.empty()) << file;
    std::printf("%s: refused: %s\n", file.filename().c_str(), fed.error.c_str());
  }
}

TEST(FuzzRegressions, Journal) { expect_refused("journal", feed_journal, 2); }
TEST(FuzzRegressions, Simulate) { expect_refused("simulate", feed_simulate, 2); }
TEST(FuzzRegressions, Report) { expect_refused("report", feed_report, 1); }
TEST(FuzzRegressions, Gguf) { expect_refused("gguf", feed_gguf, 1); }

}  // namespace
}  // namespace gauntlet::fuzz
