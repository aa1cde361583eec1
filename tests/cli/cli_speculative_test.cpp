// Speculative decoding through `gauntlet decode -md`: on the host, OpenCL and Vulkan with the draft
// on the cpu device, 64 tokens with a draft of another seed and with the target as its own draft
// are the plain greedy tokens, with the acceptance rate and tok/s in --json; a draft of another
// vocabulary is exit 2 naming both sizes; `gauntlet run -md` checks it on each device it judges.
// `decode --mtp`: a qwen35 hybrid's own MTP head drafting for the target on the host, the cpu
// device, OpenCL and Vulkan (each saving and restoring the target's recurrent state around a
// check) gives the plain greedy tokens; a file without a head, or two drafters, is exit 2;
// `bench --mtp` drafts its tgN rows with the head, and `run --spec-type draft-mtp` checks it.
#include <gtest/gtest.h>

#include "core/json.h"
#include "tests/support/run_command.h"
#include "tests/support/temp_dir.h"

namespace gauntlet::testing {
namespace {

const std::string kTarget =
    "n_embd=128,n_layer=3,n_head=4,n_head_kv=2,n_ff=256,n_vocab=256,context=128";
const std::string kDraft =
    "n_embd=64,n_layer=2,n_head=4,n_head_kv=2,n_ff=128,n_vocab=256,context=128";

std::string make(const TempDir& dir, const std::string& name, const std::string& dims, int seed) {
  const auto path = (dir / name).string();
  auto r = run_command(gauntlet_exe() + " model make --dims " + dims + " --format Q8_0 --seed " +
                       std::to_string(seed) + " -o " + path + " 2>&1");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  return path;
}

// `decode ... --json`'s speculative run: 64 tokens, the plain ones, drafted on `device`; returns
// its object.
core::Json expect_plain_tokens(const std::string& command, const std::string& device) {
  auto r = run_command(command + " --tokens 1,7,42,3 -n 64 --json 2>/dev/null");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  if (r.exit_code != 0) return core::Json::object();
  const auto j = core::Json::parse(r.output);
  const auto& s = j.at("speculative");
  EXPECT_TRUE(s.at("tokens_match").get<bool>());
  EXPECT_EQ(s.at("tokens"), j.at("tokens"));
  EXPECT_EQ(j.at("tokens").size(), 64u);
  EXPECT_EQ(s.at("device").get<std::string>(), device);
  EXPECT_GT(s.at("drafted").get<uint64_t>(), 0u);
  EXPECT_GT(s.at("tokens_per_second").get<double>(), 0.0);
  return s;
}

TEST(CliSpeculative, DraftedTokensAreThePlainGreedyTokensOnEveryDevice) {
  TempDir dir("speculative");
  const auto target = make(dir, "target.gguf", kTarget, 1);
  const auto draft = make(dir, "draft.gguf", kDraft, 5);
  for (const char* device : {"host", "opencl:0", "vulkan:0"}) {
    for (const auto& d : {draft, target}) {
      SCOPED_TRACE(std::string(device) + " draft " + d);
      const auto s = expect_plain_tokens(gauntlet_exe() + " decode --model " + target + " -md " +
                                             d + " --device " + device + " -devd cpu --draft-max 4",
                                         "cpu");
      if (s.empty()) continue;
      const double rate = s.at("acceptance_rate").get<double>();
      if (d == target) {
        EXPECT_EQ(rate, 1.0);  // the same weights: every draft is the target's pick
      } else {
        EXPECT_LT(rate, 1.0);
      }
    }
  }
}

// run -md: on the cpu device and PoCL, the heaviest safe profile's 64 greedy tokens with the
// draft (of other weights: some drafts rejected) proposing are the plain ones; the report and the
// text say so. (The target as its own draft, every draft accepted, is the decode test's.)
TEST(CliSpeculative, RunChecksSpeculativeDecodingOnEachDevice) {
  TempDir dir("speculative-run");
  const auto target = make(dir, "target.gguf", kTarget, 1);
  const auto draft = make(dir, "draft.gguf", kDraft, 5);
  const auto report = (dir / "report.json").string();
  auto r = run_command("GAUNTLET_STATE_DIR=" + (dir / "state").string() + " " + gauntlet_exe() +
                       " run --model " + target + " -md " + draft +
                       " --device cpu,opencl:0 --level quick --out " + report + " 2>&1");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("64 greedy tokens the same as without it"), std::string::npos)
      << r.output;
  const auto j = core::Json::parse(read_text(report));
  ASSERT_EQ(j.at("devices").size(), 2u);
  for (const auto& device : j.at("devices")) {
    const auto& s = device.at("speculation");
    SCOPED_TRACE(device.at("key").get<std::string>());
    EXPECT_EQ(s.at("error"), "");
    EXPECT_TRUE(s.at("tokens_match").get<bool>());
    EXPECT_EQ(s.at("tokens"), 64);
    EXPECT_EQ(s.at("draft"), draft);
    EXPECT_FALSE(s.at("profile").get<std::string>().empty());
    EXPECT_GT(s.at("drafted").get<uint64_t>(), 0u);
    EXPECT_LT(s.at("accepted").get<uint64_t>(), s.at("drafted").get<uint64_t>());
    EXPECT_GT(s.at("plain_tok_s").get<double>(), 0.0);
    EXPECT_GT(s.at("speculative_tok_s").get<double>(), 0.0);
  }
}

TEST(CliSpeculative, ADraftOfAnotherVocabularyIsExit2NamingBothSizes) {
  TempDir dir("speculative-vocab");
  const auto target = make(dir, "target.gguf", kTarget, 1);
  const auto draft = make(dir, "draft.gguf", kDraft + ",n_vocab=128", 5);
  auto r = run_command(gauntlet_exe() + " decode --model " + target + " -md " + draft +
                       " --tokens 1,2 -n 4 2>&1");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("the draft model's vocabulary (128 tokens) is not the target's (256"),
            std::string::npos)
      << r.output;
}

