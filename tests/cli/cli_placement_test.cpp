// llama.cpp's placement flags on decode, bench and run: -ngl and --device A,B -ts a,b decode the
// same greedy tokens as the whole model on the host; bench reports pp/tg for a placement; run's
// fit answer places an 8B F16 model on an 8 GiB card; bad flags are exit 2 with the reason.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "core/json.h"
#include "tests/support/run_command.h"
#include "tests/support/temp_dir.h"

namespace gauntlet::testing {
namespace {

core::Json decode_json(const std::string& flags) {
  auto r = run_command(gauntlet_exe() + " decode --shape test-small --format Q8_0 -n 6 " + flags +
                       " --json 2>/dev/null");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  return r.exit_code == 0 ? core::Json::parse(r.output) : core::Json{};
}

TEST(CliPlacement, NglAndTensorSplitDecodeTheHostsTokens) {
  const auto host = decode_json("--device host");
  const auto ngl = decode_json("--device opencl:0 -ngl 2");
  EXPECT_EQ(ngl["placement"], "ngl=2");
  EXPECT_EQ(ngl["device"], "host: layers 0-1; opencl:0: layer 2 + output");
  EXPECT_EQ(ngl["tokens"], host["tokens"]);
  const auto split = decode_json("--device opencl:0,vulkan:0 -ts 1,1");
  EXPECT_EQ(split["placement"], "ngl=4 ts=1,1");
  EXPECT_EQ(split["device"], "opencl:0: layers 0-1; vulkan:0: layer 2 + output");
  EXPECT_EQ(split["tokens"], host["tokens"]);
}

TEST(CliPlacement, NglPastTheLayersIsClampedAndSaidSo) {
  auto r = run_command(gauntlet_exe() +
                       " decode --shape test-small --format Q8_0 -n 2 --device opencl:0 -ngl 40");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("--n-gpu-layers 40 clamped to 4 (3 layers and the output layer)"),
            std::string::npos)
      << r.output;
}

TEST(CliPlacement, BadPlacementFlagsAreUsageErrors) {
  const std::pair<const char*, const char*> cases[] = {
      {"--device opencl:0,vulkan:0 -ts 1", "--tensor-split has 1 shares for 2 devices"},
      {"--device opencl:0,vulkan:0 -ts 1,-1", "--tensor-split share -1 is negative"},
      {"--device opencl:0,opencl:0", "--device names opencl:0 twice"},
      {"--device opencl:9", "cannot open opencl:9"},
      {"--device host -ngl 2", "--device host is the host"},
  };
  for (const auto& [flags, message] : cases) {
    SCOPED_TRACE(flags);
    auto r = run_command(gauntlet_exe() + " decode --shape test-small -n 2 " + flags);
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find(message), std::string::npos) << r.output;
  }
}

TEST(CliPlacement, RunRefusesASplitThatDoesNotMatchItsDevices) {
  TempDir dir("placement-bad-run");
  const auto out = dir / "r.json";
  auto r = run_command(gauntlet_exe() + " run --level quick --device opencl:0,vulkan:0 -ts 1 " +
                       "--quiet --out " + out.string());
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("--tensor-split has 1 shares for 2 devices"), std::string::npos)
      << r.output;
  EXPECT_FALSE(std::filesystem::exists(out));
}

TEST(CliPlacement, BenchReportsThePlacementsSpeed) {
  auto r = run_command(gauntlet_exe() +
                       " bench --shape test-small --format Q8_0 --device opencl:0 -ngl 2 -p 32 "
                       "-n 8 -r 1 -o json 2>/dev/null");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto rows = core::Json::parse(r.output);
  ASSERT_EQ(rows.size(), 2u);
  for (const auto& row : rows) {
    EXPECT_NE(row.dump().find("ngl=2"), std::string::npos) << row.dump();
    EXPECT_GT(row["avg_ts"].get<double>(), 0.0) << row.dump();
  }
}

