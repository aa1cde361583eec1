// `gauntlet run` end to end on the real drivers: the report, its schema, the verdicts the field
// cases ask for, interruption and resume, simulation, and the CI gate of `report diff`.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <regex>
#include <sstream>
#include <thread>
#include <vector>

#include "core/json.h"
#include "tests/support/run_command.h"
#include "tests/support/temp_dir.h"

namespace gauntlet::testing {
namespace {

namespace fs = std::filesystem;

// One feed-forward layer 11008 wide (field case 2's width): its f32 activations need more than
// llvmpipe's 32 KiB of local memory.
constexpr const char* kWideShape =
    "n_embd=64,n_layer=1,n_head=2,n_ff=11008,n_vocab=256,context=1024";
// A KV cache of 256 MiB at 65536 positions: PoCL with POCL_MEMORY_LIMIT=1 (a budget near
// 192 MiB) cannot hold it, an unlimited PoCL can. (131072 positions of scores can exceed a PoCL
// build's 512 KiB of local memory, so the comparison must not rest on the full context.)
constexpr const char* kLongShape =
    "n_embd=128,n_layer=4,n_head=2,n_ff=256,n_vocab=256,context=131072";

std::string source(const std::string& relative) {
  return std::string(GAUNTLET_SOURCE_DIR) + "/" + relative;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

core::Json load(const fs::path& path) {
  std::ifstream in(path);
  return core::Json::parse(in);
}

const core::Json* device_with_view(const core::Json& report, const std::string& api) {
  for (const auto& d : report["devices"]) {
    for (const auto& v : d["views"]) {
      if (v["api"] == api) return &d;
    }
  }
  return nullptr;
}

const core::Json* profile(const core::Json& device, const std::string& name) {
  for (const auto& p : device["profiles"]) {
    if (p["name"] == name) return &p;
  }
  return nullptr;
}

uint32_t largest_safe_context(const core::Json& device, const std::string& format) {
  for (const auto& l : device["largest_safe_context"]) {
    if (l["weight_format"] == format) return l["context"].get<uint32_t>();
  }
  return 0;
}

class RunOnEveryDevice : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    folder_ = std::make_unique<TempDir>("run-all");
    dir_ = folder_->path();
    // Not a terminal: stderr gets a plain progress line as each stage of each device starts
    // and ends; stdout the summary.
    result_ = run_command(gauntlet_exe() + " run --shape " + kWideShape + " --out " +
                          (dir_ / "report.json").string() + " >" + (dir_ / "summary.txt").string() +
                          " 2>" + (dir_ / "progress.txt").string());
    summary_ = read_text(dir_ / "summary.txt");
    result_.output += summary_ + read_text(dir_ / "progress.txt");
  }
  static void TearDownTestSuite() { folder_.reset(); }
  // One quick run over every device serves all these checks (each is a whole run's worth of
  // time when it is a test of its own).
  void WritesAReportValidAgainstTheSchemaAndLeavesNoJournal();
  void LlvmpipeRefusesTheWholeF32VectorAndRunsTheTiledVariant();
  void PoclF16ComputeIsUnsafeBecauseF16IsUnsupported();
  void ReportDiffGatesARegression();
  void JunitAndHtmlRenderingsOfTheRun();
  void PassesOfAPromptAndOfSequencesAreMeasuredOnEveryDevice();
  void TheSummaryGroupsUnsafeProfilesByCause();
  void OneProgressLinePerStageAndDevice();
  static std::unique_ptr<TempDir> folder_;
  static fs::path dir_;
  static CommandResult result_;
  static std::string summary_;
};
std::unique_ptr<TempDir> RunOnEveryDevice::folder_;
fs::path RunOnEveryDevice::dir_;
CommandResult RunOnEveryDevice::result_;
std::string RunOnEveryDevice::summary_;

void RunOnEveryDevice::WritesAReportValidAgainstTheSchemaAndLeavesNoJournal() {
  ASSERT_EQ(result_.exit_code, 0) << result_.output;
  ASSERT_TRUE(fs::exists(dir_ / "report.json"));
  EXPECT_FALSE(fs::exists(dir_ / "report.json.journal"));
  auto check = run_command("python3 " + source("tests/reports/validate_schema.py") + " " +
                           source("reports/schema/report.schema.json") + " " +
                           (dir_ / "report.json").string());
  EXPECT_EQ(check.exit_code, 0) << check.output;
  auto report = load(dir_ / "report.json");
  EXPECT_TRUE(report["complete"].get<bool>());
  EXPECT_NE(device_with_view(report, "opencl"), nullptr);
  EXPECT_NE(device_with_view(report, "vulkan"), nullptr);
  // The cpu device is judged; the host is the reference, named once and not judged.
  const auto* cpu = device_with_view(report, "host");
  ASSERT_NE(cpu, nullptr);
  EXPECT_EQ((*cpu)["key"], "cpu");
  EXPECT_EQ(report["devices"].size(), 3u);
  EXPECT_NE(summary_.find("reference: host, the C++ engine each device's tokens and logits are "
                          "compared with"),
            std::string::npos)
      << summary_;
  EXPECT_NE(result_.output.find("recommended:"), std::string::npos) << result_.output;
}

void RunOnEveryDevice::LlvmpipeRefusesTheWholeF32VectorAndRunsTheTiledVariant() {
  auto report = load(dir_ / "report.json");
  const auto* vk = device_with_view(report, "vulkan");
  ASSERT_NE(vk, nullptr);
  // f32 activations (the whole 11008-wide vector: 44 KiB) in a format the quick level runs.
  const auto* whole = profile(*vk, "Q8_0/f32/kv-f32/wg64-whole/ctx512/b1");
  ASSERT_NE(whole, nullptr);
  EXPECT_EQ((*whole)["verdict"], "unsafe");
  const std::string reason = (*whole)["reason"];
  EXPECT_EQ(reason.rfind("local memory ", 0), 0u) << reason;
  EXPECT_NE(reason.find(" > 32768"), std::string::npos) << reason;
  const auto* tiled = profile(*vk, "Q8_0/f32/kv-f32/wg64-t1024-s256/ctx512/b1");
  ASSERT_NE(tiled, nullptr);
  EXPECT_EQ((*tiled)["verdict"], "safe") << (*tiled)["reason"];
  EXPECT_GT((*tiled)["figures"]["tok_s"].get<double>(), 0.0);
}

void RunOnEveryDevice::PoclF16ComputeIsUnsafeBecauseF16IsUnsupported() {
  auto report = load(dir_ / "report.json");
  const auto* cl = device_with_view(report, "opencl");
  ASSERT_NE(cl, nullptr);
  int f16_compute = 0;
  for (const auto& p : (*cl)["profiles"]) {
    if (p["compute_precision"] != "f16") continue;
    ++f16_compute;
    EXPECT_EQ(p["verdict"], "unsafe");
    EXPECT_EQ(p["reason"].get<std::string>().rfind("f16 unsupported", 0), 0u) << p["reason"];
  }
  EXPECT_GT(f16_compute, 0);
  EXPECT_EQ((*cl)["verified"]["features"]["f16.arithmetic"]["verdict"], "unsupported");
}

void RunOnEveryDevice::ReportDiffGatesARegression() {
  const auto good = dir_ / "report.json";
  auto same = run_command(gauntlet_exe() + " report diff " + good.string() + " " + good.string());
  EXPECT_EQ(same.exit_code, 0) << same.output;

  auto report = load(good);
  bool edited = false;
  for (auto& d : report["devices"]) {
    for (auto& p : d["profiles"]) {
      if (!edited && p["verdict"] == "safe") {
        p["verdict"] = "unsafe";
        p["reason"] = "edited by the test";
        edited = true;
      }
    }
  }
  ASSERT_TRUE(edited);
  const auto worse = dir_ / "worse.json";
  std::ofstream(worse) << report.dump(2);
  auto diff = run_command(gauntlet_exe() + " report diff " + good.string() + " " + worse.string());
  EXPECT_EQ(diff.exit_code, 1) << diff.output;
}

void RunOnEveryDevice::JunitAndHtmlRenderingsOfTheRun() {
  const auto xml = dir_ / "report.xml";
  auto junit = run_command(gauntlet_exe() + " report show " + (dir_ / "report.json").string() +
                           " --format junit -o " + xml.string());
  ASSERT_EQ(junit.exit_code, 0) << junit.output;
  auto lint = run_command("xmllint --noout --schema " + source("tests/reports/junit.xsd") + " " +
                          xml.string());
  EXPECT_EQ(lint.exit_code, 0) << lint.output;
  const auto html = dir_ / "report.html";
  auto page = run_command(gauntlet_exe() + " report show " + (dir_ / "report.json").string() +
                          " --format html -o " + html.string());
  ASSERT_EQ(page.exit_code, 0) << page.output;
  std::ifstream in(html);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("<svg"), std::string::npos);
  EXPECT_EQ(text.find("http://"), text.find("http://www.w3.org/2000/svg"));
}

