// gauntlet stress from the command line: usage errors, progress lines, and a run under an
// address-space limit (ulimit -v) smaller than the device's memory that caps itself and ends.
#include <gtest/gtest.h>

#include "core/json.h"
#include "tests/support/run_command.h"

namespace gauntlet {
namespace {

using testing::gauntlet_exe;
using testing::run_command;

TEST(StressCliTest, UsageErrorsExitTwo) {
  auto bad_level = run_command(gauntlet_exe() + " stress --device host --level extreme");
  EXPECT_EQ(bad_level.exit_code, 2) << bad_level.output;
  EXPECT_NE(bad_level.output.find("--level"), std::string::npos) << bad_level.output;
  auto bad_fraction = run_command(gauntlet_exe() + " stress --device host --max-fraction 3");
  EXPECT_EQ(bad_fraction.exit_code, 2) << bad_fraction.output;
  EXPECT_NE(bad_fraction.output.find("--max-fraction"), std::string::npos) << bad_fraction.output;
}

TEST(StressCliTest, ProgressLinesAndTextReport) {
  auto run = run_command(gauntlet_exe() + " stress --device host --max-fraction 0.001");
  EXPECT_EQ(run.exit_code, 0) << run.output;
  EXPECT_NE(run.output.find("stress host: step 1/1"), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("stress host: safe budget"), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("host memcpy (same run)"), std::string::npos) << run.output;
}

// --peak adds the compute peak beside the copy bandwidth: on the host the C++ f32 loop, with the
// reason f16 and int8 are not measured; in JSON as "compute_peak" on the stress's object.
TEST(StressCliTest, PeakBesideCopyBandwidth) {
  auto run = run_command(gauntlet_exe() + " stress --device host --max-fraction 0.001 --peak");
  EXPECT_EQ(run.exit_code, 0) << run.output;
  EXPECT_NE(run.output.find("  compute peak: f32 "), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("f16 not measured: the host reference backend has only an f32"),
            std::string::npos)
      << run.output;
  auto json_run =
      run_command("sh -c '" + gauntlet_exe() +
                  " stress --device host --max-fraction 0.001 --peak --json 2>/dev/null'");
  ASSERT_EQ(json_run.exit_code, 0) << json_run.output;
  auto json = core::parse_json(json_run.output, "gauntlet stress --peak --json");
  ASSERT_TRUE(json) << json_run.output;
  const auto& peak = json->at(0).at("compute_peak");
  EXPECT_GT(peak.at("f32_gflops").get<double>(), 0.0) << peak.dump();
  EXPECT_TRUE(peak.at("int8_gops").is_null()) << peak.dump();
}

TEST(StressCliTest, AddressSpaceLimitCapsTheRunAndTheParentSurvives) {
  // 1 GiB of address space: less than the host device's memory, more than the binary needs.
  const uint64_t limit_kib = 1024 * 1024;
  auto run = run_command("sh -c 'ulimit -v " + std::to_string(limit_kib) + " && exec " +
                         gauntlet_exe() + " stress --device host --json 2>/dev/null'");
  ASSERT_EQ(run.exit_code, 0) << run.output;
  auto json = core::parse_json(run.output, "gauntlet stress --json");
  ASSERT_TRUE(json) << run.output;
  const auto& result = json->at(0);
  core::Json cap;
  for (const auto& row : result["rows"]) {
    if (row["id"] == "stress.cap") cap = row;
  }
  ASSERT_TRUE(cap.is_object()) << run.output;
  EXPECT_EQ(cap["metrics"]["bound_by"], "RLIMIT_AS") << cap.dump();
  EXPECT_LT(cap["metrics"]["cap_bytes"].get<uint64_t>(), limit_kib * 1024);
  EXPECT_GT(result["safe_budget_bytes"].get<uint64_t>(), 0u);
  EXPECT_LT(result["safe_budget_bytes"].get<uint64_t>(), limit_kib * 1024);
  EXPECT_NE(cap["metrics"]["host_margin_rule"].get<std::string>().find("RLIMIT_AS"),
            std::string::npos);
}

}  // namespace
}  // namespace gauntlet