TEST(CliPlacement, RunAnswersAnEightBillionF16ModelOnAnEightGigabyteCardWithAPlacement) {
  TempDir dir("placement-run");
  const auto out = dir / "r.json";
  auto r = run_command(gauntlet_exe() +
                       " run --shape llama-3.1-8b --simulate arc-8g --device opencl:0 --quiet "
                       "--format json --out " +
                       out.string() + " >/dev/null 2>&1");
  ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.output;
  std::ifstream in(out);
  const auto report = core::Json::parse(in);
  const auto& fit = report["devices"][0]["fit"];
  bool f16_placed = false;
  for (const auto& answer : fit) {
    if (answer["weight_format"] != "F16") continue;
    ASSERT_TRUE(answer.contains("placement")) << answer.dump();
    const auto& p = answer["placement"];
    EXPECT_EQ(p["layer_slots"], 33);
    EXPECT_EQ(p["context"], 4096);
    EXPECT_GT(p["device_slots"].get<int>(), 0);
    EXPECT_LT(p["device_slots"].get<int>(), 33);
    EXPECT_LE(p["bytes"]["device"].get<uint64_t>(), answer["budget_bytes"].get<uint64_t>());
    f16_placed = true;
  }
  EXPECT_TRUE(f16_placed) << fit.dump();
}

TEST(CliPlacement, RunPlacesItsPlacedProfilesAsNglSays) {
  TempDir dir("placement-ngl");
  const auto out = dir / "r.json";
  auto r = run_command(gauntlet_exe() + " run --level quick --device opencl:0 -ngl 1 --quiet " +
                       "--out " + out.string() + " >/dev/null 2>&1");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::ifstream in(out);
  const auto report = core::Json::parse(in);
  int placed = 0, safe = 0;
  for (const auto& p : report["devices"][0]["profiles"]) {
    if (p["placement"].get<std::string>().empty()) continue;
    ++placed;
    EXPECT_EQ(p["placement"], "ngl=1") << p.dump();
    EXPECT_EQ(p["placement_shares"], "host: layers 0-1; opencl:0: output") << p.dump();
    if (p["verdict"] == "safe") ++safe;
  }
  EXPECT_GT(placed, 0);
  EXPECT_EQ(safe, 1);  // the quick level checks the pass of 32 tokens of Q8_0
}

// The largest context of a format that fits whole, in a run of qwen3-8b on arc-8g with `flags`.
uint32_t q4km_context_on_arc8g(const std::string& flags) {
  TempDir dir("placement-kv");
  const auto out = dir / "r.json";
  auto r =
      run_command(gauntlet_exe() + " run --shape qwen3-8b --simulate arc-8g --device opencl:0 " +
                  flags + " --quiet --out " + out.string() + " >/dev/null 2>&1");
  EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.output;
  std::ifstream in(out);
  const auto report = core::Json::parse(in);
  for (const auto& answer : report["devices"][0]["fit"]) {
    if (answer["weight_format"] == "Q4_K_M") return answer["largest_context"].get<uint32_t>();
  }
  ADD_FAILURE() << "no Q4_K_M fit answer";
  return 0;
}

TEST(CliPlacement, AQ8_0CacheWithFlashAttentionFitsALongerContextThanF16) {
  const uint32_t f16 = q4km_context_on_arc8g("");
  const uint32_t q8 = q4km_context_on_arc8g("-ctk q8_0 -ctv q8_0");
  EXPECT_EQ(f16, 10240u);  // 36 layers x 8 heads x 128 x 2 bytes x 2 per cell
  EXPECT_GT(q8, 2 * f16);  // half the cell, and no score matrices in the compute buffer
}

TEST(CliPlacement, RunRefusesAnUnknownCacheTypeAndAQuantizedVWithoutFlashAttention) {
  TempDir dir("placement-kv-bad");
  const auto out = dir / "r.json";
  auto r = run_command(gauntlet_exe() + " run --shape qwen3-8b -ctk q3_K --out " + out.string());
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("--cache-type-k 'q3_K' is not a KV cache type (f32, f16, bf16, q8_0"),
            std::string::npos)
      << r.output;
  r = run_command(gauntlet_exe() + " run --shape qwen3-8b -ctv q8_0 -fa off --out " + out.string());
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("--cache-type-v q8_0 needs flash attention"), std::string::npos)
      << r.output;
  EXPECT_FALSE(std::filesystem::exists(out));
}

