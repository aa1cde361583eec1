// A mixture of experts through the command line: run's profiles check the experts in host memory
// (all of them, and the first layers') against the host reference; run answers Qwen3-30B-A3B on
// a 16 GiB card with its experts parked on the host, and gpt-oss-20b's fit; a file whose expert
// counts are wrong, and expert flags that cannot apply, are exit 2 naming the problem.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>

#include "core/json.h"
#include "tests/support/gguf_edit.h"
#include "tests/support/run_command.h"
#include "tests/support/temp_dir.h"

namespace gauntlet::testing {
namespace {

const std::string kMoeDims =
    "arch=qwen3moe,n_embd=256,n_layer=2,n_head=4,n_head_kv=2,head_dim=64,n_ff=512,n_expert=8,"
    "n_expert_used=2,n_vocab=256,context=1024";

std::filesystem::path make_moe(const TempDir& dir, const std::string& format,
                               const std::string& tag = "") {
  const auto path = dir / ("moe-" + format + tag + ".gguf");
  auto r = run_command(gauntlet_exe() + " model make --dims " + kMoeDims + " --format " + format +
                       " -o " + path.string());
  EXPECT_EQ(r.exit_code, 0) << r.output;
  return path;
}

core::Json read_json(const std::filesystem::path& path) {
  std::ifstream in(path);
  return core::Json::parse(in);
}

TEST(CliExperts, RunChecksTheExpertsInHostMemoryAgainstTheHost) {
  TempDir dir("experts-run");
  const auto model = make_moe(dir, "Q8_0");
  const auto out = dir / "r.json";
  auto r = run_command(gauntlet_exe() + " run --level quick --device opencl:0 --quiet --model " +
                       model.string() + " --out " + out.string() + " >/dev/null 2>&1");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto report = read_json(out);
  std::set<std::string> safe;
  for (const auto& p : report["devices"][0]["profiles"]) {
    const auto placement = p["placement"].get<std::string>();
    if (placement.find("moe") == std::string::npos) continue;
    EXPECT_EQ(p["placement_shares"].get<std::string>().find("host") != std::string::npos, true)
        << p.dump();
    if (p["verdict"] == "safe") {
      EXPECT_EQ(p["micro_batch"], 32) << p.dump();  // the quick level's placed pass
      safe.insert(placement);
    }
  }
  // Every layer on the device; all experts, then those of the first layer, on the host.
  EXPECT_EQ(safe, (std::set<std::string>{"ngl=3 cpu-moe", "ngl=3 n-cpu-moe=1"}));

  // --n-cpu-moe 1 on run: that expert placement alone.
  const auto one = dir / "one.json";
  r = run_command(gauntlet_exe() + " run --level quick --device opencl:0 --quiet --n-cpu-moe 1 " +
                  "--model " + model.string() + " --out " + one.string() + " >/dev/null 2>&1");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::set<std::string> placements;
  const auto one_report = read_json(one);
  for (const auto& p : one_report["devices"][0]["profiles"]) {
    const auto placement = p["placement"].get<std::string>();
    if (placement.find("moe") != std::string::npos) placements.insert(placement);
  }
  EXPECT_EQ(placements, (std::set<std::string>{"ngl=3 n-cpu-moe=1"}));
}

TEST(CliExperts, RunPlacesQwen3MoeOnASixteenGigabyteCardWithItsExpertsOnTheHost) {
  TempDir dir("experts-fit");
  const auto out = dir / "r.txt";
  auto r = run_command(gauntlet_exe() +
                       " run --shape qwen3-30b-a3b --simulate arc-16g --device opencl:0 --quiet "
                       "--format text --out " +
                       out.string() + " 2>&1");
  ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.output;
  bool q4_placed = false;
  const auto report = read_json(dir / "r.json");
  for (const auto& answer : report["devices"][0]["fit"]) {
    if (answer["weight_format"] != "Q4_K_M") continue;
    ASSERT_TRUE(answer.contains("placement")) << answer.dump();
    const auto& p = answer["placement"];
    EXPECT_EQ(p["device_slots"], 49);
    const int experts = p["expert_layers_on_host"].get<int>();
    EXPECT_GT(experts, 0);
    EXPECT_LT(experts, 48);
    EXPECT_LE(p["bytes"]["device"].get<uint64_t>(), answer["budget_bytes"].get<uint64_t>())
        << p.dump();
    EXPECT_GT(p["bytes"]["host"].get<uint64_t>(), 4ull << 30) << p.dump();
    q4_placed = true;
    // The summary says it: layers, the experts on the host, and the bytes per device.
    EXPECT_NE(
        r.output.find("experts of the first " + std::to_string(experts) + " layers on the host"),
        std::string::npos)
        << r.output;
  }
  EXPECT_TRUE(q4_placed);
}

// gpt-oss-20b (published dimensions: 24 layers, 32 experts of 2880, a window of 128 on alternate
// layers) answers the fit question on a 16 GiB card; its KV cache is the global layers' whole
// context and the sliding layers' windows.
TEST(CliExperts, RunAnswersTheFitQuestionForGptOss20b) {
  TempDir dir("experts-gpt-oss");
  const auto out = dir / "r.txt";
  auto r = run_command(gauntlet_exe() +
                       " run --shape gpt-oss-20b --simulate arc-16g --device opencl:0 --quiet "
                       "--format text --out " +
                       out.string() + " 2>&1");
  ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.output;
  const auto report = read_json(dir / "r.json");
  bool q4_answered = false;
  for (const auto& answer : report["devices"][0]["fit"]) {
    if (answer["weight_format"] != "Q4_K_M") continue;
    q4_answered = true;
    EXPECT_GT(answer["weight_bytes"].get<uint64_t>(), 10ull << 30) << answer.dump();
    EXPECT_TRUE(answer["largest_context"].get<uint32_t>() > 0 || answer.contains("placement"))
        << answer.dump();
    const auto kv = answer["kv_bytes"].get<uint64_t>();
    const auto whole = answer["kv_bytes_without_window"].get<uint64_t>();
    EXPECT_GT(kv, 0u) << answer.dump();
    EXPECT_LT(kv, whole) << answer.dump();
  }
  EXPECT_TRUE(q4_answered) << report["devices"][0]["fit"].dump();
}

TEST(CliExperts, WrongExpertCountsAndFlagsThatCannotApplyAreExit2) {
  TempDir dir("experts-bad");
  struct BadCount {
    const char* key;
    uint32_t value;
    const char* named;
  };
  for (const BadCount& bad : {BadCount{"qwen3moe.expert_count", 0, "n_expert must be positive"},
                              BadCount{"qwen3moe.expert_used_count", 9, "n_expert_used 9"},
                              BadCount{"qwen3moe.expert_count", 512, "above the 256 experts"}}) {
    SCOPED_TRACE(std::string(bad.key) + "=" + std::to_string(bad.value));
    const auto model = make_moe(dir, "F32", "-" + std::string(bad.key) + std::to_string(bad.value));
    set_u32_key(model, bad.key, bad.value);
    auto r = run_command(gauntlet_exe() + " decode --device host -n 2 --model " + model.string());
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find(bad.named), std::string::npos) << r.output;
  }
  const auto model = make_moe(dir, "F32");
  const std::pair<std::string, std::string> bad_flags[] = {
      {"decode --device opencl:0 -n 2 -ot 'attn_q=CPU' --model " + model.string(),
       "not an expert stack"},
      {"decode --device opencl:0 -n 2 -ot 'ffn_up_exps=vulkan:3' --model " + model.string(),
       "vulkan:3"},
      {"decode --device opencl:0 -n 2 -ot 'nothing_here=CPU' --model " + model.string(),
       "nothing_here"},
      {"run --level quick --device opencl:0 --quiet --cpu-moe --out " +
           (dir / "dense.json").string(),
       "experts"},
      {"run --level quick --device opencl:0 --quiet -ot 'attn_q=CPU' --model " + model.string() +
           " --out " + (dir / "ot.json").string(),
       "not an expert stack"}};
  for (const auto& [flags, named] : bad_flags) {
    SCOPED_TRACE(flags);
    auto r = run_command(gauntlet_exe() + " " + flags + " 2>&1");
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find(named), std::string::npos) << r.output;
  }
  EXPECT_FALSE(std::filesystem::exists(dir / "dense.json"));
  EXPECT_FALSE(std::filesystem::exists(dir / "ot.json"));
}

}  // namespace
}  // namespace gauntlet::testing
