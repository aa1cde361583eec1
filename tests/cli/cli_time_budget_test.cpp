// A standard-level run on a device made four times slower (the test fault device.slow=4), with a
// budget of 24 s: it ends within the budget (and the one check or step that may straddle its end),
// exits as any run does, and its report says what the budget left out.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "core/json.h"
#include "tests/support/run_command.h"
#include "tests/support/temp_dir.h"

namespace gauntlet::testing {
namespace {

namespace fs = std::filesystem;

TEST(RunTimeBudget, ASlowDeviceStaysWithinItsBudgetAndTheReportSaysWhatItLeftOut) {
  TempDir dir("time-budget");
  // A 512 MiB card: the memory steps take seconds, the profile checks the rest of the budget.
  const fs::path card = dir / "card.json";
  std::ofstream(card) << R"({"name": "card-512m", "description": "a 512 MiB test card",
                             "global_mem_size": 536870912, "max_mem_alloc_size": 134217728})";
  const auto started = std::chrono::steady_clock::now();
  auto r = run_command("GAUNTLET_TEST_FAULT=device.slow=4 " + gauntlet_exe() +
                       " run --level standard --device opencl:0 --time-budget 24 --simulate " +
                       card.string() + " --format text --out " + (dir / "report.txt").string() +
                       " 2>&1");
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  ASSERT_LE(r.exit_code, 1) << r.output;
  EXPECT_LT(wall, 24 * 1.25 + 10) << r.output;
  auto report = core::Json::parse(std::ifstream(dir / "report.json"));
  size_t left_out = 0, ran = 0;
  for (const auto& p : report["devices"][0]["profiles"]) {
    if (p.contains("cause") && p["cause"].is_object() && p["cause"]["subject"] == "time_budget") {
      ++left_out;
      EXPECT_EQ(p["verdict"], "untested");
    }
    if (!p["rows"].empty()) ++ran;
  }
  EXPECT_GT(left_out, 0u);
  EXPECT_GT(ran, 0u);
  const std::string text = [&] {
    std::ifstream in(dir / "report.txt");
    return std::string(std::istreambuf_iterator<char>(in), {});
  }();
  EXPECT_NE(text.find("not run: the standard level's time budget (24 s per device) was spent"),
            std::string::npos)
      << text;
}

}  // namespace
}  // namespace gauntlet::testing
