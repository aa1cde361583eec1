// Each renderer's output carries the report's real content.
#include "reports/render.h"

#include <gtest/gtest.h>

#include <fstream>
#include <regex>

#include "reports/io.h"
#include "tests/reports/sample_report.h"

namespace gauntlet::reports {
namespace {

using testing::run_command;
using testing::sample_report;
using testing::test_dir;

int count_of(const std::string& text, const std::string& needle) {
  int n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

std::string attribute(const std::string& xml, const std::string& element, const std::string& name) {
  std::smatch m;
  std::regex re("<" + element + "[^>]*\\s" + name + "=\"([^\"]*)\"");
  return std::regex_search(xml, m, re) ? m[1].str() : "";
}

std::string xmllint(const std::filesystem::path& file, bool with_schema) {
  std::string output;
  std::string command = "xmllint --noout ";
  if (with_schema)
    command += "--schema " + std::string(GAUNTLET_SOURCE_DIR) + "/tests/reports/junit.xsd ";
  int rc = run_command(command + file.string(), &output);
  return rc == 0 ? "" : "xmllint exit " + std::to_string(rc) + ": " + output;
}

TEST(RenderText, SummaryPerDeviceWithReasons) {
  const auto text = render_text(sample_report());
  EXPECT_NE(text.find("Device vulkan:0  llvmpipe"), std::string::npos) << text;
  EXPECT_NE(text.find("Device opencl:0"), std::string::npos);
  EXPECT_NE(text.find("local memory 41216 > 32768"), std::string::npos) << text;
  EXPECT_NE(text.find("f16 unsupported"), std::string::npos);
  EXPECT_NE(text.find("needs 2.1 GiB > budget 1.4 GiB"), std::string::npos);
  EXPECT_NE(text.find("largest safe context: q4_0 2048, q8_0 2048, f32 2048, f16 none"),
            std::string::npos);
  EXPECT_NE(text.find("recommended: q4_0/f16/kv-f16/wg64-tile-chunk1024/ctx2048/b1"),
            std::string::npos);
  EXPECT_NE(text.find("SIMULATED (ci/presets/small-local-mem.json), local memory 32768, no bf16"),
            std::string::npos);
  EXPECT_NE(text.find("NOT usable: no Vulkan driver for this device"), std::string::npos);
  EXPECT_NE(text.find("safe budget 1.4 GiB (margin 64 MiB)"), std::string::npos) << text;
  EXPECT_NE(text.find("not run: 1 untested, 1 derived"), std::string::npos);
  EXPECT_NE(text.find("Summary: 2 device(s), 4 safe, 4 unsafe, 1 untested, 1 derived"),
            std::string::npos);
  EXPECT_NE(text.find("exit 1"), std::string::npos);
  // Unsafe profiles are not listed as safe.
  const auto safe_table =
      text.substr(text.find("SAFE PROFILE"), text.find("  unsafe: ") - text.find("SAFE PROFILE"));
  EXPECT_EQ(safe_table.find("wg256"), std::string::npos);

  // Aligned columns: each row's FAMILIAR cell starts where the header's does.
  const auto header_at = text.find("  SAFE PROFILE");
  const auto column = text.find("FAMILIAR", header_at) - header_at;
  const auto row_at = text.find('\n', header_at) + 1;
  EXPECT_EQ(text.substr(row_at + column, 7), "q4f16_0");
  const auto row2_at = text.find('\n', row_at) + 1;
  EXPECT_EQ(text.substr(row2_at + column, 7), "q8f32_0");
}

// A device's telemetry block in text and markdown: which signals exist, each temperature, clock and
// power signal's range over every unit, the throttle time by reason, the counters that moved and
// the kernel's lines naming the device.
TEST(RenderText, TheTelemetryBlockSaysRangesThrottlingCountersAndKernelLines) {
  auto report = sample_report();
  auto& d = report.devices[0];
  const core::Json stats_a = {{"temperature.edge", {{"min", 60}, {"max", 84}}},
                              {"clock.gfx", {{"min", 1725}, {"max", 1725}}},
                              {"power", {{"min", 100}, {"max", 250}}}};
  const core::Json stats_b = {{"temperature.edge", {{"min", 80}, {"max", 91}}},
                              {"clock.gfx", {{"min", 1365}, {"max", 1725}}}};
  d.telemetry = {
      {"sources", {"hwmon", "gpu_metrics"}},
      {"absent", {"nvml: NVML not found"}},
      {"units",
       {{"conform:vulkan:0", {{"at", 0}, {"seconds", 10}, {"during", {{{"signals", stats_a}}}}}},
        {"profiles:vulkan:0:Q8_0",
         {{"at", 12},
          {"seconds", 30},
          {"during",
           {{{"signals", stats_b}, {"throttle_seconds", {{"sw_thermal_slowdown", 12.5}}}}}},
          {"counters_moved",
           {{{"counter", "ras.umc.ce"}, {"delta", 3}, {"before", 0}, {"after", 3}}}},
          {"kernel",
           {{{"kind", "ring_timeout"}, {"message", "amdgpu 0000:03:00.0: ring gfx timeout"}}}}}}}}};
  const auto text = render_text(report);
  EXPECT_NE(text.find("  signals: hwmon, gpu_metrics; absent: nvml: NVML not found\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  over the run: clock.gfx 1365-1725 MHz, power 100-250 W, "
                      "temperature.edge 60-91 °C\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  throttled: sw_thermal_slowdown 12.5 s\n"), std::string::npos) << text;
  EXPECT_NE(text.find("  counter moved: profiles:vulkan:0:Q8_0: ras.umc.ce 0 -> 3\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  kernel: profiles:vulkan:0:Q8_0: amdgpu 0000:03:00.0: ring gfx timeout\n"),
            std::string::npos)
      << text;
  const auto markdown = render_markdown(report);
  EXPECT_NE(markdown.find("\nthrottled: sw_thermal_slowdown 12.5 s\n"), std::string::npos)
      << markdown;
}

// The compute peak stands beside the copy bandwidth in every renderer, a figure not measured with
// its reason.
TEST(RenderText, ComputePeakBesideCopyBandwidth) {
  const auto report = sample_report();
  const std::string line =
      "f32 123.4 GFLOP/s, f16 not verified: f16.arithmetic unsupported (conform.f16.native), int8 "
      "45.6 GOP/s, copy 9.5 GB/s";
  const auto text = render_text(report);
  EXPECT_NE(text.find("  compute peak: " + line + " (measured in 0.9 s)"), std::string::npos)
      << text;
  EXPECT_EQ(count_of(text, "compute peak:"), 1) << "the second device has no peak";
  const auto md = render_markdown(report);
  EXPECT_NE(md.find("Compute peak: f32 123.4 GFLOP/s, f16 not verified: f16.arithmetic "
                    "unsupported (conform.f16.native), int8 45.6 GOP/s, copy 9.5 GB/s ("),
            std::string::npos)
      << md;
  const auto html = render_html(report);
  EXPECT_NE(html.find("compute peak f32<b>123.4 GFLOP/s</b>"), std::string::npos) << html;
}

// A measured pass in llama-bench's words, in the text, markdown and HTML renderings alike; a
// report without one has no passes table.
TEST(RenderText, PassesInLlamaBenchWords) {
  auto report = sample_report();
  EXPECT_EQ(render_text(report).find("passes ("), std::string::npos);
  auto& p = report.devices.front().profiles.front();
  p.micro_batch = 512;
  p.name = profile_name(p);
  p.figures.pp_tok_s = 290.73;
  p.figures.pp_tokens = 512;
  p.figures.tok_s = 45.48;
  p.figures.tg_tokens = 128;
  p.figures.achieved_gflops = 10.44;
  p.figures.fraction_of_f32_peak = 0.356;
  EXPECT_NE(p.name.find("/mb512"), std::string::npos) << p.name;
  const auto text = render_text(report);
  EXPECT_NE(text.find("passes (prompt and generation tokens per second)"), std::string::npos)
      << text;
  for (const std::string& doc : {text, render_markdown(report), render_html(report)}) {
    EXPECT_NE(doc.find("pp512 290.7 tok/s"), std::string::npos) << doc;
    EXPECT_NE(doc.find("tg128 45.5 tok/s"), std::string::npos) << doc;
    EXPECT_NE(doc.find("36%"), std::string::npos) << doc;
  }
  EXPECT_NE(render_html(report).find("prompt tok/s per profile (pp)"), std::string::npos);
}

TEST(RenderText, IncompleteRunIsFlagged) {
  auto r = sample_report();
  r.complete = false;
  EXPECT_NE(render_text(r).find("INCOMPLETE"), std::string::npos);
  EXPECT_NE(render_html(r).find("Incomplete: the run was interrupted"), std::string::npos);
}

// Unsafe profiles are one line per cause with their count and families; a report of schema 1.5
// carries the cause as data, an older one has it read from the reason.
TEST(RenderText, UnsafeProfilesAreOneLinePerCause) {
  auto report = sample_report();
  auto& d = report.devices.front();
  const auto base = d.profiles.front();
  d.profiles.clear();
  for (const std::string format : {"F16", "Q8_0", "Q4_K_M"}) {
    for (const std::string kv : {"f32", "f16"}) {
      for (uint32_t context : {512u, 1024u, 2048u}) {
        Profile p = base;
        p.weight_format = format;
        p.kv_precision = kv;
        p.compute_precision = "f16";
        p.context = context;
        p.name = profile_name(p);
        p.verdict = ProfileVerdict::unsafe;
        p.reason = "f16 unsupported (conformance f16.arithmetic)";
        p.cause = Cause{"feature_unsupported", "f16.arithmetic", {}};
        d.profiles.push_back(p);
        p.compute_precision = "f32";
        p.variant.local_mem_bytes = 40000 + context;
        p.name = profile_name(p);
        p.reason = "local memory " + std::to_string(p.variant.local_mem_bytes) +
                   " > 32768 (matmul.wg64, n_in 256); these fit: ...";
        p.cause = Cause{"local_memory",
                        "matmul",
                        {{"need_bytes", static_cast<double>(p.variant.local_mem_bytes)},
                         {"limit_bytes", 32768.0}}};
        if (format == "F16") d.profiles.push_back(p);
      }
    }
  }
  const auto text = render_text(report);
  EXPECT_NE(text.find("  unsafe: 24 profiles, 2 cause(s)\n"
                      "    18 x f16.arithmetic unsupported in conformance [formats F16, Q8_0, "
                      "Q4_K_M; KV f32, f16; activations f16; variants wg64-tile-chunk1024; "
                      "contexts 512-2048 (3); passes 1 token]\n"
                      "    6 x local memory 40512 to 42048 > 32768 B verified (the matmul kernel) "
                      "[formats F16; KV f32, f16; activations f32;"),
            std::string::npos)
      << text;
  EXPECT_EQ(count_of(text, "f16 unsupported (conformance"), 0) << "no line per profile";
  // --verbose / `report show --all` lists every profile besides.
  const auto all = render_text(report, {.all = true});
  EXPECT_EQ(count_of(all, "f16 unsupported (conformance f16.arithmetic)"), 18) << all;
  // The same groups from the reasons alone (a report older than 1.5).
  for (auto& p : d.profiles) p.cause.reset();
  const auto old = render_text(report);
  EXPECT_NE(old.find("    18 x f16.arithmetic unsupported in conformance [formats"),
            std::string::npos)
      << old;
  EXPECT_NE(old.find("    6 x local memory 40512 to 42048 > 32768 B verified (the matmul kernel)"),
            std::string::npos)
      << old;
  // The markdown and HTML summaries group the same way; HTML opens each group to its profiles.
  const auto md = render_markdown(report);
  EXPECT_NE(md.find("| 18 | f16.arithmetic unsupported in conformance | formats F16, Q8_0"),
            std::string::npos)
      << md;
  const auto html = render_html(report);
  // Two causes here, and PoCL's two (f16 unsupported, a crash) on the second device.
  EXPECT_EQ(count_of(html, "<details class=\"cause\""), 2 + 2) << html;
  EXPECT_NE(html.find("<summary><b>18</b> f16.arithmetic unsupported in conformance</summary>"),
            std::string::npos);
}

TEST(RenderMarkdown, TablesPerDevice) {
  const auto md = render_markdown(sample_report(), {.all = true});
  EXPECT_NE(md.find("## vulkan:0: llvmpipe"), std::string::npos) << md;
  EXPECT_NE(md.find("| f32/f32/kv-f32/wg256-tile-chunk10240/ctx2048/b1 | q0f32 | unsafe | local "
                    "memory 41216 \\> 32768 |"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| f16.arithmetic | unsupported | conform.f16.add |"), std::string::npos);
  EXPECT_NE(md.find("| q4_0 | 2048 |"), std::string::npos);
  EXPECT_NE(md.find("| conform.int8.dot | vulkan:0 | fail |"), std::string::npos);
  EXPECT_EQ(count_of(md, "| Profile | Familiar | Verdict |"), 2);
}

TEST(RenderHtml, SelfContainedWithCharts) {
  const auto html = render_html(sample_report());
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_EQ(count_of(html, "</html>"), 1);
  // No network: no external scripts, stylesheets or images.
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("<link"), std::string::npos);
  EXPECT_EQ(html.find("src="), std::string::npos);
  EXPECT_EQ(html.find("https://"), std::string::npos);

  // Charts: llvmpipe has stress, tok/s and local-memory charts; PoCL (no stress) has two.
  EXPECT_EQ(count_of(html, "<svg"), 5);
  EXPECT_EQ(count_of(html, "<svg class=\"chart stress\""), 1);
  EXPECT_EQ(count_of(html, "class=\"point verified\""), 3);
  EXPECT_EQ(count_of(html, "class=\"point unverified\""), 2);
  EXPECT_EQ(count_of(html, "class=\"budget\""), 1);
  EXPECT_EQ(count_of(html, "<rect class=\"bar tok\""), 4);  // profiles with a tok/s figure
  EXPECT_EQ(count_of(html, "<rect class=\"bar mem"), 4);    // a bar per kernel variant, per device
  EXPECT_EQ(count_of(html, "<rect class=\"bar mem over\""), 1);  // 41216 > 32768
  EXPECT_EQ(count_of(html, "<line class=\"limit\""), 2);
  EXPECT_NE(html.find("verified 32768"), std::string::npos);
  EXPECT_NE(html.find("41.5 tok/s"), std::string::npos);
  // The tok/s bars are proportional: 41.5 is the longest.
  std::regex width_re("<rect class=\"bar tok\" x=\"[0-9.]+\" y=\"[0-9.]+\" width=\"([0-9.]+)\"");
  std::vector<double> widths;
  for (std::sregex_iterator it(html.begin(), html.end(), width_re), end; it != end; ++it) {
    widths.push_back(std::stod((*it)[1].str()));
  }
  ASSERT_EQ(widths.size(), 4u);
  EXPECT_NEAR(widths[1] / widths[0], 28.0 / 41.5, 0.01);
  EXPECT_NEAR(widths[2] / widths[0], 12.25 / 41.5, 0.01);
  EXPECT_NE(html.find("local memory 41216 &gt; 32768"), std::string::npos);
}

// A chart's label column is as wide as its longest label: none is cut off at the left edge.
// A device's signals over the run: its units' temperature and clock series on one time axis
// (each unit placed by its "at"), and a soak's tok/s, each scaled to its own range and named with
// it; the sample's devices, whose telemetry has no series, get no such chart.
TEST(RenderHtml, SignalsOverTheRunAreOneChartPerDevice) {
  auto report = sample_report();
  auto& d = report.devices[0];
  auto unit = [](double at, double seconds, std::vector<std::pair<double, double>> temps) {
    core::Json series = core::Json::array();
    for (const auto& [t, temp] : temps) {
      series.push_back({{"t", t}, {"values", {{"temperature.edge", temp}, {"clock.gfx", 1725}}}});
    }
    return core::Json{{"at", at}, {"seconds", seconds}, {"during", {{{"series", series}}}}};
  };
  d.telemetry = {{"sources", {"hwmon"}},
                 {"units",
                  {{"conform:vulkan:0", unit(0, 10, {{0, 60}, {10, 70}})},
                   {"soak:vulkan:0", unit(40, 300, {{0, 75}, {150, 91}, {300, 90}})}}}};
  SoakResult soak;
  soak.profile = "q4_0/f16/kv-f16/wg64-tile-chunk1024/ctx2048/b1";
  soak.seconds = 300;
  soak.samples = {{10, 40.0}, {300, 38.0}};
  d.soak = soak;
  const auto html = render_html(report);
  EXPECT_EQ(count_of(html, "<svg class=\"chart signals\""), 1);
  EXPECT_EQ(count_of(html, "<polyline class=\"series temperature-edge\""), 1);
  EXPECT_EQ(count_of(html, "<polyline class=\"series clock-gfx\""), 1);
  EXPECT_EQ(count_of(html, "<polyline class=\"series tok-s--soak-\""), 1);
  EXPECT_NE(html.find("temperature.edge: 60 to 91 °C"), std::string::npos);
  EXPECT_NE(html.find("tok/s (soak): 38 to 40 tok/s"), std::string::npos);
  EXPECT_NE(html.find("340 s"), std::string::npos);  // the axis ends at the soak's last point
  EXPECT_EQ(count_of(render_html(sample_report()), "chart signals"), 0);
}

TEST(RenderHtml, ChartLabelsFitTheirColumn) {
  auto report = sample_report();
  auto& p = report.devices.front().profiles.front();
  p.variant.name = std::string(90, 'v');
  p.name = profile_name(p);
  const auto html = render_html(report);
  std::regex label_re(
      R"re(<text class="label" x="([0-9.]+)" y="[0-9.]+" text-anchor="end">([^<]*)</text>)re");
  int labels = 0;
  for (std::sregex_iterator it(html.begin(), html.end(), label_re), end; it != end; ++it) {
    const double right = std::stod((*it)[1].str());
    const auto chars = static_cast<double>((*it)[2].str().size());
    if (chars < 20) continue;  // an axis figure
    ++labels;
    EXPECT_GE(right, 6.6 * chars) << (*it)[2].str();
  }
  EXPECT_GE(labels, 2);
}

TEST(RenderHtml, EscapesText) {
  auto r = sample_report();
  r.devices[0].name = "<script>alert('x')</script>";
  const auto html = render_html(r);
  EXPECT_EQ(html.find("<script>"), std::string::npos);
  EXPECT_NE(html.find("&lt;script&gt;"), std::string::npos);
}

TEST(RenderJunit, ValidatesAndCounts) {
  auto dir = test_dir("junit");
  ASSERT_TRUE(write_rendered(dir / "report.xml", sample_report(), Format::junit).is_ok());
  auto xml = core::read_text_file(dir / "report.xml");
  ASSERT_TRUE(xml.is_ok());
  EXPECT_EQ(xmllint(dir / "report.xml", true), "");
  // host: 3 doctor rows; llvmpipe: 5 conformance, 5 stress, 7 profiles, 2 profile runs;
  // PoCL: 5 conformance, 3 profiles, 2 profile runs.
  EXPECT_EQ(attribute(*xml, "testsuites", "tests"), "32");
  EXPECT_EQ(attribute(*xml, "testsuites", "failures"), "5");
  EXPECT_EQ(attribute(*xml, "testsuites", "errors"), "5");
  EXPECT_EQ(attribute(*xml, "testsuites", "skipped"), "5");
  EXPECT_EQ(count_of(*xml, "<testsuite "), 3);
  EXPECT_EQ(count_of(*xml, "<testcase "), 32);
  EXPECT_EQ(count_of(*xml, "<failure "), 5);
  EXPECT_EQ(count_of(*xml, "<error "), 5);
  EXPECT_EQ(count_of(*xml, "<skipped "), 5);
  EXPECT_NE(xml->find("<failure message=\"local memory 41216 &gt; 32768\" type=\"unsafe\">"),
            std::string::npos);
  EXPECT_NE(xml->find("<error message=\"no answer within 30 s\" type=\"timeout\">"),
            std::string::npos);
}

// A unit whose machine signals gave a cause (a hang or reset the kernel logged) is a failure of
// its own, beside the profiles it made unsafe.
TEST(RenderJunit, AMachineSignalIsAFailure) {
  auto r = sample_report();
  r.devices[0].machine_rows.push_back(core::make_row(
      "signals:profiles:vulkan:0:Q8_0", "vulkan:0", core::RowStatus::fail,
      "hang or reset: the kernel logged \"amdgpu 0000:c1:00.0: amdgpu: ring gfx_0.0.0 timeout\""));
  auto dir = test_dir("junit_signals");
  ASSERT_TRUE(write_rendered(dir / "report.xml", r, Format::junit).is_ok());
  auto xml = core::read_text_file(dir / "report.xml");
  ASSERT_TRUE(xml.is_ok());
  EXPECT_EQ(xmllint(dir / "report.xml", true), "");
  EXPECT_EQ(attribute(*xml, "testsuites", "tests"), "33");
  EXPECT_EQ(attribute(*xml, "testsuites", "failures"), "6");
  EXPECT_NE(xml->find("name=\"signals:profiles:vulkan:0:Q8_0\""), std::string::npos);
  EXPECT_NE(xml->find("ring gfx_0.0.0 timeout"), std::string::npos);
}

TEST(RenderJunit, EscapingKeepsTheFileValid) {
  auto r = sample_report();
  r.devices[0].conformance[4].reason = "expected <1 & \"2\"> got 'x'\x01";
  r.devices[0].name = "a]]>b";
  auto dir = test_dir("junit_escape");
  ASSERT_TRUE(write_rendered(dir / "report.xml", r, Format::junit).is_ok());
  EXPECT_EQ(xmllint(dir / "report.xml", true), "");
  // A broken file is refused by the same check, so the check can fail.
  std::ofstream(dir / "broken.xml")
      << "<testsuites><testsuite name=\"x\"><testcase/></testsuite></testsuites>";
  EXPECT_NE(xmllint(dir / "broken.xml", true), "");
}

TEST(RenderFormat, ParseNames) {
  EXPECT_EQ(parse_format("md"), Format::markdown);
  EXPECT_EQ(parse_format("junit"), Format::junit);
  EXPECT_EQ(parse_format("html"), Format::html);
  EXPECT_FALSE(parse_format("pdf").has_value());
  EXPECT_EQ(render(sample_report(), Format::json), report_json_text(sample_report()));
}

TEST(RenderHtml, WritesSampleForInspection) {
  // Leaves the page where a person (or headless Chromium) can look at it.
  auto dir = test_dir("html");
  ASSERT_TRUE(write_rendered(dir / "report.html", sample_report(), Format::html).is_ok());
  // The page is also well-formed XML (every element closed, all text escaped).
  EXPECT_EQ(xmllint(dir / "report.html", false), "");
}

// run -md's check: the report carries it through the schema and back, and every renderer says it.
TEST(RenderSpeculation, EveryRendererSaysTheCheckAndTheReportKeepsIt) {
  auto report = sample_report();
  SpeculationResult s;
  s.draft = "/models/draft.gguf";
  s.profile = "q4_0/f16/kv-f16/wg64-tile-chunk1024/ctx2048/b1";
  s.tokens = 64;
  s.tokens_match = true;
  s.first_difference = 64;
  s.drafted = 60;
  s.accepted = 41;
  s.plain_tok_s = 40.3;
  s.speculative_tok_s = 52.1;
  report.devices[0].speculation = s;
  const auto json = report_to_json(report);
  EXPECT_TRUE(check_report_schema(json).empty());
  auto back = report_from_json(json, "speculation.json");
  ASSERT_TRUE(back.is_ok()) << back.error().describe();
  ASSERT_TRUE(back->devices[0].speculation.has_value());
  EXPECT_EQ(back->devices[0].speculation->accepted, 41u);
  EXPECT_EQ(back->devices[0].speculation->profile, s.profile);
  const std::string line = "64 greedy tokens the same as without it; 41 of 60 drafted accepted";
  for (const std::string& doc :
       {render_text(report), render_markdown(report), render_html(report)}) {
    EXPECT_NE(doc.find(line), std::string::npos) << doc;
  }
}

}  // namespace
}  // namespace gauntlet::reports
