// A gated-DeltaNet hybrid (qwen35) through the command line: model make writes one that decode runs
// to llama.cpp's tokens on the host, OpenCL and Vulkan, and a qwen35moe file to llama.cpp's tokens
// on the host; a file whose conv kernel width or head counts are wrong is exit 2 naming the key,
// one without a state tensor exit 2 naming the tensor.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "tests/support/gguf_edit.h"
#include "tests/support/run_command.h"
#include "tests/support/temp_dir.h"

namespace gauntlet::testing {
namespace {

const std::string kHybridDims =
    "arch=qwen35,n_embd=256,n_layer=4,n_head=4,n_head_kv=2,head_dim=64,rope_dim=16,n_ff=512,"
    "n_vocab=256,context=64,ssm_state=32,ssm_groups=2,ssm_heads=4,ssm_inner=128";

std::filesystem::path make_hybrid(const TempDir& dir, const std::string& name) {
  const auto path = dir / (name + ".gguf");
  auto r = run_command(gauntlet_exe() + " model make --dims " + kHybridDims + " --format F32 -o " +
                       path.string());
  EXPECT_EQ(r.exit_code, 0) << r.output;
  return path;
}

TEST(CliHybrid, DecodesTheSameTokensOnTheHostOpenClAndVulkan) {
  TempDir dir("hybrid-decode");
  const auto model = make_hybrid(dir, "hyb");
  // The greedy tokens llama.cpp 3.22.1 decoded from this file after the prompt 1,7,42,3.
  for (const char* device : {"host", "opencl:0", "vulkan:0"}) {
    SCOPED_TRACE(device);
    auto r = run_command(gauntlet_exe() + " decode --model " + model.string() + " --device " +
                         device + " --tokens 1,7,42,3 -n 8 2>&1");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("tokens  16 58 130 113 96 76 111 169"), std::string::npos) << r.output;
  }
}

// qwen35moe (routed experts and the sigmoid-gated shared expert on each layer) in F32: the greedy
// tokens llama.cpp 3.22.1 decoded from this file after the prompt 1,7,42,3,9,11,60,2.
TEST(CliHybrid, AMixtureDecodesLlamaCppsTokensOnTheHost) {
  TempDir dir("hybrid-moe");
  const auto path = dir / "moe.gguf";
  auto made = run_command(gauntlet_exe() + " model make --dims " + kHybridDims +
                          ",arch=qwen35moe,n_expert=4,n_expert_used=2,n_ff_exp=128,n_ff_shexp=128 "
                          "--format F32 -o " +
                          path.string());
  ASSERT_EQ(made.exit_code, 0) << made.output;
  auto r = run_command(gauntlet_exe() + " decode --model " + path.string() +
                       " --device host --tokens 1,7,42,3,9,11,60,2 -n 16 2>&1");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("tokens  112 119 164 1 238 28 71 171 194 56 98 140 142 233 190 64"),
            std::string::npos)
      << r.output;
}

TEST(CliHybrid, AConvKernelOrHeadCountsTheKernelsCannotTakeAreExit2) {
  TempDir dir("hybrid-bad");
  struct Bad {
    const char* key;
    uint32_t value;
    const char* named;
  };
  for (const Bad& bad : {Bad{"qwen35.ssm.conv_kernel", 3, "ssm.conv_kernel 3"},
                         Bad{"qwen35.ssm.group_count", 3, "ssm.group_count (key heads) 3"},
                         Bad{"qwen35.ssm.inner_size", 96, "ssm.inner_size 96"}}) {
    SCOPED_TRACE(bad.key);
    const auto model =
        make_hybrid(dir, std::string("bad-") + (bad.key + 11));  // after "qwen35.ssm."
    set_u32_key(model, bad.key, bad.value);
    auto r = run_command(gauntlet_exe() + " decode --model " + model.string() +
                         " --device host -n 2 2>&1");
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find(bad.named), std::string::npos) << r.output;
  }
}

// A recurrent layer without its decay (blk.1.ssm_a renamed blk.1.ssm_b) is exit 2 naming it.
TEST(CliHybrid, AMissingStateTensorIsExit2NamingIt) {
  TempDir dir("hybrid-missing");
  const auto model = make_hybrid(dir, "no-ssm-a");
  rename_tensor(model, "blk.1.ssm_a", 'b');
  auto r = run_command(gauntlet_exe() + " decode --model " + model.string() +
                       " --device host -n 2 2>&1");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("tensor 'blk.1.ssm_a' is missing"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace gauntlet::testing
