// gauntlet model shapes | make | info over the architectures: every preset listed with its
// published parameter count, a model of each architecture written and read back, and a file of an
// architecture the engine does not run refused by name with exit 2.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "core/json.h"
#include "engine/model/projector.h"
#include "engine/model/shape.h"
#include "engine/model/synthetic.h"
#include "tests/support/run_command.h"
#include "tests/support/temp_dir.h"

namespace gauntlet::testing {
namespace {

class CliModel : public ::testing::Test {
 protected:
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  TempDir dir_{"cli-model"};
};

TEST_F(CliModel, ShapesListsEveryPresetWithItsParameters) {
  auto text = run_command(gauntlet_exe() + " model shapes");
  ASSERT_EQ(text.exit_code, 0) << text.output;
  for (const auto& name : engine::model::preset_names()) {
    EXPECT_NE(text.output.find(name), std::string::npos) << name;
  }
  auto json = run_command(gauntlet_exe() + " model shapes --json 2>/dev/null");
  ASSERT_EQ(json.exit_code, 0) << json.output;
  const auto j = core::Json::parse(json.output);
  ASSERT_EQ(j.size(), engine::model::preset_names().size());
  std::map<std::string, core::Json> by_name;
  for (const auto& s : j) by_name[s["name"].get<std::string>()] = s;
  EXPECT_EQ(by_name["qwen2.5-0.5b"]["parameters"].get<uint64_t>(), 494032768u);
  EXPECT_EQ(by_name["qwen2.5-0.5b"]["architecture"], "qwen2");
  EXPECT_EQ(by_name["qwen3-0.6b"]["head_dim"].get<uint32_t>(), 128u);
  EXPECT_EQ(by_name["phi-3-mini-4k"]["architecture"], "phi3");
  EXPECT_EQ(by_name["gemma-3-4b"]["architecture"], "gemma3");
  EXPECT_EQ(by_name["gemma-3-4b"]["head_dim"].get<uint32_t>(), 256u);
  // gpt-oss-20b: 20.9B parameters (the model card's 21B), 32 experts of 2880, head_dim 64.
  EXPECT_EQ(by_name["gpt-oss-20b"]["architecture"], "gpt-oss");
  EXPECT_EQ(by_name["gpt-oss-20b"]["head_dim"].get<uint32_t>(), 64u);
  const auto oss = by_name["gpt-oss-20b"]["parameters"].get<uint64_t>();
  EXPECT_GT(oss, 20800000000u);
  EXPECT_LT(oss, 21000000000u);
  // Q4_K_M weights of Llama 3.1 8B: about 4.6 GiB (llama.cpp's files are 4.58 GiB).
  const auto q4 = by_name["llama-3.1-8b"]["weight_bytes"]["Q4_K_M"].get<uint64_t>();
  EXPECT_GT(q4, 4400ull << 20);
  EXPECT_LT(q4, 4900ull << 20);
  // Q3_K_M and Q2_K: 3.74 and 2.95 GiB here (llama.cpp's files are 4.02 and 3.18 GB).
  const auto q3 = by_name["llama-3.1-8b"]["weight_bytes"]["Q3_K_M"].get<uint64_t>();
  EXPECT_GT(q3, 3700ull << 20);
  EXPECT_LT(q3, 3900ull << 20);
  const auto q2 = by_name["llama-3.1-8b"]["weight_bytes"]["Q2_K"].get<uint64_t>();
  EXPECT_GT(q2, 2900ull << 20);
  EXPECT_LT(q2, 3100ull << 20);
}

TEST_F(CliModel, MakeAndInfoOfEveryArchitecture) {
  const std::string dims =
      ",n_embd=256,n_layer=2,n_head=8,n_head_kv=2,n_ff=512,n_vocab=64,context=64";
  const std::pair<const char*, const char*> archs[] = {
      {"llama", "arch=llama,rope_freqs=1"},       {"qwen2", "arch=qwen2,tied=1"},
      {"qwen3", "arch=qwen3,head_dim=64"},        {"phi3", "arch=phi3"},
      {"gemma2", "arch=gemma2,tied=1,window=16"}, {"gemma3", "arch=gemma3,tied=1,window=16"}};
  for (const auto& [arch, spec] : archs) {
    SCOPED_TRACE(arch);
    const std::string file = path(std::string(arch) + ".gguf");
    auto made = run_command(gauntlet_exe() + " model make --dims " + spec + dims +
                            " --format q4_k_m -o " + file);
    ASSERT_EQ(made.exit_code, 0) << made.output;
    auto info = run_command(gauntlet_exe() + " model info --json " + file + " 2>/dev/null");
    ASSERT_EQ(info.exit_code, 0) << info.output;
    const auto j = core::Json::parse(info.output);
    EXPECT_EQ(j["architecture"], arch);
    EXPECT_EQ(j["format"], "Q4_K_M");
    EXPECT_EQ(j["shape"]["head_dim"].get<uint32_t>(), std::string(arch) == "qwen3" ? 64u : 32u);
  }
}

TEST_F(CliModel, AnArchitectureTheEngineDoesNotRunExitsTwoNamingIt) {
  auto shape = engine::model::parse_dims(
      "n_embd=64,n_layer=1,n_head=4,n_head_kv=2,n_ff=128,n_vocab=32,context=16");
  auto w = engine::model::synthetic_writer(*shape, engine::model::FileType::f32, 1);
  ASSERT_TRUE(w.is_ok());
  w->set_string("general.architecture", "mamba");
  const std::string file = path("mamba.gguf");
  ASSERT_TRUE(w->write(file).is_ok());
  for (const std::string command : {" model info ", " decode --device host -n 2 --model "}) {
    auto r = run_command(gauntlet_exe() + command + file);
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find("architecture 'mamba' is not one the engine runs"), std::string::npos)
        << r.output;
  }
}

// --projector writes a vision projector llama.cpp's clip loads; flags it cannot honour and a bad
// --format are usage errors naming them.
TEST_F(CliModel, AProjectorIsWrittenAndItsBadFlagsAreRefused) {
  const std::string dims = " --dims n_embd=96,n_layer=1,n_head=2,n_ff=128,n_vocab=64,context=64";
  const std::string file = path("mmproj.gguf");
  auto made = run_command(gauntlet_exe() + " model make --projector" + dims + " -o " + file);
  ASSERT_EQ(made.exit_code, 0) << made.output;
  auto read = engine::model::read_projector(file);
  ASSERT_TRUE(read.is_ok()) << read.error().message;
  EXPECT_EQ(read->shape.projection_dim, 96u);
  const struct {
    std::string flags, message;
  } bad[] = {{" --format Q4_K_M", "a projector's --format is one of F32, F16, BF16, Q8_0"},
             {" --tensor-type 'mm=f32'", "--projector takes neither --tensor-type nor --imatrix"}};
  for (const auto& b : bad) {
    auto r = run_command(gauntlet_exe() + " model make --projector" + dims + b.flags + " -o " +
                         path("bad.gguf") + " 2>&1");
    EXPECT_EQ(r.exit_code, 2) << b.flags << ": " << r.output;
    EXPECT_NE(r.output.find(b.message), std::string::npos) << r.output;
  }
  EXPECT_FALSE(std::filesystem::exists(path("bad.gguf")));
}

}  // namespace
}  // namespace gauntlet::testing
