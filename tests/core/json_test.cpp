#include "core/json.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "tests/support/temp_dir.h"

namespace gauntlet::core {
namespace {

TEST(Json, ParseErrorNamesTheSourceAndByte) {
  auto parsed = parse_json("{\"a\": [1, 2", "report.json");
  ASSERT_FALSE(parsed.is_ok());
  EXPECT_EQ(parsed.error().kind, ErrorKind::invalid_argument);
  EXPECT_NE(parsed.error().message.find("report.json"), std::string::npos);
  EXPECT_NE(parsed.error().message.find("byte"), std::string::npos);
}

TEST(Json, AtomicWriteReplacesAndLeavesNoTemporary) {
  gauntlet::testing::TempDir dir("json");
  auto file = dir / "out.json";
  ASSERT_TRUE(write_file_atomically(file, "first").is_ok());
  ASSERT_TRUE(write_file_atomically(file, "second").is_ok());
  EXPECT_EQ(read_text_file(file).value(), "second");
  size_t entries = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir.path())) ++entries;
  EXPECT_EQ(entries, 1u);
}

TEST(Json, AtomicWriteIntoAMissingFolderFailsCleanly) {
  auto status = write_file_atomically("/nonexistent-folder/x/out.json", "x");
  ASSERT_FALSE(status.is_ok());
  EXPECT_NE(status.error().message.find("/nonexistent-folder/x"), std::string::npos);
}

}  // namespace
}  // namespace gauntlet::core