// The quick level measures a 512-token prompt in one pass and 4 sequences decoded together on
// every device: safe from a run, with llama-bench's figures, not derived (on the host, the
// reference's own passes: timed, with nothing to compare).
void RunOnEveryDevice::PassesOfAPromptAndOfSequencesAreMeasuredOnEveryDevice() {
  auto report = load(dir_ / "report.json");
  for (const std::string api : {"opencl", "vulkan", "host"}) {
    SCOPED_TRACE(api);
    const auto* device = device_with_view(report, api);
    ASSERT_NE(device, nullptr);
    bool prompt = false, sequences = false;
    for (const auto& p : (*device)["profiles"]) {
      if (p["verdict"] != "safe" || p["rows"].empty()) continue;
      const auto& f = p["figures"];
      if (p["micro_batch"] == 512) {
        prompt = true;
        EXPECT_EQ(f["pp_tokens"], 512);
        EXPECT_GT(f["pp_tok_s"].get<double>(), 0.0);
        EXPECT_GT(f["achieved_gflops"].get<double>(), 0.0);
        EXPECT_GT(f["fraction_of_f32_peak"].get<double>(), 0.0);
        if (api != "host") {
          EXPECT_LE(f["logits_nmse"].get<double>(), 1e-6);
        }
      }
      if (p["batch"] == 4) {
        sequences = true;
        EXPECT_GT(f["tok_s"].get<double>(), 0.0);
      }
    }
    EXPECT_TRUE(prompt);
    EXPECT_TRUE(sequences);
  }
  EXPECT_NE(result_.output.find("passes (prompt and generation tokens per second)"),
            std::string::npos)
      << result_.output;
}

