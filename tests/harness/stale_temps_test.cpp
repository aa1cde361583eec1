#include "harness/stale_temps.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <string>
#include <vector>

#include "tests/support/temp_dir.h"

namespace gauntlet::harness {
namespace {

TEST(StaleTemps, TheTemporariesOfAKilledRunAreRemovedAndNothingElse) {
  gauntlet::testing::TempDir folder("stale");
  const auto& dir = folder.path();
  const auto cache = dir / "cache";
  std::filesystem::create_directories(cache);
  const std::string alive = std::to_string(::getpid());
  const std::vector<std::string> files = {"report.json",
                                          ".report.json.Ab3xYz",
                                          ".report.json.toolongname",
                                          ".other.json.Ab3xYz",
                                          "cache/m-Q8_0.gguf",
                                          "cache/m-Q8_0.gguf.tmp.4194305",
                                          "cache/m-F16.gguf.tmp." + alive};
  for (const auto& name : files) std::ofstream(dir / name) << "x";
  auto removed = remove_stale_temporaries({dir / "report.json"}, cache);
  std::sort(removed.begin(), removed.end());
  ASSERT_EQ(removed.size(), 2u);
  EXPECT_EQ(removed[0], dir / ".report.json.Ab3xYz");
  EXPECT_EQ(removed[1], cache / "m-Q8_0.gguf.tmp.4194305");
  for (const auto& kept :
       {"report.json", ".report.json.toolongname", ".other.json.Ab3xYz", "cache/m-Q8_0.gguf"}) {
    EXPECT_TRUE(std::filesystem::exists(dir / kept)) << kept;
  }
  EXPECT_TRUE(std::filesystem::exists(cache / ("m-F16.gguf.tmp." + alive)));
}

}  // namespace
}  // namespace gauntlet::harness
