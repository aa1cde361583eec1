// diff finds regressions and improvements between two reports; merge gives one fleet table; the
// CLI wires both with the documented exit codes.
#include <gtest/gtest.h>

#include <fstream>

#include "reports/diff.h"
#include "reports/io.h"
#include "reports/merge.h"
#include "tests/reports/sample_report.h"
#include "tests/support/run_command.h"

namespace gauntlet::reports {
namespace {

using testing::run_command;
using testing::sample_report;
using testing::test_dir;

Profile& profile_named(Report& r, size_t device, const std::string& prefix) {
  for (auto& p : r.devices.at(device).profiles) {
    if (p.name.rfind(prefix, 0) == 0) return p;
  }
  throw std::runtime_error("no profile " + prefix);
}

TEST(Diff, IdenticalReportsHaveNoChanges) {
  auto diff = diff_reports(sample_report(), sample_report());
  EXPECT_TRUE(diff.regressions.empty());
  EXPECT_TRUE(diff.improvements.empty());
  EXPECT_EQ(render_diff_text(diff).rfind("0 regression(s), 0 improvement(s)", 0), 0u);
}

TEST(Diff, SafeToUnsafeIsARegression) {
  auto before = sample_report();
  auto after = sample_report();
  auto& p = profile_named(after, 0, "q4_0/f16/kv-f16/wg64-tile-chunk1024/ctx2048");
  p.verdict = ProfileVerdict::unsafe;
  p.reason = "logits NMSE 0.3 > 0.001";
  auto diff = diff_reports(before, after);
  ASSERT_EQ(diff.regressions.size(), 1u);
  EXPECT_EQ(diff.regressions[0].kind, "profile");
  EXPECT_EQ(diff.regressions[0].device, "vulkan:0");
  EXPECT_EQ(diff.regressions[0].before, "safe");
  EXPECT_EQ(diff.regressions[0].after, "unsafe");
  EXPECT_NE(diff.regressions[0].message.find("logits NMSE 0.3 > 0.001"), std::string::npos);
  EXPECT_TRUE(diff.improvements.empty());
  // The other way round it is an improvement.
  auto back = diff_reports(after, before);
  EXPECT_TRUE(back.regressions.empty());
  ASSERT_EQ(back.improvements.size(), 1u);
  EXPECT_EQ(back.improvements[0].after, "safe");
}

TEST(Diff, GoneProfilesFeaturesBudgetAndSpeed) {
  auto before = sample_report();
  auto after = sample_report();
  auto& pocl = after.devices.at(1);
  pocl.profiles.erase(pocl.profiles.begin() + 1);  // the safe q8_0 profile is gone
  after.devices[0].verified.features["f16.arithmetic"].verdict = FeatureVerdict::failed;
  after.devices[0].stress->safe_budget_bytes = before.devices[0].stress->safe_budget_bytes / 2;
  // tok/s: -20 % regresses, -5 % is within the threshold, +50 % improves.
  profile_named(after, 0, "q4_0/f16").figures.tok_s = 41.5 * 0.8;
  profile_named(after, 0, "q8_0/f32").figures.tok_s = 28.0 * 0.95;
  profile_named(after, 0, "f32/f32/kv-f32/wg64").figures.tok_s = 12.25 * 1.5;
  auto diff = diff_reports(before, after, 0.1);
  std::map<std::string, int> kinds;
  for (const auto& c : diff.regressions) ++kinds[c.kind];
  EXPECT_EQ(kinds["profile"], 1);
  EXPECT_EQ(kinds["feature"], 1);
  EXPECT_EQ(kinds["budget"], 1);
  EXPECT_EQ(kinds["tok_s"], 1);
  EXPECT_EQ(diff.regressions.size(), 4u) << render_diff_text(diff);
  ASSERT_EQ(diff.improvements.size(), 1u) << render_diff_text(diff);
  EXPECT_EQ(diff.improvements[0].kind, "tok_s");
  const auto text = render_diff_text(diff);
  EXPECT_NE(text.find("opencl:0 q8_0/f32/kv-f32/wg64-tile-chunk1024/ctx2048/b1: safe -> gone"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("vulkan:0 f16.arithmetic: verified -> failed (rows conform.f16.add)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("safe budget down 1.4 GiB -> 736 MiB (-50 %)"), std::string::npos) << text;
  EXPECT_NE(text.find("tok/s down 41.5 -> 33.2 (-20 %)"), std::string::npos) << text;
  // A wider threshold lets the -20 % through.
  EXPECT_EQ(diff_reports(before, after, 0.25).regressions.size(), 3u);
  auto json = diff_to_json(diff);
  EXPECT_EQ(json["regressions"].size(), 4u);
  EXPECT_EQ(json["threshold"], 0.1);
}

// The same profile held busy in both reports: a steady speed down by more than the threshold and
// a hotter card are regressions; another profile held is not compared.
TEST(Diff, ASoakThatSlowedOrRanHotterIsARegression) {
  auto before = sample_report();
  auto after = sample_report();
  SoakResult soak;
  soak.profile = "q4_0/f16/kv-f16/wg64-tile-chunk1024/ctx2048/b1";
  soak.seconds = 300;
  soak.samples = {{30.0, 40.0}, {300.0, 40.0}};
  soak.steady_tok_s = 40.0;
  soak.max_temperature_c = 80.0;
  before.devices[0].soak = soak;
  soak.steady_tok_s = 34.0;
  soak.max_temperature_c = 91.0;
  after.devices[0].soak = soak;
  auto diff = diff_reports(before, after);
  ASSERT_EQ(diff.regressions.size(), 2u);
  EXPECT_EQ(diff.regressions[0].kind, "steady_tok_s");
  EXPECT_EQ(diff.regressions[0].before, "40");
  EXPECT_EQ(diff.regressions[0].after, "34");
  EXPECT_EQ(diff.regressions[1].kind, "temperature");
  EXPECT_EQ(diff.regressions[1].message,
            "vulkan:0 q4_0/f16/kv-f16/wg64-tile-chunk1024/ctx2048/b1: held busy it reached 91 °C, "
            "up from 80 °C");
  EXPECT_TRUE(diff.improvements.empty());
  EXPECT_EQ(diff_reports(after, before).improvements.size(), 2u);
  after.devices[0].soak->profile = "f32/f32/kv-f32/wg64-whole/ctx2048/b1";
  EXPECT_TRUE(diff_reports(before, after).regressions.empty());
}

TEST(Diff, MissingDeviceIsARegression) {
  auto before = sample_report();
  auto after = sample_report();
  after.devices.pop_back();
  auto diff = diff_reports(before, after);
  ASSERT_EQ(diff.regressions.size(), 1u);
  EXPECT_EQ(diff.regressions[0].kind, "device");
  EXPECT_EQ(diff.regressions[0].device, "opencl:0");
}

TEST(Merge, OneTableAcrossMachines) {
  auto a = sample_report();
  auto b = sample_report();
  b.host.hostname = "fleet-node-2";
  b.devices.pop_back();
  profile_named(b, 0, "f32/f32/kv-f32/wg256").verdict = ProfileVerdict::safe;
  auto table = merge_reports({{"a.json", a}, {"b.json", b}});
  ASSERT_EQ(table.columns.size(), 3u);
  EXPECT_EQ(table.columns[0].host, "ci-runner-7");
  EXPECT_EQ(table.columns[1].device, "opencl:0");
  EXPECT_EQ(table.columns[2].host, "fleet-node-2");
  EXPECT_EQ(table.columns[0].safe, 4 - 1);  // three safe on llvmpipe
  // Distinct profile names across all devices: 7 on llvmpipe, 3 on PoCL, one (q8_0) shared.
  EXPECT_EQ(table.profiles.size(), 9u);
  const std::string big = "f32/f32/kv-f32/wg256-tile-chunk10240/ctx2048/b1";
  EXPECT_EQ(table.cells.at(big).at(0).verdict, ProfileVerdict::unsafe);
  EXPECT_EQ(table.cells.at(big).at(2).verdict, ProfileVerdict::safe);
  EXPECT_EQ(table.cells.at(big).count(1), 0u);  // not planned on PoCL

  const auto text = render_merge_text(table);
  EXPECT_NE(text.find("ci-runner-7/vulkan:0"), std::string::npos) << text;
  EXPECT_NE(text.find("fleet-node-2/vulkan:0"), std::string::npos);
  const auto md = render_merge_markdown(table);
  EXPECT_NE(md.find("| " + big + " | unsafe | - | safe |"), std::string::npos) << md;
  auto json = merge_to_json(table);
  EXPECT_EQ(json["columns"].size(), 3u);
  EXPECT_EQ(json["profiles"].size(), 9u);
}

class ReportCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = test_dir(::testing::UnitTest::GetInstance()->current_test_info()->name());
    ASSERT_TRUE(write_report(dir_ / "old.json", sample_report()).is_ok());
    auto changed = sample_report();
    changed.devices[0].profiles[0].verdict = ProfileVerdict::unsafe;
    changed.devices[0].profiles[0].reason = "crash: child killed by SIGSEGV";
    changed.summary = compute_summary(changed);
    ASSERT_TRUE(write_report(dir_ / "new.json", changed).is_ok());
    std::string output;
    ASSERT_EQ(testing::validate_with_jsonschema(dir_ / "new.json", &output), 0) << output;
  }
  int gauntlet(const std::string& args, std::string* output) {
    return run_command(gauntlet::testing::gauntlet_exe() + " " + args, output);
  }
  std::string path(const char* name) { return (dir_ / name).string(); }
  std::filesystem::path dir_;
};

TEST_F(ReportCli, DiffExitCodes) {
  std::string out;
  EXPECT_EQ(gauntlet("report diff " + path("old.json") + " " + path("old.json"), &out), 0) << out;
  EXPECT_NE(out.find("0 regression(s)"), std::string::npos);
  out.clear();
  EXPECT_EQ(gauntlet("report diff " + path("old.json") + " " + path("new.json"), &out), 1) << out;
  EXPECT_NE(out.find("safe -> unsafe (crash: child killed by SIGSEGV)"), std::string::npos) << out;
  out.clear();
  EXPECT_EQ(gauntlet("report diff --json " + path("old.json") + " " + path("new.json"), &out), 1);
  auto json = core::parse_json(out, "diff output");
  ASSERT_TRUE(json.is_ok()) << out;
  EXPECT_EQ((*json)["regressions"].size(), 1u);

  std::ofstream(dir_ / "broken.json") << "{\"schema_version\": \"1.0\", \"tool\": 3}";
  out.clear();
  EXPECT_EQ(gauntlet("report diff " + path("old.json") + " " + path("broken.json"), &out), 2);
  EXPECT_NE(out.find("broken.json"), std::string::npos) << out;
  EXPECT_NE(out.find("/tool"), std::string::npos) << out;
  out.clear();
  EXPECT_EQ(
      gauntlet("report diff --threshold 3 " + path("old.json") + " " + path("old.json"), &out), 2);
}

TEST_F(ReportCli, ShowWritesEachFormatAtomically) {
  std::string out;
  EXPECT_EQ(gauntlet("report show " + path("old.json"), &out), 0) << out;
  EXPECT_NE(out.find("local memory 41216 > 32768"), std::string::npos);
  out.clear();
  EXPECT_EQ(
      gauntlet("report show --format html -o " + path("r.html") + " " + path("old.json"), &out), 0)
      << out;
  auto html = core::read_text_file(dir_ / "r.html");
  ASSERT_TRUE(html.is_ok());
  EXPECT_NE(html->find("<svg"), std::string::npos);
  EXPECT_EQ(gauntlet("report show -o " + path("r.xml") + " " + path("old.json"), &out), 0) << out;
  auto xml = core::read_text_file(dir_ / "r.xml");
  ASSERT_TRUE(xml.is_ok());
  EXPECT_NE(xml->find("<testsuites"), std::string::npos);
  // A broken input leaves an existing output untouched.
  std::ofstream(dir_ / "broken.json") << "{ not json";
  out.clear();
  EXPECT_EQ(
      gauntlet("report show --format html -o " + path("r.html") + " " + path("broken.json"), &out),
      2);
  EXPECT_NE(out.find("broken.json is not valid JSON"), std::string::npos) << out;
  auto after = core::read_text_file(dir_ / "r.html");
  ASSERT_TRUE(after.is_ok());
  EXPECT_EQ(*after, *html);
  out.clear();
  EXPECT_EQ(gauntlet("report show --format pdf " + path("old.json"), &out), 2);
  EXPECT_NE(out.find("unknown format 'pdf'"), std::string::npos) << out;
}

TEST_F(ReportCli, MergeTableWritesJsonAndMarkdown) {
  std::string out;
  EXPECT_EQ(gauntlet("report merge --table " + path("old.json") + " " + path("new.json") + " -o " +
                         path("fleet.json"),
                     &out),
            0)
      << out;
  auto json = core::read_json_file(dir_ / "fleet.json");
  ASSERT_TRUE(json.is_ok());
  EXPECT_EQ((*json)["columns"].size(), 4u);
  out.clear();
  EXPECT_EQ(
      gauntlet("report merge --table --format md " + path("old.json") + " " + path("new.json"),
               &out),
      0);
  EXPECT_NE(
      out.find(
          "| q4_0/f16/kv-f16/wg64-tile-chunk1024/ctx2048/b1 | safe 41.5 | - | unsafe 41.5 | - |"),
      std::string::npos)
      << out;
}

}  // namespace
}  // namespace gauntlet::reports