// The text summary answers per device in a few dozen lines: the unsafe profiles as one line per
// cause with how many it rules out, each cause of the report's unsafe verdicts once.
void RunOnEveryDevice::TheSummaryGroupsUnsafeProfilesByCause() {
  auto report = load(dir_ / "report.json");
  const auto lines = lines_of(summary_);
  ASSERT_EQ(report["devices"].size(), 3u) << summary_;
  for (const auto& device : report["devices"]) {
    const std::string key = device["key"];
    SCOPED_TRACE(key);
    // This device's section: from its "Device" line to the next one (or the problems/summary).
    size_t begin = lines.size(), end = lines.size();
    for (size_t i = 0; i < lines.size(); ++i) {
      if (begin == lines.size() && lines[i].rfind("Device " + key + " ", 0) == 0) {
        begin = i;
      } else if (begin != lines.size() &&
                 (lines[i].rfind("Device ", 0) == 0 || lines[i] == "Problems" ||
                  lines[i].rfind("Summary: ", 0) == 0)) {
        end = i;
        break;
      }
    }
    ASSERT_LT(begin, lines.size()) << summary_;
    EXPECT_LE(end - begin, 80u) << summary_;
    const std::vector<std::string> section(lines.begin() + static_cast<long>(begin),
                                           lines.begin() + static_cast<long>(end));
    // The causes of the unsafe verdicts, from the JSON report.
    std::map<std::string, int> causes;  // "key subject" -> profiles
    int unsafe = 0;
    for (const auto& p : device["profiles"]) {
      if (p["verdict"] != "unsafe") continue;
      ++unsafe;
      ASSERT_TRUE(p.contains("cause")) << p.dump();
      ++causes[p["cause"]["key"].get<std::string>() + " " + p["cause"].value("subject", "")];
    }
    if (unsafe == 0) continue;
    const std::string header = "  unsafe: " + std::to_string(unsafe) + " profiles, " +
                               std::to_string(causes.size()) + " cause(s)";
    const auto at = std::find(section.begin(), section.end(), header);
    ASSERT_NE(at, section.end()) << header << "\n" << summary_;
    // Each cause once, its count first: the lines after the header, one per cause.
    std::map<int, int> lines_by_count, causes_by_count;
    for (const auto& [cause, count] : causes) ++causes_by_count[count];
    const std::regex cause_line(R"(^    ([0-9]+) x .+ \[formats .+; KV .+; contexts .+\]$)");
    for (auto it = at + 1; it != section.end(); ++it) {
      std::smatch m;
      if (!std::regex_match(*it, m, cause_line)) break;
      ++lines_by_count[std::stoi(m[1].str())];
    }
    EXPECT_EQ(lines_by_count, causes_by_count) << summary_;
    if (device.contains("recommendation") && !device["recommendation"].is_null()) {
      const std::string recommended =
          "  recommended: " + device["recommendation"]["profile"].get<std::string>() + " (";
      EXPECT_EQ(std::count_if(section.begin(), section.end(),
                              [&](const std::string& l) { return l.rfind(recommended, 0) == 0; }),
                1)
          << summary_;
    }
  }
  // PoCL's f16 activations are one cause, named once, whatever their count.
  EXPECT_EQ(std::count_if(lines.begin(), lines.end(),
                          [](const std::string& l) {
                            return l.find("f16.arithmetic unsupported in conformance") !=
                                   std::string::npos;
                          }),
            1)
      << summary_;
}

