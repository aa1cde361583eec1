// gauntlet model make --tensor-type and a file's tensor types: llama-quantize's overrides write a
// file mixing Q4_K, IQ4_XS and MXFP4 tensors that model info reads back; a file with one tensor
// of a type the engine cannot run is refused by that tensor (model info, run --model): its name,
// its type and the types the engine runs, exit 2.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <set>

#include "core/json.h"
#include "engine/model/shape.h"
#include "engine/model/synthetic.h"
#include "tests/support/run_command.h"
#include "tests/support/temp_dir.h"

namespace gauntlet::testing {
namespace {

class CliTensorTypes : public ::testing::Test {
 protected:
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  TempDir dir_{"cli-tensor-types"};
};

const char* kMoe =
    "arch=qwen3moe,n_embd=256,n_layer=2,n_head=4,n_head_kv=2,head_dim=64,n_ff=512,n_expert=4,"
    "n_expert_used=2,n_ff_exp=256,n_vocab=256,context=64";

TEST_F(CliTensorTypes, TensorTypeOverridesWriteAMixedFile) {
  const std::string file = path("mixed.gguf");
  auto made = run_command(gauntlet_exe() + " model make --dims " + kMoe +
                          " --format Q4_K_M --tensor-type 'ffn_(gate|up)_exps=mxfp4' "
                          "--tensor-type ffn_down_exps=IQ4_XS -o " +
                          file);
  ASSERT_EQ(made.exit_code, 0) << made.output;
  auto info = run_command(gauntlet_exe() + " model info --json " + file + " 2>/dev/null");
  ASSERT_EQ(info.exit_code, 0) << info.output;
  const auto j = core::OrderedJson::parse(info.output);
  std::set<std::string> types;
  for (const auto& t : j["tensors"]) {
    const std::string name = t["name"];
    const std::string type = t["type"];
    types.insert(type);
    const bool gate_up = name.find("ffn_gate_exps") != std::string::npos ||
                         name.find("ffn_up_exps") != std::string::npos;
    const bool down = name.find("ffn_down_exps") != std::string::npos;
    if (gate_up || down) {
      EXPECT_EQ(type, gate_up ? "mxfp4" : "iq4_xs") << name;
    }
  }
  EXPECT_EQ(types, (std::set<std::string>{"f32", "q4_K", "q6_K", "iq4_xs", "mxfp4"}));

  auto bad = run_command(gauntlet_exe() + " model make --dims " + kMoe +
                         " --tensor-type ffn_down_exps -o " + path("bad.gguf"));
  EXPECT_EQ(bad.exit_code, 2) << bad.output;
  EXPECT_NE(bad.output.find("--tensor-type 'ffn_down_exps': give PATTERN=TYPE"), std::string::npos)
      << bad.output;
  EXPECT_FALSE(std::filesystem::exists(path("bad.gguf")));
}

// model make --format TQ2_0 (and TQ1_0) writes llama.cpp's ternary mix, which model info lists;
// an nvfp4 override on rows that are not whole blocks of 64 is refused by the first such tensor,
// as llama.cpp's quantizer has no fallback for nvfp4 (exit 2, no file).
TEST_F(CliTensorTypes, TernaryFileTypesAndNvfp4Overrides) {
  for (const std::string format : {"TQ2_0", "tq1_0"}) {
    SCOPED_TRACE(format);
    const std::string file = path(format + ".gguf");
    auto made = run_command(gauntlet_exe() + " model make --shape test-gqa --format " + format +
                            " --tensor-type attn_output=nvfp4 -o " + file);
    ASSERT_EQ(made.exit_code, 0) << made.output;
    auto info = run_command(gauntlet_exe() + " model info --json " + file + " 2>/dev/null");
    ASSERT_EQ(info.exit_code, 0) << info.output;
    const auto j = core::OrderedJson::parse(info.output);
    const std::string base = format == "TQ2_0" ? "tq2_0" : "tq1_0";
    EXPECT_EQ(j["format"].get<std::string>(), format == "TQ2_0" ? "TQ2_0" : "TQ1_0");
    std::set<std::string> mix;
    for (const auto& t : j["type_mix"]) mix.insert(t["type"].get<std::string>());
    EXPECT_EQ(mix, (std::set<std::string>{"f32", "q4_K", "q6_K", base, "nvfp4"}));
    std::map<std::string, std::string> types;
    for (const auto& t : j["tensors"]) types[t["name"]] = t["type"].get<std::string>();
    EXPECT_EQ(types["token_embd.weight"], "q4_K");
    EXPECT_EQ(types["blk.1.ffn_up.weight"], base);
    EXPECT_EQ(types["blk.1.attn_output.weight"], "nvfp4");
  }
  auto bad = run_command(gauntlet_exe() +
                         " model make --dims n_embd=96,n_layer=1,n_head=2,n_head_kv=2,n_ff=128,"
                         "n_vocab=64,context=16 --tensor-type attn_q=nvfp4 -o " +
                         path("bad.gguf"));
  EXPECT_EQ(bad.exit_code, 2) << bad.output;
  EXPECT_NE(bad.output.find("tensor 'blk.0.attn_q.weight': a row of 96 elements is not whole "
                            "nvfp4 blocks"),
            std::string::npos)
      << bad.output;
  EXPECT_FALSE(std::filesystem::exists(path("bad.gguf")));
}

// A Q8_0 file of a 64-wide model in the test's folder whose tensor `name` has its type field (after
// its name, n_dims and two dimensions) set to ggml type `id`, its bytes unchanged (a 2-D q8_0
// tensor of 64 x 32 is 2176 bytes: any type the test names fits inside the file).
std::string file_with_tensor_type(const std::string& dir_file, const std::string& name,
                                  uint32_t id) {
  auto shape = engine::model::parse_dims(
      "n_embd=64,n_layer=1,n_head=4,n_head_kv=2,n_ff=128,n_vocab=32,context=16");
  auto w = engine::model::synthetic_writer(*shape, engine::model::FileType::q8_0, 1);
  EXPECT_TRUE(w.is_ok());
  auto bytes = w->to_bytes();
  EXPECT_TRUE(bytes.is_ok());
  auto it =
      std::search(bytes->begin(), bytes->end(), reinterpret_cast<const std::byte*>(name.data()),
                  reinterpret_cast<const std::byte*>(name.data()) + name.size());
  EXPECT_NE(it, bytes->end());
  const size_t type_at = static_cast<size_t>(it - bytes->begin()) + name.size() + 4 + 16;
  std::memcpy(bytes->data() + type_at, &id, 4);
  std::ofstream out(dir_file, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes->data()),
            static_cast<std::streamsize>(bytes->size()));
  return dir_file;
}

// A row that is not whole blocks of its type: blk.0.attn_k.weight's rows of 64 as iq2_xxs, whose
// blocks hold 256.
TEST_F(CliTensorTypes, ARowThatIsNotWholeBlocksOfItsTypeIsRefusedNamingTheTensor) {
  const std::string file =
      file_with_tensor_type(path("rows.gguf"), "blk.0.attn_k.weight", 16 /* iq2_xxs */);
  auto r = run_command(gauntlet_exe() + " model info " + file);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("tensor 'blk.0.attn_k.weight' of type iq2_xxs has a row of 64 "
                          "elements, not a multiple of the block size 256"),
            std::string::npos)
      << r.output;
}

TEST_F(CliTensorTypes, AFileIsRefusedByItsFirstTensorOfATypeTheEngineCannotRun) {
  // i8 (24), a ggml type the engine does not run.
  const std::string file =
      file_with_tensor_type(path("iq2.gguf"), "blk.0.attn_k.weight", 24 /* i8 */);
  for (const std::string command : {" model info ", " run --quiet --model "}) {
    auto r = run_command(gauntlet_exe() + command + file);
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find("tensor 'blk.0.attn_k.weight' has type i8 (id 24), which "
                            "gauntlet cannot run (supported: f32 (0), f16 (1)"),
              std::string::npos)
        << r.output;
    EXPECT_NE(r.output.find("iq2_s (22), iq4_xs (23), iq1_m (29), bf16 (30), tq1_0 (34), "
                            "tq2_0 (35), mxfp4 (39), nvfp4 (40), q1_0 (41), q2_0 (42))"),
              std::string::npos)
        << r.output;
  }
}

}  // namespace
}  // namespace gauntlet::testing
