// Qwen3-VL's text decoder (qwen3vl) through the command line: model make writes a file that
// llama.cpp loads and decodes to the tokens the host, OpenCL and Vulkan decode; a projector file
// (mmproj, general.architecture "clip") is exit 2 naming it.
#include <gtest/gtest.h>

#include <filesystem>

#include "engine/model/gguf_writer.h"
#include "tests/support/run_command.h"
#include "tests/support/temp_dir.h"

namespace gauntlet::testing {
namespace {

// IMROPE sections 12:10:10 of the 32 rotated pairs (Qwen3-VL's [24, 20, 20] halved), deepstack
// after the first layer (zero for text).
const std::string kVlDims =
    "arch=qwen3vl,n_embd=128,n_layer=2,n_head=2,n_head_kv=1,head_dim=64,n_ff=256,n_vocab=256,"
    "context=64,rope_sections=12:10:10:0,deepstack=1";

TEST(CliQwen3Vl, DecodesLlamaCppsTokensOnTheHostOpenClAndVulkan) {
  TempDir dir("qwen3vl-decode");
  const auto model = dir / "vl.gguf";
  auto made = run_command(gauntlet_exe() + " model make --dims " + kVlDims + " --format Q8_0 -o " +
                          model.string());
  ASSERT_EQ(made.exit_code, 0) << made.output;
  // The greedy tokens llama.cpp 3.22.1 (node-llama-cpp) decoded from this file after the prompt.
  for (const char* device : {"host", "opencl:0", "vulkan:0"}) {
    SCOPED_TRACE(device);
    auto r = run_command(gauntlet_exe() + " decode --model " + model.string() + " --device " +
                         device + " --tokens 1,7,42,3,9,11,60,2,5,8,13,21,34,55 -n 16 2>&1");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("tokens  213 49 140 82 99 49 140 82 151 139 71 32 234 254 49 140"),
              std::string::npos)
        << r.output;
  }
}

TEST(CliQwen3Vl, AProjectorFileIsExit2NamingIt) {
  TempDir dir("qwen3vl-mmproj");
  const auto path = dir / "mmproj.gguf";
  engine::model::GgufWriter w;
  w.set_string("general.architecture", "clip");
  w.set_u32("clip.vision.embedding_length", 1024);
  ASSERT_TRUE(w.write(path).is_ok());
  auto r =
      run_command(gauntlet_exe() + " decode --model " + path.string() + " --device host -n 2 2>&1");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("architecture 'clip' is a vision projector (mmproj)"), std::string::npos)
      << r.output;
}

}  // namespace
}  // namespace gauntlet::testing