// Without a terminal, stderr holds a start and an end line per stage of each device, in order:
// "opencl:0 conform ..." then "opencl:0 conform 31/31 rows pass 3.1 s".
void RunOnEveryDevice::OneProgressLinePerStageAndDevice() {
  const auto lines = lines_of(read_text(dir_ / "progress.txt"));
  auto report = load(dir_ / "report.json");
  for (const auto& device : report["devices"]) {
    for (const auto& view : device["views"]) {
      if (!view["usable"].get<bool>() || view["api"] == "drm") continue;
      const std::string api = view["api"];
      const std::string id = view["info"]["id"];
      std::vector<std::string> stages{"stress", "peak", "profiles"};
      if (api != "host") stages.insert(stages.begin(), "conform");
      for (const auto& stage : stages) {
        SCOPED_TRACE(id + " " + stage);
        const std::string prefix = id + " " + stage + " ";
        std::vector<size_t> starts, ends;
        const std::regex end_line("^" + prefix + ".+ [0-9]+\\.[0-9] s$");
        for (size_t i = 0; i < lines.size(); ++i) {
          if (lines[i] == prefix + "...") starts.push_back(i);
          if (std::regex_match(lines[i], end_line)) ends.push_back(i);
        }
        ASSERT_EQ(starts.size(), 1u) << read_text(dir_ / "progress.txt");
        ASSERT_EQ(ends.size(), 1u) << read_text(dir_ / "progress.txt");
        EXPECT_LT(starts[0], ends[0]);
      }
    }
  }
}

TEST_F(RunOnEveryDevice, AQuickRunReportsRendersAndGates) {
  {
    SCOPED_TRACE("report");
    WritesAReportValidAgainstTheSchemaAndLeavesNoJournal();
  }
  {
    SCOPED_TRACE("llvmpipe");
    LlvmpipeRefusesTheWholeF32VectorAndRunsTheTiledVariant();
  }
  {
    SCOPED_TRACE("pocl f16");
    PoclF16ComputeIsUnsafeBecauseF16IsUnsupported();
  }
  {
    SCOPED_TRACE("passes");
    PassesOfAPromptAndOfSequencesAreMeasuredOnEveryDevice();
  }
  {
    SCOPED_TRACE("diff");
    ReportDiffGatesARegression();
  }
  {
    SCOPED_TRACE("junit and html");
    JunitAndHtmlRenderingsOfTheRun();
  }
  {
    SCOPED_TRACE("summary by cause");
    TheSummaryGroupsUnsafeProfilesByCause();
  }
  {
    SCOPED_TRACE("progress");
    OneProgressLinePerStageAndDevice();
  }
}

TEST(RunOnPocl, TheSafeContextShrinksUnderPoclMemoryLimit) {
  TempDir dir("run-limit");
  auto full = run_command(gauntlet_exe() + " run --quiet --device opencl:0 --shape " + kLongShape +
                          " --out " + (dir / "full.json").string());
  ASSERT_LE(full.exit_code, 1) << full.output;
  auto small = run_command("POCL_MEMORY_LIMIT=1 " + gauntlet_exe() +
                           " run --quiet --device opencl:0 --shape " + kLongShape + " --out " +
                           (dir / "small.json").string());
  ASSERT_LE(small.exit_code, 1) << small.output;
  const auto* big_device = device_with_view(load(dir / "full.json"), "opencl");
  auto small_report = load(dir / "small.json");
  const auto* small_device = device_with_view(small_report, "opencl");
  ASSERT_NE(small_device, nullptr);
  auto full_report = load(dir / "full.json");
  big_device = device_with_view(full_report, "opencl");
  ASSERT_NE(big_device, nullptr);
  const uint32_t with_limit = largest_safe_context(*small_device, "Q8_0");
  const uint32_t without = largest_safe_context(*big_device, "Q8_0");
  EXPECT_GT(with_limit, 0u);
  EXPECT_LT(with_limit, without);
  EXPECT_LE((*small_device)["stress"]["safe_budget_bytes"].get<uint64_t>(), 1ull << 30);
}

TEST(RunOnPocl, ASimulatedThirtyTwoKilobyteDeviceRefusesTheWholeVector) {
  TempDir dir("run-simulate");
  auto r = run_command(gauntlet_exe() + " run --quiet --device opencl:0 --simulate m2-32k-local " +
                       "--shape " + kWideShape + " --out " + (dir / "report.json").string());
  ASSERT_LE(r.exit_code, 1) << r.output;
  auto report = load(dir / "report.json");
  const auto* cl = device_with_view(report, "opencl");
  ASSERT_NE(cl, nullptr);
  EXPECT_TRUE((*cl)["simulation"]["simulated"].get<bool>());
  EXPECT_EQ((*cl)["verified"]["local_mem_verified_bytes"], 32768);
  const auto* whole = profile(*cl, "F32/f32/kv-f32/wg64-whole/ctx512/b1");
  ASSERT_NE(whole, nullptr);
  EXPECT_EQ((*whole)["verdict"], "unsafe");
  EXPECT_NE((*whole)["reason"].get<std::string>().find(" > 32768"), std::string::npos);
}

