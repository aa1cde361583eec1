// The report model round-trips through its JSON file, the schema accepts what the writer writes,
// and the reader refuses broken reports naming what is wrong.
#include <gtest/gtest.h>

#include <fstream>

#include "reports/fit_rows.h"
#include "reports/host.h"
#include "reports/io.h"
#include "reports/schema_check.h"
#include "tests/reports/sample_report.h"

namespace gauntlet::reports {
namespace {

using testing::sample_report;
using testing::test_dir;

void write_text(const std::filesystem::path& path, const std::string& text) {
  std::ofstream(path) << text;
}

TEST(ReportModel, FamiliarNames) {
  EXPECT_EQ(familiar_name("q4_0", "f16"), "q4f16_0");
  EXPECT_EQ(familiar_name("q8_0", "f32"), "q8f32_0");
  EXPECT_EQ(familiar_name("f32", "f32"), "q0f32");
  EXPECT_EQ(familiar_name("f16", "f16"), "q0f16");
  EXPECT_EQ(familiar_name("bf16", "f32"), "q0f32");
}

TEST(ReportModel, SummaryCountsVerdictsAndRows) {
  auto r = sample_report();
  EXPECT_EQ(r.summary.devices, 2);
  EXPECT_EQ(r.summary.profiles_safe, 4);
  EXPECT_EQ(r.summary.profiles_unsafe, 4);
  EXPECT_EQ(r.summary.profiles_untested, 1);
  EXPECT_EQ(r.summary.profiles_derived, 1);
  EXPECT_EQ(r.summary.rows_by_status.at("crash"), 3);  // two stress steps and one profile
  EXPECT_EQ(r.summary.rows_by_status.at("fail"), 1);
  EXPECT_EQ(r.summary.exit_code, 1);
  for (auto& d : r.devices) {
    for (auto& v : d.views) v.usable = false;
  }
  EXPECT_EQ(compute_summary(r).exit_code, 3);
}

TEST(ReportIo, WriteReadIsEqual) {
  auto dir = test_dir("roundtrip");
  auto original = sample_report();
  ASSERT_TRUE(write_report(dir / "report.json", original).is_ok());
  auto read = read_report(dir / "report.json");
  ASSERT_TRUE(read.is_ok()) << read.error().describe();
  EXPECT_EQ(report_to_json(*read), report_to_json(original));
  EXPECT_EQ(read->devices.at(0).profiles.at(2).reason, "local memory 41216 > 32768");
  EXPECT_EQ(read->devices.at(1).simulation.local_mem_bytes, 32768u);
  EXPECT_FALSE(read->devices.at(1).stress.has_value());
  EXPECT_FALSE(read->devices.at(0).profiles.at(6).figures.tok_s.has_value());
  // No temporary file is left beside the report.
  int files = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator(dir)) ++files;
  EXPECT_EQ(files, 1);
}

TEST(ReportSchema, SampleIsValidForBothValidators) {
  auto dir = test_dir("schema_ok");
  ASSERT_TRUE(write_report(dir / "report.json", sample_report()).is_ok());
  EXPECT_TRUE(check_report_schema(report_to_json(sample_report())).empty());
  std::string output;
  EXPECT_EQ(testing::validate_with_jsonschema(dir / "report.json", &output), 0) << output;
}

struct Breakage {
  const char* name;
  void (*edit)(core::Json&);
  const char* path;     // where the embedded checker must point
  const char* keyword;  // a word of the message of both validators
};

const Breakage kBreakages[] = {
    {"missing_tool", [](core::Json& j) { j.erase("tool"); }, "/", "tool"},
    {"bad_verdict",
     [](core::Json& j) { j["devices"][0]["profiles"][1]["verdict"] = "probably_fine"; },
     "/devices/0/profiles/1/verdict", "probably_fine"},
    {"context_as_string", [](core::Json& j) { j["devices"][1]["profiles"][0]["context"] = "2048"; },
     "/devices/1/profiles/0/context", "2048"},
    {"unsafe_without_reason", [](core::Json& j) { j["devices"][0]["profiles"][2]["reason"] = ""; },
     "/devices/0/profiles/2/reason", ""},
    {"bad_row_status", [](core::Json& j) { j["devices"][0]["conformance"][0]["status"] = "ok"; },
     "/devices/0/conformance/0/status", "ok"},
    {"negative_budget", [](core::Json& j) { j["devices"][0]["stress"]["safe_budget_bytes"] = -1; },
     "/devices/0/stress/safe_budget_bytes", "-1"},
    {"missing_feature_verdict",
     [](core::Json& j) {
       j["devices"][0]["verified"]["features"]["f16.arithmetic"].erase("verdict");
     },
     "/devices/0/verified/features/f16.arithmetic", "verdict"},
};

TEST(ReportSchema, BrokenReportsFailForTheRightReason) {
  auto dir = test_dir("schema_broken");
  for (const auto& b : kBreakages) {
    SCOPED_TRACE(b.name);
    auto json = report_to_json(sample_report());
    b.edit(json);
    auto violations = check_report_schema(json);
    ASSERT_FALSE(violations.empty());
    bool at_path = false;
    for (const auto& v : violations)
      at_path = at_path || v.path == b.path || (v.path.empty() && std::string(b.path) == "/");
    EXPECT_TRUE(at_path) << violations[0].describe();

    auto file = dir / (std::string(b.name) + ".json");
    write_text(file, json.dump(1));
    auto read = read_report(file);
    ASSERT_FALSE(read.is_ok());
    EXPECT_NE(read.error().message.find(file.string()), std::string::npos) << read.error().message;
    EXPECT_NE(read.error().message.find(b.keyword), std::string::npos) << read.error().message;

    std::string output;
    EXPECT_EQ(testing::validate_with_jsonschema(file, &output), 1) << output;
    std::string py_path = b.path;
    EXPECT_NE(output.find(": " + (py_path == "/" ? std::string("/:") : py_path + ":")),
              std::string::npos)
        << output;
  }
}

TEST(ReportIo, ReaderRefusesBadJsonAndOtherVersions) {
  auto dir = test_dir("reader_refuses");
  write_text(dir / "truncated.json", report_to_json(sample_report()).dump().substr(0, 300));
  auto truncated = read_report(dir / "truncated.json");
  ASSERT_FALSE(truncated.is_ok());
  EXPECT_NE(truncated.error().message.find("truncated.json is not valid JSON"), std::string::npos)
      << truncated.error().message;

  auto json = report_to_json(sample_report());
  json["schema_version"] = "2.0";
  write_text(dir / "future.json", json.dump());
  auto future = read_report(dir / "future.json");
  ASSERT_FALSE(future.is_ok());
  EXPECT_NE(future.error().message.find("schema_version \"2.0\""), std::string::npos)
      << future.error().message;

  json.erase("schema_version");
  write_text(dir / "none.json", json.dump());
  auto none = read_report(dir / "none.json");
  ASSERT_FALSE(none.is_ok());
  EXPECT_NE(none.error().message.find("no \"schema_version\""), std::string::npos);

  write_text(dir / "array.json", "[1, 2]");
  EXPECT_FALSE(read_report(dir / "array.json").is_ok());
  auto missing = read_report(dir / "does-not-exist.json");
  ASSERT_FALSE(missing.is_ok());
  EXPECT_EQ(missing.error().kind, core::ErrorKind::not_found);
}

// A report written before schema 1.3 has no compute peak and no prompt-processing figures: it
// still validates and reads, with both absent.
TEST(ReportIo, ReportWithoutComputePeakStillReads) {
  auto dir = test_dir("older");
  auto original = sample_report();
  ASSERT_TRUE(original.devices.at(0).compute_peak.has_value());
  ASSERT_TRUE(original.devices.at(0).profiles.at(0).figures.fraction_of_f32_peak.has_value());
  EXPECT_NEAR(*original.devices.at(0).profiles.at(0).figures.fraction_of_f32_peak, 0.25, 1e-12);
  auto json = report_to_json(original);
  EXPECT_TRUE(check_report_schema(json).empty());
  json["schema_version"] = "1.2";
  for (auto& device : json["devices"]) {
    device.erase("compute_peak");
    for (auto& profile : device["profiles"]) {
      profile.erase("micro_batch");
      for (const char* key :
           {"achieved_gflops", "fraction_of_f32_peak", "pp_tok_s", "pp_tokens", "tg_tokens"}) {
        profile["figures"].erase(key);
      }
    }
  }
  EXPECT_TRUE(check_report_schema(json).empty());
  write_text(dir / "older.json", json.dump());
  auto read = read_report(dir / "older.json");
  ASSERT_TRUE(read.is_ok()) << read.error().describe();
  EXPECT_EQ(read->schema_version, "1.2");
  EXPECT_FALSE(read->devices.at(0).compute_peak.has_value());
  EXPECT_FALSE(read->devices.at(0).profiles.at(0).figures.achieved_gflops.has_value());
  EXPECT_FALSE(read->devices.at(0).profiles.at(0).figures.pp_tok_s.has_value());
  EXPECT_EQ(read->devices.at(0).profiles.at(0).micro_batch, 1u);
  EXPECT_EQ(read->devices.at(0).profiles.at(0).figures.tok_s, 41.5);

  // And the schema refuses a peak that is not a positive figure.
  auto bad = report_to_json(original);
  bad["devices"][0]["compute_peak"]["f32_gflops"] = 0.0;
  EXPECT_FALSE(check_report_schema(bad).empty());
}

TEST(ComputePeak, RatioToPeak) {
  core::ComputePeak peak;
  EXPECT_FALSE(core::ratio_to_peak(10.0, peak).has_value()) << "no f32 peak, no ratio";
  peak.f32_gflops = 200.0;
  EXPECT_DOUBLE_EQ(*core::ratio_to_peak(50.0, peak), 0.25);
  const auto round = core::Json(peak).get<core::ComputePeak>();
  EXPECT_EQ(round.f32_gflops, peak.f32_gflops);
  EXPECT_FALSE(round.f16_gflops.has_value());
}

TEST(ReportModel, DetectsThisHost) {
  auto host = detect_host();
  EXPECT_FALSE(host.hostname.empty());
  EXPECT_NE(host.os.find("Linux"), std::string::npos) << host.os;
  EXPECT_GT(host.memory_bytes, 64ull * 1024 * 1024);
  // A report carrying it is still valid.
  auto r = sample_report();
  r.host = host;
  EXPECT_TRUE(check_report_schema(report_to_json(r)).empty());
}

TEST(ReportIo, MinorVersionIsAccepted) {
  auto json = report_to_json(sample_report());
  json["schema_version"] = "1.9";
  json["a_field_from_the_future"] = true;
  auto parsed = report_from_json(json, "minor.json");
  ASSERT_TRUE(parsed.is_ok()) << parsed.error().describe();
}

// A placed fit answer keeps what the run measured and a mixture's experts on the host.
TEST(ReportIo, APlacedFitAnswerKeepsItsMeasuredSpeedAndExperts) {
  FitAnswer a;
  a.weight_format = "Q4_K_M";
  FitAnswer::Placement p;
  p.device_slots = 49;
  p.layer_slots = 49;
  p.context = 4096;
  p.min_context = 4096;
  p.micro_batch = 512;
  p.expert_layers_on_host = 15;
  p.bytes = {{"device", 13806254080ull}, {"host", 5759829504ull}};
  p.tokens_per_second = 7.4;
  p.measured_profile = "Q4_K_M/f32/kv-f32/default/ctx1024/b1/ngl=49 n-cpu-moe=15";
  a.placement = p;
  Json j = a;
  EXPECT_EQ(j["placement"]["tokens_per_second"], 7.4);
  EXPECT_EQ(j["placement"]["expert_layers_on_host"], 15);
  const auto back = j.get<FitAnswer>();
  ASSERT_TRUE(back.placement.has_value());
  EXPECT_EQ(back.placement->tokens_per_second, 7.4);
  EXPECT_EQ(back.placement->measured_profile, p.measured_profile);
  EXPECT_EQ(back.placement->expert_layers_on_host, 15u);
  EXPECT_EQ(back.placement->bytes, p.bytes);
}

// What a deployment loads beside the model: a draft, a projector, the MTP head. Each is kept in
// the JSON and is its own line in the text.
TEST(ReportIo, TheModelsCompanionsRoundTripAndAreTheirOwnLines) {
  FitAnswer a;
  a.weight_format = "Q8_0";
  a.largest_context = 8192;
  a.planned_bytes = 300ull << 20;
  a.draft_model = "draft.gguf";
  a.draft_bytes = 100ull << 20;
  a.projector_model = "mmproj.gguf";
  a.projector_bytes = 40ull << 20;
  a.mtp_layers = 1;
  a.mtp_bytes = 90ull << 20;
  const Json j = a;
  EXPECT_EQ(j["projector_model"], "mmproj.gguf");
  EXPECT_EQ(j["mtp_layers"], 1);
  const auto back = j.get<FitAnswer>();
  EXPECT_EQ(back.projector_bytes, a.projector_bytes);
  EXPECT_EQ(back.mtp_bytes, a.mtp_bytes);
  EXPECT_EQ(back.draft_bytes, a.draft_bytes);
  const auto lines = detail::fit_companion_lines({a});
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0],
            "vision projector (--mmproj) mmproj.gguf on the device beside the model, its weights "
            "and the compute buffer of its warmup image (counted in PLANNED): 40 MiB");
  EXPECT_EQ(lines[1],
            "draft model (-md) draft.gguf on the device beside the model, with its own KV cache "
            "and compute buffer (counted in PLANNED): 100 MiB at context 8192 (Q8_0)");
  EXPECT_EQ(lines[2],
            "MTP head (--spec-type draft-mtp): the model's 1 MTP block(s) on the device and an "
            "MTP context with its own KV cache and compute buffer (counted in PLANNED): "
            "90 MiB at context 8192 (Q8_0)");
  // Without them: none, and none in the JSON.
  FitAnswer plain;
  plain.weight_format = "Q8_0";
  EXPECT_TRUE(detail::fit_companion_lines({plain}).empty());
  const Json plain_json = plain;
  EXPECT_FALSE(plain_json.contains("mtp_layers"));
  EXPECT_FALSE(plain_json.contains("projector_model"));
}

}  // namespace
}  // namespace gauntlet::reports
