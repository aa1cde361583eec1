// The fleet report groups identical devices and names the machines that differ from their
// siblings; `gauntlet report merge` writes it in every format, skips broken files by name and
// gates with --fail-on-outlier.
#include "reports/fleet.h"

#include <gtest/gtest.h>

#include <fstream>
#include <map>

#include "reports/fleet_input.h"
#include "reports/io.h"
#include "reports/schema_check.h"
#include "tests/reports/fleet_fixture.h"
#include "tests/reports/sample_report.h"
#include "tests/support/run_command.h"

namespace gauntlet::reports {
namespace {

using testing::kFlippedHost;
using testing::kLowBudgetHost;
using testing::run_command;
using testing::test_dir;
using testing::twelve_machines;

FleetReport fleet_of_twelve() {
  FleetBuilder builder(0.1);
  const auto reports = twelve_machines();
  for (size_t i = 0; i < reports.size(); ++i) {
    builder.add("node-" + std::to_string(i + 1) + ".json", reports[i]);
  }
  return builder.finish();
}

TEST(Fleet, TwelveMachinesFormTwoGroupsWithExactlyTheTwoOddOnesOut) {
  const auto fleet = fleet_of_twelve();
  ASSERT_EQ(fleet.machines.size(), 12u);
  ASSERT_EQ(fleet.groups.size(), 2u);
  EXPECT_EQ(fleet.outlier_count(), 2u);

  const auto& pocl = fleet.groups[0];  // "cpu-haswell..." sorts before "llvmpipe..."
  const auto& llvmpipe = fleet.groups[1];
  EXPECT_EQ(llvmpipe.key.model, "llvmpipe (LLVM 15.0.6, 256 bits)");
  EXPECT_EQ(llvmpipe.machines.size(), 6u);
  EXPECT_EQ(pocl.machines.size(), 6u);
  EXPECT_NE(pocl.key.model.find("(simulated ci/presets/small-local-mem.json)"), std::string::npos);

  ASSERT_EQ(llvmpipe.outliers.size(), 1u);
  const auto& low = llvmpipe.outliers[0];
  EXPECT_EQ(fleet.machines[low.machine].host, kLowBudgetHost);
  ASSERT_EQ(low.reasons.size(), 1u);
  EXPECT_EQ(low.reasons[0].kind, "budget");
  EXPECT_NE(low.reasons[0].message.find("below the group median"), std::string::npos);

  ASSERT_EQ(pocl.outliers.size(), 1u);
  const auto& flipped = pocl.outliers[0];
  EXPECT_EQ(fleet.machines[flipped.machine].host, kFlippedHost);
  ASSERT_EQ(flipped.reasons.size(), 1u);
  EXPECT_EQ(flipped.reasons[0].kind, "verdict");
  EXPECT_EQ(flipped.reasons[0].value, "unsafe");
  EXPECT_EQ(flipped.reasons[0].group, "safe");
  EXPECT_NE(flipped.reasons[0].message.find("safe on 5 of 6: logits NMSE 0.21"), std::string::npos)
      << flipped.reasons[0].message;
}

TEST(Fleet, SpreadsAndMajorityOfAGroup) {
  const auto fleet = fleet_of_twelve();
  const auto& llvmpipe = fleet.groups[1];
  // Budgets: 1536 MiB less the sample's margin, less 0/1/2 %; node-03 has half of its -0% share.
  ASSERT_TRUE(llvmpipe.budget_bytes);
  EXPECT_EQ(llvmpipe.budget_bytes->count, 6u);
  EXPECT_LT(llvmpipe.budget_bytes->min, 0.51 * llvmpipe.budget_bytes->max);
  // tok/s of the recommended profile: 41.5 less 0/3/6 %, two of each.
  ASSERT_TRUE(llvmpipe.recommended_tok_s);
  EXPECT_DOUBLE_EQ(llvmpipe.recommended_tok_s->max, 41.5);
  EXPECT_DOUBLE_EQ(llvmpipe.recommended_tok_s->min, 41.5 * 0.94);
  EXPECT_DOUBLE_EQ(llvmpipe.recommended_tok_s->median, 41.5 * 0.97);
  EXPECT_EQ(llvmpipe.majority_safe.size(), 3u);  // the sample device's three safe profiles

  const auto& pocl = fleet.groups[0];
  ASSERT_EQ(pocl.majority_safe.size(), 1u);
  EXPECT_EQ(pocl.majority_safe[0].rfind("q8_0/", 0), 0u);
  EXPECT_EQ(pocl.recommended_tok_s->count, 5u);  // node-09 has no tok/s for it
}

// Held busy with the same profile, a machine whose steady speed falls 20 % below its siblings'
// (a card that throttles) and one that runs 15 % hotter are named; machines that held another
// profile are not compared. The streaming reader sees the same soaks as the report in memory.
TEST(Fleet, ASoakThatThrottlesOrRunsHotStandsOut) {
  auto reports = twelve_machines();
  const std::string held = "Q4_K_M/f16/kv-f16/wg64-whole/ctx4096/b1";
  for (size_t i = 0; i < 6; ++i) {  // the llvmpipe group, node-01..06
    SoakResult soak;
    soak.profile = held;
    soak.seconds = 300;
    soak.samples = {{30.0, 40.0}, {300.0, 40.0}};
    soak.cold_tok_s = 40.0;
    soak.steady_tok_s = i == 0 ? 32.0 : 40.0 - 0.2 * static_cast<double>(i);
    soak.max_temperature_c = i == 1 ? 92.0 : 78.0 + static_cast<double>(i);
    if (i == 5) soak.profile = "F16/f16/kv-f16/wg64-whole/ctx4096/b1";
    reports[i].devices[0].soak = soak;
  }
  for (bool streamed : {false, true}) {
    SCOPED_TRACE(streamed ? "streamed" : "in memory");
    FleetBuilder builder(0.1);
    for (size_t i = 0; i < reports.size(); ++i) {
      const std::string name = "node-" + std::to_string(i + 1) + ".json";
      if (streamed) {
        auto input = parse_fleet_input(core::Json(reports[i]).dump(), name);
        ASSERT_TRUE(input.is_ok()) << input.error().message;
        builder.add(name, *input);
      } else {
        builder.add(name, reports[i]);
      }
    }
    const auto fleet = builder.finish();
    const auto& llvmpipe = fleet.groups[1];
    EXPECT_EQ(llvmpipe.soak_profile, held);
    ASSERT_TRUE(llvmpipe.steady_tok_s);
    EXPECT_EQ(llvmpipe.steady_tok_s->count, 5u);  // node-06 held another profile
    ASSERT_TRUE(llvmpipe.max_temperature_c);
    EXPECT_DOUBLE_EQ(llvmpipe.max_temperature_c->max, 92.0);
    std::map<std::string, std::vector<std::string>> kinds;  // host -> outlier kinds
    for (const auto& o : llvmpipe.outliers) {
      for (const auto& r : o.reasons) kinds[fleet.machines[o.machine].host].push_back(r.kind);
    }
    EXPECT_EQ(kinds["node-01"], std::vector<std::string>{"steady_tok_s"});
    EXPECT_EQ(kinds["node-02"], std::vector<std::string>{"temperature"});
    EXPECT_EQ(kinds[kLowBudgetHost], std::vector<std::string>{"budget"});
    EXPECT_EQ(kinds.size(), 3u);
    for (const auto& o : llvmpipe.outliers) {
      for (const auto& r : o.reasons) {
        if (r.kind == "steady_tok_s") {
          EXPECT_EQ(r.message,
                    "held busy, " + held + " runs at 32 tok/s, 18.8% below the group median 39.4");
        }
        if (r.kind == "temperature") {
          EXPECT_EQ(r.message, "held busy it reached 92 °C, above the group median 81 °C");
        }
      }
    }
    const auto json = fleet_to_json(fleet);
    EXPECT_EQ(json["schema_version"], "1.1");
  }
}

TEST(Fleet, TwoMachinesCannotOutvoteEachOther) {
  auto reports = twelve_machines();
  FleetBuilder builder;
  builder.add("a.json", reports[2]);  // node-03, half the budget
  builder.add("b.json", reports[0]);
  const auto fleet = builder.finish();
  ASSERT_EQ(fleet.groups.size(), 1u);
  EXPECT_EQ(fleet.outlier_count(), 0u);
  EXPECT_EQ(fleet.groups[0].budget_bytes->count, 2u);
}

TEST(Fleet, JsonMatchesTheShippedSchema) {
  const auto json = fleet_to_json(fleet_of_twelve());
  const auto violations = check_fleet_schema(json);
  EXPECT_TRUE(violations.empty()) << violations[0].describe();
  EXPECT_EQ(json["outlier_count"], 2);
  EXPECT_EQ(json["groups"][1]["outliers"][0]["host"], kLowBudgetHost);

  auto broken = json;
  broken["groups"][0]["outliers"][0].erase("reasons");
  EXPECT_FALSE(check_fleet_schema(broken).empty());
}

TEST(FleetInput, TheStreamingReaderSeesWhatTheReportHolds) {
  const auto report = twelve_machines()[8];  // node-09: a flipped verdict with its reason
  const auto expected = fleet_input(report);
  auto read = parse_fleet_input(report_json_text(report), "node-09.json");
  ASSERT_TRUE(read.is_ok()) << read.error().describe();
  EXPECT_EQ(read->host, "node-09");
  ASSERT_EQ(read->devices.size(), 1u);
  const auto& got = read->devices[0];
  const auto& want = expected.devices[0];
  EXPECT_EQ(got.key, want.key);
  EXPECT_EQ(got.name, want.name);
  EXPECT_TRUE(got.simulated);
  EXPECT_EQ(got.preset, want.preset);
  EXPECT_EQ(got.budget_bytes, want.budget_bytes);
  EXPECT_EQ(got.recommended, "");
  ASSERT_EQ(got.views.size(), want.views.size());
  EXPECT_EQ(got.views[1].usable, false);
  EXPECT_EQ(got.views[0].global_mem_size, want.views[0].global_mem_size);
  ASSERT_EQ(got.profiles.size(), 3u);
  for (size_t i = 0; i < got.profiles.size(); ++i) {
    EXPECT_EQ(got.profiles[i].name, want.profiles[i].name);
    EXPECT_EQ(got.profiles[i].verdict, want.profiles[i].verdict);
    EXPECT_EQ(got.profiles[i].tok_s, want.profiles[i].tok_s);
    EXPECT_EQ(got.profiles[i].reason, want.profiles[i].reason);
  }
}

TEST(FleetInput, RefusesWhatIsNotAReportOfThisVersion) {
  auto json = report_to_json(twelve_machines()[0]);
  auto refused = [](const core::Json& j) {
    auto r = parse_fleet_input(j.dump(), "x.json");
    return r.is_ok() ? std::string() : r.error().describe();
  };
  auto bad_verdict = json;
  bad_verdict["devices"][0]["profiles"][0]["verdict"] = "maybe";
  EXPECT_NE(refused(bad_verdict).find("verdict \"maybe\""), std::string::npos);
  auto old_major = json;
  old_major["schema_version"] = "0.9";
  EXPECT_NE(refused(old_major).find("has schema_version \"0.9\""), std::string::npos);
  auto no_summary = json;
  no_summary.erase("summary");
  EXPECT_NE(refused(no_summary).find("no \"summary\""), std::string::npos);
  auto text_budget = json;
  text_budget["devices"][0]["stress"]["safe_budget_bytes"] = "lots";
  EXPECT_NE(refused(text_budget).find("safe_budget_bytes"), std::string::npos);
  EXPECT_NE(parse_fleet_input(json.dump().substr(0, 5000), "cut.json")
                .error()
                .describe()
                .find("cut.json"),
            std::string::npos);
}

class FleetCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = test_dir(::testing::UnitTest::GetInstance()->current_test_info()->name());
    const auto reports = twelve_machines();
    for (const auto& r : reports) {
      const auto file = dir_ / (r.host.hostname + ".json");
      ASSERT_TRUE(write_report(file, r).is_ok());
      files_.append(" ").append(file.string());
    }
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  int gauntlet(const std::string& args, std::string* output) {
    return run_command(gauntlet::testing::gauntlet_exe() + " report merge" + files_ + " " + args,
                       output);
  }
  std::filesystem::path dir_;
  std::string files_;
};

TEST_F(FleetCli, TextNamesTheOutliersAndTheGateFails) {
  std::string out;
  EXPECT_EQ(gauntlet("", &out), 0) << out;
  EXPECT_NE(out.find("12 machine(s) in 2 group(s) from 12 report(s); 2 outlier(s)"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("node-03/vulkan:0"), std::string::npos) << out;
  EXPECT_NE(out.find("node-09/opencl:0"), std::string::npos) << out;
  out.clear();
  EXPECT_EQ(gauntlet("--fail-on-outlier", &out), 1) << out;
  out.clear();
  EXPECT_EQ(gauntlet("--fail-on-outlier --threshold 0.6", &out), 1) << out;  // the verdict stays
}

TEST_F(FleetCli, JsonValidatesAndHtmlAndMarkdownAreWritten) {
  std::string out;
  const auto json_file = dir_ / "fleet.json";
  ASSERT_EQ(gauntlet("-o " + json_file.string(), &out), 0) << out;
  const std::string source = GAUNTLET_SOURCE_DIR;
  EXPECT_EQ(run_command("python3 " + source + "/tests/reports/validate_schema.py " + source +
                            "/reports/schema/fleet.schema.json " + json_file.string(),
                        &out),
            0)
      << out;
  auto json = core::read_json_file(json_file);
  ASSERT_TRUE(json.is_ok());
  EXPECT_EQ((*json)["machine_count"], 12);
  EXPECT_EQ((*json)["outlier_count"], 2);

  const auto html_file = dir_ / "fleet.html";
  ASSERT_EQ(gauntlet("-o " + html_file.string(), &out), 0) << out;
  std::ifstream html(html_file);
  const std::string page((std::istreambuf_iterator<char>(html)), {});
  EXPECT_EQ(page.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(page.find("node-09/opencl:0"), std::string::npos);

  out.clear();
  ASSERT_EQ(gauntlet("--format md", &out), 0) << out;
  EXPECT_NE(out.find("## Outliers"), std::string::npos) << out;
  EXPECT_NE(out.find("| 2 | node-03/vulkan:0 | safe budget"), std::string::npos) << out;
}

TEST_F(FleetCli, BrokenAndForeignFilesAreNamedSkippedAndExitOne) {
  const auto broken = dir_ / "broken.json";
  const auto foreign = dir_ / "foreign.json";
  std::ofstream(broken) << "{\"schema_version\": \"1.1\", \"tool\": ";
  std::ofstream(foreign) << "{\"kind\": \"something else\", \"rows\": []}\n";
  std::string out;
  EXPECT_EQ(gauntlet(broken.string() + " " + foreign.string() + " --format json", &out), 1);
  EXPECT_NE(out.find("skipped " + broken.string()), std::string::npos) << out;
  EXPECT_NE(out.find("skipped " + foreign.string() + ": " + foreign.string() +
                     ": is not a gauntlet report"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("\"machine_count\": 12"), std::string::npos) << out;
}

}  // namespace
}  // namespace gauntlet::reports