// --soak holds the device's heaviest safe profile after its checks and reports the speed cold and
// steady, the decline and what the machine's signals saw (this machine exposes no temperature).
TEST(RunOnPocl, ASoakHoldsTheHeaviestSafeProfileAndReportsColdAndSteadySpeeds) {
  TempDir dir("run-soak");
  auto r = run_command(gauntlet_exe() + " run --quiet --device opencl:0 --shape " + kWideShape +
                       " --soak 5 --format text --out " + (dir / "report.txt").string());
  ASSERT_LE(r.exit_code, 1) << r.output;
  auto report = load(dir / "report.json");
  const auto* cl = device_with_view(report, "opencl");
  ASSERT_NE(cl, nullptr);
  ASSERT_TRUE(cl->contains("soak")) << cl->dump();
  const auto& soak = (*cl)["soak"];
  EXPECT_EQ(soak["error"], "") << soak.dump();
  EXPECT_EQ(soak["seconds"], 5.0);
  // A safe decode profile of the whole model, of the largest weight format among the safe ones.
  const std::string held = soak["profile"];
  const auto* chosen = profile(*cl, held);
  ASSERT_NE(chosen, nullptr) << held;
  EXPECT_EQ((*chosen)["verdict"], "safe");
  EXPECT_EQ(held.substr(held.size() - 3), "/b1");
  for (const auto& p : (*cl)["profiles"]) {
    if (p["verdict"] == "safe" && p["weight_format"] == "F32") {
      EXPECT_EQ(held.rfind("F32/", 0), 0u) << "F32 is safe and larger than " << held;
    }
  }
  const auto& samples = soak["samples"];
  ASSERT_GE(samples.size(), 2u) << soak.dump();
  EXPECT_GE(samples.back()[0].get<double>(), 5.0);
  EXPECT_GT(soak["cold_tok_s"].get<double>(), 0.0);
  EXPECT_GT(soak["steady_tok_s"].get<double>(), 0.0);
  const double decline =
      1.0 - soak["steady_tok_s"].get<double>() / soak["cold_tok_s"].get<double>();
  EXPECT_NEAR(soak["decline"].get<double>(), decline, 1e-9);
  // The hottest temperature where the machine has a sensor (this VM has none), said either way.
  const std::string temperature =
      soak.contains("max_temperature_c")
          ? "; hottest " + std::to_string(std::lround(soak["max_temperature_c"].get<double>())) +
                " °C"
          : std::string("; no temperature sensor");
  std::ifstream text_file(dir / "report.txt");
  const std::string text((std::istreambuf_iterator<char>(text_file)), {});
  EXPECT_NE(text.find("  soak: " + soak["profile"].get<std::string>() + " held 5 s: "),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("tok/s steady ("), std::string::npos);
  // Every safe profile's figure after the hold: scaled by the held profile's steady / cold.
  EXPECT_NE(text.find("TOK/S   STEADY  PEAK"), std::string::npos) << text;
  const double ratio = soak["steady_tok_s"].get<double>() / soak["cold_tok_s"].get<double>();
  for (const auto& p : (*cl)["profiles"]) {
    if (p["verdict"] != "safe" || p["figures"]["tok_s"].is_null()) continue;
    EXPECT_NEAR(p["figures"]["steady_tok_s"].get<double>(),
                p["figures"]["tok_s"].get<double>() * ratio, 1e-6);
  }
  EXPECT_NE(text.find(temperature), std::string::npos) << text;
}

