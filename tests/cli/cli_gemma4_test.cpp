// Gemma 4 through the command line: model make writes a file (per-layer head sizes, a window,
// shared KV layers, K as V) that decode runs on the host and on OpenCL to llama.cpp's greedy
// tokens (Vulkan's are in tests/engine_device/gemma4_test.cpp, against the host); a shared-KV count
// above the layers is exit 2 naming the key.
#include <gtest/gtest.h>

#include <filesystem>

#include "tests/support/gguf_edit.h"
#include "tests/support/run_command.h"
#include "tests/support/temp_dir.h"

namespace gauntlet::testing {
namespace {

const std::string kGemma4Dims =
    "arch=gemma4,n_embd=256,n_layer=6,n_head=4,n_head_kv=2,head_dim=128,head_dim_swa=64,"
    "n_head_kv_global=1,swa_pattern=3,n_ff=512,n_vocab=256,context=64,window=8,shared_kv=3,"
    "k_as_v=1,tied=1";

std::filesystem::path make_gemma4(const TempDir& dir, const std::string& name) {
  const auto path = dir / (name + ".gguf");
  auto r = run_command(gauntlet_exe() + " model make --dims " + kGemma4Dims + " --format F32 -o " +
                       path.string());
  EXPECT_EQ(r.exit_code, 0) << r.output;
  return path;
}

TEST(CliGemma4, DecodesOnTheHostAndOnOpenClToLlamaCppsTokens) {
  TempDir dir("gemma4-decode");
  const auto model = make_gemma4(dir, "g4");
  // The greedy tokens llama.cpp 3.22.1 decoded from this file after the prompt 1..12.
  auto r = run_command(gauntlet_exe() + " decode --model " + model.string() +
                       " --device host --tokens 1,2,3,4,5,6,7,8,9,10,11,12 -n 8 2>&1");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("tokens  191 145 188 186 209 199 77 75"), std::string::npos) << r.output;
  for (const char* device : {"opencl:0"}) {
    r = run_command(gauntlet_exe() + " decode --model " + model.string() + " --device " + device +
                    " --tokens 1,2,3,4,5,6,7,8,9,10,11,12 -n 8 2>&1");
    ASSERT_EQ(r.exit_code, 0) << device << ": " << r.output;
    EXPECT_NE(r.output.find("tokens  191 145 188 186 209 199 77 75"), std::string::npos)
        << device << ": " << r.output;
  }
}

TEST(CliGemma4, ASharedKvCountAboveTheLayersIsExit2NamingTheKey) {
  TempDir dir("gemma4-bad");
  const auto model = make_gemma4(dir, "bad");
  set_u32_key(model, "gemma4.attention.shared_kv_layers", 7);
  auto r = run_command(gauntlet_exe() + " decode --model " + model.string() +
                       " --device host -n 2 2>&1");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("'gemma4.attention.shared_kv_layers' = 7 exceeds the 6 layers"),
            std::string::npos)
      << r.output;
}

}  // namespace
}  // namespace gauntlet::testing