// -md and -np in the fit answer: a small draft of llama-3.1-8b's vocabulary is planned beside it
// on a 16 GiB card, its own line in the text and its bytes in each answer; a draft of another
// vocabulary is exit 2 naming both sizes.
TEST(CliPlacement, RunPlansADraftModelAndAProjectorBesideTheModelAsTheirOwnLines) {
  TempDir dir("placement-draft");
  const auto draft = dir / "draft.gguf", other = dir / "other.gguf", out = dir / "r.json";
  const auto mmproj = dir / "mmproj.gguf", narrow = dir / "narrow.gguf";
  const std::string dims =
      "arch=llama,n_embd=64,n_layer=2,n_head=4,n_head_kv=2,n_ff=128,context=8192";
  for (const std::string& make :
       {"--dims " + dims + ",n_vocab=128256 -o " + draft.string(),
        "--dims " + dims + ",n_vocab=32000 -o " + other.string(),
        "--shape llama-3.1-8b --projector -o " + mmproj.string(),
        "--dims " + dims + ",n_vocab=32000 --projector -o " + narrow.string()}) {
    ASSERT_EQ(run_command(gauntlet_exe() + " model make " + make).exit_code, 0) << make;
  }
  auto r = run_command(
      gauntlet_exe() +
      " run --shape llama-3.1-8b --simulate arc-16g --device opencl:0 --quiet -md " +
      draft.string() + " -np 4 --mmproj " + mmproj.string() + " --out " + out.string() + " 2>&1");
  ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.output;
  EXPECT_NE(r.output.find("draft model (-md) draft.gguf on the device beside the model"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("vision projector (--mmproj) mmproj.gguf on the device beside the "
                          "model, its weights and the compute buffer of its warmup image "
                          "(counted in PLANNED): "),
            std::string::npos)
      << r.output;
  std::ifstream in(out);
  const auto report = core::Json::parse(in);
  int answers = 0;
  for (const auto& answer : report["devices"][0]["fit"]) {
    EXPECT_EQ(answer["draft_model"], "draft.gguf") << answer.dump();
    EXPECT_GT(answer["draft_bytes"].get<uint64_t>(), 0u) << answer.dump();
    EXPECT_EQ(answer["projector_model"], "mmproj.gguf") << answer.dump();
    // A 2-layer tower of 64 writing 4096 wide: its compute buffer (39.4 MiB) dominates.
    EXPECT_GT(answer["projector_bytes"].get<uint64_t>(), 39ull << 20) << answer.dump();
    EXPECT_GE(answer["planned_bytes"].get<uint64_t>(),
              answer["draft_bytes"].get<uint64_t>() + answer["projector_bytes"].get<uint64_t>());
    ++answers;
  }
  EXPECT_GT(answers, 3);
  const auto refused_with = [&](const std::string& flags) {
    return run_command(gauntlet_exe() + " run --shape llama-3.1-8b --quiet " + flags + " --out " +
                       (dir / "r2.json").string() + " 2>&1");
  };
  auto refused = refused_with("-md " + other.string());
  EXPECT_EQ(refused.exit_code, 2) << refused.output;
  EXPECT_NE(refused.output.find("the draft model's vocabulary (32000 tokens) is not the model's "
                                "(128256 tokens)"),
            std::string::npos)
      << refused.output;
  refused = refused_with("--mmproj " + narrow.string());
  EXPECT_EQ(refused.exit_code, 2) << refused.output;
  EXPECT_NE(refused.output.find("the vision projector's output (64 wide) is not the model's "
                                "width (4096)"),
            std::string::npos)
      << refused.output;
  refused = refused_with("--spec-type draft-mtp");
  EXPECT_EQ(refused.exit_code, 2) << refused.output;
  EXPECT_NE(refused.output.find("--spec-type draft-mtp: the model has no MTP block"),
            std::string::npos)
      << refused.output;
  refused = refused_with("--mmproj " + draft.string());
  EXPECT_EQ(refused.exit_code, 2) << refused.output;
  EXPECT_NE(refused.output.find("general.architecture is 'llama', a vision projector's is 'clip'"),
            std::string::npos)
      << refused.output;
  EXPECT_FALSE(std::filesystem::exists(dir / "r2.json"));
}

}  // namespace
}  // namespace gauntlet::testing