// Gemma's head_dim 256 on llvmpipe's 32 KiB: the whole-context attention variant at 8192 positions
// needs 34048 bytes and is unsafe with both numbers; where it fits it runs and is safe (the tiled
// variant at 8192 runs in
// EngineDecode.GemmaAttentionTileOverThirtyTwoKibIsRefusedAndATiledOneRuns). The report's fit
// answers give the windowed KV cache beside a window-blind one.
// A driver that refuses the top byte of the local memory it advertises (NVIDIA's OpenCL refuses a
// __local argument of exactly CL_DEVICE_LOCAL_MEM_SIZE): a finding, not a failed run. The run
// exits 0, says so, and plans every safe profile within the figure that worked.
TEST(RunOnPocl, OverAdvertisedLocalMemoryIsAFindingAndTheProfilesArePlannedWithinWhatWorked) {
  TempDir dir("run-over-advertised");
  auto r = run_command("GAUNTLET_TEST_FAULT=conform.local.over_advertise=1 " + gauntlet_exe() +
                       " run --quiet --device opencl:0 --shape " + kWideShape +
                       " --format text --out " + (dir / "report.txt").string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(read_text(dir / "report.txt")
                .find(" advertised, the rest refused: planned against the verified figure"),
            std::string::npos)
      << read_text(dir / "report.txt");
  auto report = load(dir / "report.json");
  const auto* cl = device_with_view(report, "opencl");
  ASSERT_NE(cl, nullptr);
  const auto verified = (*cl)["verified"]["local_mem_verified_bytes"].get<uint64_t>();
  const auto advertised = (*cl)["views"][0]["info"]["local_mem_size"].get<uint64_t>();
  EXPECT_LT(verified, advertised);
  EXPECT_GE(verified, advertised - advertised / 256 - 1);
  size_t safe = 0;
  for (const auto& p : (*cl)["profiles"]) {
    if (p["verdict"] != "safe") continue;
    ++safe;
    EXPECT_LE(p["variant"]["local_mem_bytes"].get<uint64_t>(), verified) << p["name"];
  }
  EXPECT_GT(safe, 0u);
}

TEST(RunOnLlvmpipe, AGemmaAttentionTileOverTheLimitIsUnsafeAndOneThatFitsSafe) {
  TempDir dir("run-gemma");
  auto r = run_command(
      gauntlet_exe() + " run --quiet --device vulkan:0 --shape " +
      "arch=gemma2,n_embd=256,n_layer=2,n_head=4,n_head_kv=2,head_dim=256,n_ff=512," +
      "n_vocab=256,context=8192,window=16,tied=1 --out " + (dir / "report.json").string());
  ASSERT_LE(r.exit_code, 1) << r.output;
  auto report = load(dir / "report.json");
  const auto* vk = device_with_view(report, "vulkan");
  ASSERT_NE(vk, nullptr);
  const auto* whole = profile(*vk, "Q8_0/f32/kv-f32/wg64-whole/ctx8192/b1");
  ASSERT_NE(whole, nullptr);
  EXPECT_EQ((*whole)["verdict"], "unsafe");
  EXPECT_EQ(
      (*whole)["reason"].get<std::string>().rfind(
          "local memory 34048 > 32768 (attention.wg64.sall.f32, head_dim 256, context 8192)", 0),
      0u)
      << (*whole)["reason"];
  // The reason names the variants that fit; at 4096 positions (1024 + 16384 + 256 bytes) the
  // same variant fits, ran and is safe.
  EXPECT_NE(
      (*whole)["reason"].get<std::string>().find("these fit: f32 activations wg64-t1024-s256"),
      std::string::npos);
  const auto* fits = profile(*vk, "Q8_0/f32/kv-f32/wg64-whole/ctx4096/b1");
  ASSERT_NE(fits, nullptr);
  EXPECT_EQ((*fits)["verdict"], "safe") << (*fits)["reason"];
  EXPECT_EQ((*fits)["variant"]["local_mem_bytes"].get<uint64_t>(), 17664u);
  ASSERT_FALSE((*vk)["fit"].empty());
  const auto& fit = (*vk)["fit"][0];
  EXPECT_LT(fit["kv_bytes"].get<uint64_t>(), fit["kv_bytes_without_window"].get<uint64_t>());
}

// Starts `command` in its own process group (exec'd, so the pid is gauntlet's; it dies with the
// test process) and waits until the journal beside `out` records conformance. Returns the pid, or
// -1 when it never did.
pid_t start_and_wait_for_conformance(const std::string& command, const fs::path& journal) {
  pid_t pid = ::fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    ::setpgid(0, 0);
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    ::execl("/bin/sh", "sh", "-c", ("exec " + command + " >/dev/null 2>&1").c_str(), nullptr);
    ::_exit(127);
  }
  ::setpgid(pid, pid);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(5);
  while (std::chrono::steady_clock::now() < deadline) {
    std::ifstream in(journal);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (text.find("\"conform:opencl:0\"") != std::string::npos) return pid;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ::kill(-pid, SIGKILL);
  ::waitpid(pid, nullptr, 0);
  return -1;
}

TEST(RunOnPocl, AKilledRunResumesAndKeepsWhatItHad) {
  TempDir dir("run-resume");
  const auto out = dir / "report.json";
  const auto journal = dir / "report.json.journal";
  const std::string command = gauntlet_exe() + " run --quiet --device opencl:0 --shape " +
                              kWideShape + " --out " + out.string();
  pid_t pid = start_and_wait_for_conformance(command, journal);
  ASSERT_GT(pid, 0) << "the journal never recorded conformance";
  std::ifstream saved(journal);
  std::string before((std::istreambuf_iterator<char>(saved)), std::istreambuf_iterator<char>());
  ::kill(-pid, SIGKILL);
  ::waitpid(pid, nullptr, 0);
  EXPECT_FALSE(fs::exists(out)) << "no report may stand in for the unfinished run";

  auto again = run_command(command);
  EXPECT_EQ(again.exit_code, 2) << "an existing journal must not be overwritten: " << again.output;
  EXPECT_NE(again.output.find("--resume"), std::string::npos);

  auto resumed = run_command(command + " --resume");
  ASSERT_LE(resumed.exit_code, 1) << resumed.output;
  auto report = load(out);
  EXPECT_TRUE(report["complete"].get<bool>());
  const auto* cl = device_with_view(report, "opencl");
  ASSERT_NE(cl, nullptr);
  // Every conformance row finished before the kill is in the final report, unchanged.
  // (The journal holds each unit's machine signals beside it, as "signals:<unit>".)
  core::Json entry;
  std::istringstream lines(before);
  for (std::string line; std::getline(lines, line);) {
    auto parsed = core::Json::parse(line, nullptr, false);
    if (!parsed.is_discarded() && parsed["unit"] == "conform:opencl:0") entry = parsed;
  }
  ASSERT_EQ(entry["unit"], "conform:opencl:0") << before;
  const auto& saved_rows = entry["payload"]["rows"];
  ASSERT_FALSE(saved_rows.empty());
  ASSERT_EQ((*cl)["conformance"].size(), saved_rows.size());
  for (size_t i = 0; i < saved_rows.size(); ++i) {
    EXPECT_EQ((*cl)["conformance"][i]["id"], saved_rows[i]["id"]);
    EXPECT_EQ((*cl)["conformance"][i]["duration_s"], saved_rows[i]["duration_s"]);
  }
}

TEST(RunOnPocl, SigtermWritesAnIncompleteReportThatResumeCompletes) {
  TempDir dir("run-sigterm");
  const auto out = dir / "report.json";
  const std::string command = gauntlet_exe() + " run --quiet --device opencl:0 --shape " +
                              kWideShape + " --out " + out.string();
  pid_t pid = start_and_wait_for_conformance(command, dir / "report.json.journal");
  ASSERT_GT(pid, 0) << "the journal never recorded conformance";
  ::kill(pid, SIGTERM);
  int status = 0;
  ::waitpid(pid, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 130) << status;
  ASSERT_TRUE(fs::exists(out)) << "SIGTERM must leave a report";
  auto partial = load(out);
  EXPECT_FALSE(partial["complete"].get<bool>());
  EXPECT_TRUE(fs::exists(dir / "report.json.journal"));

  auto resumed = run_command(command + " --resume");
  ASSERT_LE(resumed.exit_code, 1) << resumed.output;
  EXPECT_TRUE(load(out)["complete"].get<bool>());
  EXPECT_FALSE(fs::exists(dir / "report.json.journal"));
}

// A file as llama.cpp's quantizer writes it (Q4_K_M: q4_K, q6_K and f32 norms) gets verdicts of
// its own mix on every device, and `model info` lists the mix.
TEST(RunAModelFile, AQ4KMFileGetsVerdictsOnEveryDevice) {
  TempDir dir("run-q4km");
  const auto model = (dir / "m.gguf").string();
  auto made =
      run_command(gauntlet_exe() + " model make --shape test-gqa --format q4_k_m -o " + model);
  ASSERT_EQ(made.exit_code, 0) << made.output;
  auto info = run_command(gauntlet_exe() + " model info --json " + model + " 2>/dev/null");
  ASSERT_EQ(info.exit_code, 0) << info.output;
  const auto j = core::Json::parse(info.output);
  EXPECT_EQ(j["format"], "Q4_K_M");
  std::map<std::string, uint64_t> tensors;
  for (const auto& t : j["type_mix"]) tensors[t["type"]] = t["tensors"].get<uint64_t>();
  // test-gqa, 2 layers: use_more_bits picks layer 1 (i >= 7n/8), so its attn_v and ffn_down and
  // the output are q6_K (3); token_embd and the other 12 matrices are q4_K (13); 5 f32 norms.
  EXPECT_EQ(tensors, (std::map<std::string, uint64_t>{{"f32", 5}, {"q4_K", 13}, {"q6_K", 3}}));

  auto r = run_command(gauntlet_exe() + " run --quiet --level quick --model " + model + " --out " +
                       (dir / "r.json").string());
  ASSERT_LE(r.exit_code, 1) << r.output;
  const auto report = load(dir / "r.json");
  EXPECT_EQ(report["model"]["format"], "Q4_K_M");
  for (const std::string api : {"opencl", "vulkan", "host"}) {
    SCOPED_TRACE(api);
    const auto* device = device_with_view(report, api);
    ASSERT_NE(device, nullptr);
    int safe = 0, total = 0;
    for (const auto& p : (*device)["profiles"]) {
      EXPECT_EQ(p["weight_format"], "Q4_K_M");
      ++total;
      if (p["verdict"] == "safe") ++safe;
    }
    EXPECT_GT(total, 0);
    EXPECT_GT(safe, 0) << "no Q4_K_M configuration ran and matched the host";
  }
}

// A tensor of a ggml type gauntlet does not run is refused by name, with the supported types.
TEST(RunAModelFile, AnUnknownTensorTypeIsRefusedByName) {
  TempDir dir("run-q2k");
  const auto model = dir / "m.gguf";
  ASSERT_EQ(run_command(gauntlet_exe() + " model make --shape test-tiny --format F32 -o " +
                        model.string())
                .exit_code,
            0);
  std::string bytes;
  {
    std::ifstream in(model, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  // token_embd's info: name, u32 n_dims (2), two u64 dims, then its u32 type.
  const auto at = bytes.find("token_embd.weight");
  ASSERT_NE(at, std::string::npos);
  const size_t type_at = at + std::string("token_embd.weight").size() + 4 + 16;
  const uint32_t i8 = 24;  // a ggml type gauntlet does not run
  bytes.replace(type_at, 4, reinterpret_cast<const char*>(&i8), 4);
  std::ofstream(model, std::ios::binary) << bytes;
  const std::vector<std::string> commands = {
      " model info ",
      " run --quiet --device host --out " + (dir / "r.json").string() + " --model "};
  for (const auto& command : commands) {
    auto r = run_command(gauntlet_exe() + command + model.string());
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find("tensor 'token_embd.weight' has type i8 (id 24)"), std::string::npos)
        << r.output;
    EXPECT_NE(r.output.find("q4_K (12)"), std::string::npos) << r.output;
  }
  EXPECT_FALSE(fs::exists(dir / "r.json"));
}

TEST(RunUsage, BadInputExitsTwoWithAClearMessage) {
  auto missing_dir = run_command(gauntlet_exe() + " run --out /nonexistent/dir/report.json");
  EXPECT_EQ(missing_dir.exit_code, 2);
  EXPECT_NE(missing_dir.output.find("/nonexistent/dir"), std::string::npos);
  TempDir dir("run-usage");
  std::ofstream(dir / "bad.gguf") << "not a model";
  auto bad_model = run_command(gauntlet_exe() + " run --model " + (dir / "bad.gguf").string() +
                               " --out " + (dir / "r.json").string());
  EXPECT_EQ(bad_model.exit_code, 2);
  EXPECT_NE(bad_model.output.find("magic"), std::string::npos) << bad_model.output;
  auto bad_preset = run_command(gauntlet_exe() + " run --simulate no-such-device --out " +
                                (dir / "r.json").string());
  EXPECT_EQ(bad_preset.exit_code, 2);
  EXPECT_NE(bad_preset.output.find("m2-32k-local"), std::string::npos) << bad_preset.output;
  EXPECT_FALSE(fs::exists(dir / "r.json"));
}

// One rule for bad input: every command exits 2 for a device that is not there, naming it, and a
// filter that matches nothing is exit 2 naming the filter.
TEST(BadInput, EveryCommandExitsTwoForADeviceThatIsNotThere) {
  TempDir dir("bad-input");
  const std::string shape =
      " --shape n_embd=64,n_layer=1,n_head=2,n_ff=128,n_vocab=256,context=256";
  for (const std::string& command : std::vector<std::string>{
           "probe", "conform", "stress", "run --out " + (dir / "r.json").string(),
           "decode --tokens 1" + shape, "bench -p 0 -n 1" + shape}) {
    SCOPED_TRACE(command);
    auto r = run_command(gauntlet_exe() + " " + command + " --device opencl:9");
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find("opencl:9"), std::string::npos) << r.output;
  }
  EXPECT_FALSE(fs::exists(dir / "r.json"));
  auto nothing = run_command(gauntlet_exe() + " conform --device host --filter 'zzz*'");
  EXPECT_EQ(nothing.exit_code, 2) << nothing.output;
  EXPECT_NE(nothing.output.find("--filter 'zzz*' matches no conformance case"), std::string::npos)
      << nothing.output;
}

}  // namespace
}  // namespace gauntlet::testing