const std::string kHybridWithMtp =
    "arch=qwen35,n_embd=64,n_layer=4,n_head=2,n_head_kv=1,head_dim=32,rope_dim=8,n_ff=96,"
    "n_vocab=64,context=128,ssm_state=16,ssm_groups=2,ssm_heads=4,ssm_inner=64,nextn=1";

TEST(CliSpeculative, TheFilesMtpHeadDraftsThePlainGreedyTokensOnEveryDevice) {
  TempDir dir("speculative-mtp");
  const auto target = make(dir, "hybrid.gguf", kHybridWithMtp, 7);
  for (const char* device : {"host", "cpu", "opencl:0", "vulkan:0"}) {
    SCOPED_TRACE(device);
    const auto s = expect_plain_tokens(gauntlet_exe() + " decode --model " + target +
                                           " --mtp --device " + device + " --draft-max 3",
                                       "host");  // the head runs on the host
    if (s.empty()) continue;
    EXPECT_EQ(s.at("draft").get<std::string>(), "MTP head (model file)");
    EXPECT_GT(s.at("drafted").get<uint64_t>(), s.at("accepted").get<uint64_t>());
  }
}

TEST(CliSpeculative, BenchAndRunDraftWithTheFilesMtpHead) {
  TempDir dir("speculative-mtp-run");
  // F32: on this 64-wide random hybrid the cpu device's 8-bit activations move a Q8_0 file's
  // 32-token passes past the pass check's NMSE bound, and run would mark them unsafe.
  const auto target = (dir / "hybrid.gguf").string();
  auto made = run_command(gauntlet_exe() + " model make --dims " + kHybridWithMtp +
                          " --format F32 --seed 7 -o " + target + " 2>&1");
  ASSERT_EQ(made.exit_code, 0) << made.output;
  auto b = run_command(gauntlet_exe() + " bench --model " + target +
                       " --mtp --device cpu -p 0 -n 32 -r 1 --draft-max 3 -o json 2>/dev/null");
  ASSERT_EQ(b.exit_code, 0) << b.output;
  const auto rows = core::Json::parse(b.output);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].at("test"), "tg32");
  EXPECT_GT(rows[0].at("avg_ts").get<double>(), 0.0);
  EXPECT_LT(rows[0].at("draft_acceptance").get<double>(), 1.0);  // a head of random weights

  const auto report = (dir / "report.json").string();
  auto r = run_command(
      "GAUNTLET_STATE_DIR=" + (dir / "state").string() + " " + gauntlet_exe() + " run --model " +
      target + " --spec-type draft-mtp --device cpu --level quick --out " + report + " 2>&1");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("draft MTP head on"), std::string::npos) << r.output;
  const auto j = core::Json::parse(read_text(report));
  ASSERT_EQ(j.at("devices").size(), 1u);
  const auto& s = j.at("devices")[0].at("speculation");
  EXPECT_EQ(s.at("error"), "");
  EXPECT_EQ(s.at("draft"), "MTP head");
  EXPECT_TRUE(s.at("tokens_match").get<bool>());
  EXPECT_EQ(s.at("tokens"), 64);
  EXPECT_GT(s.at("drafted").get<uint64_t>(), s.at("accepted").get<uint64_t>());
}

TEST(CliSpeculative, MtpWithoutAHeadOrBesideADraftIsExit2) {
  TempDir dir("speculative-mtp-bad");
  const auto plain = make(dir, "target.gguf", kTarget, 1);
  auto r =
      run_command(gauntlet_exe() + " decode --model " + plain + " --mtp --tokens 1,2 -n 4 2>&1");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("the model file has no MTP head to draft with: llama file with "
                          "nextn_predict_layers 0"),
            std::string::npos)
      << r.output;
  r = run_command(gauntlet_exe() + " decode --model " + plain + " --mtp -md " + plain +
                  " --tokens 1,2 -n 4 2>&1");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("--mtp and --model-draft are two drafters"), std::string::npos)
      << r.output;
}

}  // namespace
}  // namespace gauntlet::testing
