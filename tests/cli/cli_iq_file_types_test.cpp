// gauntlet model make in llama.cpp's i-quant file types: IQ3_S without an importance matrix,
// IQ2_XXS and IQ3_XXS with one (an imatrix GGUF the test writes, as llama-imatrix writes it);
// model info shows their type mix. Refused with exit 2 and no file left: IQ3_XXS without an
// imatrix (llama.cpp's "requires an imatrix", naming the tensor), an imatrix for another model
// (a size that does not match, a tensor missing) and a bad imatrix file.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "core/json.h"
#include "engine/model/imatrix.h"
#include "engine/model/shape.h"
#include "tests/support/run_command.h"
#include "tests/support/temp_dir.h"

namespace gauntlet::testing {
namespace {

namespace model = engine::model;

// n_gqa 4: attn_v gets q4_K in every i-quant mix; 8 layers, so that the first eighth is layer 0.
const char* kDims = "n_embd=256,n_layer=8,n_head=4,n_head_kv=1,n_ff=512,n_vocab=256,context=64";

class CliIqFileTypes : public ::testing::Test {
 protected:
  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  // An imatrix GGUF with an entry for every quantized tensor of the model of `dims` (but the
  // token table, which llama-imatrix does not collect), `drop` left out.
  std::string write_imatrix(const std::string& name, const std::string& dims,
                            const std::string& drop = "") const {
    const auto shape = model::parse_dims(dims).value();
    std::vector<model::ImatrixEntry> entries;
    for (const auto& t : model::model_tensors(shape, model::FileType::iq2_xxs, {}, true)) {
      if (t.type == model::TensorType::f32 || t.name == "token_embd.weight" || t.name == drop) {
        continue;
      }
      const uint64_t experts = t.ne.size() > 2 ? t.ne[2] : 1;
      model::ImatrixEntry e{t.name, std::vector<float>(t.ne[0] * experts),
                            std::vector<float>(experts, 64.0f)};
      for (size_t i = 0; i < e.sums.size(); ++i) e.sums[i] = 1.0f + static_cast<float>(i % 17);
      entries.push_back(std::move(e));
    }
    auto bytes = model::imatrix_gguf_bytes(entries, {"test"}, 4, 16).value();
    const std::string file = path(name);
    std::ofstream(file, std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()),
               static_cast<std::streamsize>(bytes.size()));
    return file;
  }

  // Per tensor name, its type, as model info --json gives it.
  std::map<std::string, std::string> types_of(const std::string& file) const {
    auto info = run_command(gauntlet_exe() + " model info --json " + file + " 2>/dev/null");
    EXPECT_EQ(info.exit_code, 0) << info.output;
    std::map<std::string, std::string> types;
    if (info.exit_code != 0) return types;
    const auto j = core::OrderedJson::parse(info.output);
    for (const auto& t : j["tensors"]) types[t["name"]] = t["type"];
    return types;
  }

  TempDir dir_{"cli-iq-file-types"};
};

TEST_F(CliIqFileTypes, Iq3SNeedsNoImatrix) {
  const std::string file = path("iq3s.gguf");
  auto made = run_command(gauntlet_exe() + " model make --dims " + kDims + " --format IQ3_S -o " +
                          file + " 2>&1");
  ASSERT_EQ(made.exit_code, 0) << made.output;
  auto types = types_of(file);
  EXPECT_EQ(types["token_embd.weight"], "iq3_s");
  EXPECT_EQ(types["output.weight"], "q6_K");
  EXPECT_EQ(types["blk.0.attn_v.weight"], "q4_K");
  EXPECT_EQ(types["blk.1.ffn_down.weight"], "iq3_s");
  EXPECT_EQ(types["blk.1.attn_norm.weight"], "f32");
  // The type mix: one row per type.
  auto info = run_command(gauntlet_exe() + " model info " + file + " 2>&1");
  ASSERT_EQ(info.exit_code, 0) << info.output;
  EXPECT_NE(info.output.find(", IQ3_S, GGUF v3"), std::string::npos) << info.output;
  for (const char* row : {"iq3_s  ", "q4_K   ", "q6_K   ", "f32    "}) {
    EXPECT_NE(info.output.find(row), std::string::npos) << row << "\n" << info.output;
  }
}

TEST_F(CliIqFileTypes, Iq3XxsWithoutAnImatrixIsRefusedAsLlamaCppRefusesIt) {
  const std::string file = path("iq3xxs.gguf");
  auto made = run_command(gauntlet_exe() + " model make --dims " + kDims + " --format IQ3_XXS -o " +
                          file + " 2>&1");
  EXPECT_EQ(made.exit_code, 2) << made.output;
  // llama.cpp names the same tensor: the first, in its loader's order, of a type that needs one.
  EXPECT_NE(made.output.find("tensor 'blk.0.attn_k.weight' gets type iq2_s"), std::string::npos)
      << made.output;
  EXPECT_NE(made.output.find("this quantization requires an imatrix!"), std::string::npos);
  EXPECT_NE(made.output.find("--imatrix FILE"), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(file));
}

TEST_F(CliIqFileTypes, ImatrixFilesMakeIq2XxsAndIq3Xxs) {
  const std::string imatrix = write_imatrix("model.imatrix.gguf", kDims);
  const std::string iq2 = path("iq2xxs.gguf");
  auto made = run_command(gauntlet_exe() + " model make --dims " + kDims +
                          " --format IQ2_XXS --imatrix " + imatrix + " -o " + iq2 + " 2>&1");
  ASSERT_EQ(made.exit_code, 0) << made.output;
  EXPECT_NE(made.output.find("IQ2_XXS with an importance matrix"), std::string::npos)
      << made.output;
  auto types = types_of(iq2);
  EXPECT_EQ(types["token_embd.weight"], "q2_K");
  EXPECT_EQ(types["output.weight"], "q5_K");
  EXPECT_EQ(types["blk.0.attn_v.weight"], "q4_K");
  EXPECT_EQ(types["blk.0.ffn_down.weight"], "q2_K");  // the first eighth: i_ffn_down 0 < 8 / 8
  EXPECT_EQ(types["blk.1.ffn_down.weight"], "iq2_xxs");
  EXPECT_EQ(types["blk.1.attn_q.weight"], "iq2_xxs");
  EXPECT_EQ(types["blk.1.ffn_up.weight"], "iq2_xxs");
  std::set<std::string> mix;
  for (const auto& [name, type] : types) mix.insert(type);
  EXPECT_EQ(mix, (std::set<std::string>{"f32", "q2_K", "q4_K", "q5_K", "iq2_xxs"}));

  // IQ3_XXS with the imatrix: ffn_down keeps iq3_xxs (only without one is it q4_K / q3_K).
  const std::string iq3 = path("iq3xxs.gguf");
  made = run_command(gauntlet_exe() + " model make --dims " + kDims +
                     " --format IQ3_XXS --imatrix " + imatrix + " -o " + iq3 + " 2>&1");
  ASSERT_EQ(made.exit_code, 0) << made.output;
  types = types_of(iq3);
  EXPECT_EQ(types["blk.1.ffn_down.weight"], "iq3_xxs");
  EXPECT_EQ(types["blk.1.attn_k.weight"], "iq2_s");
  EXPECT_EQ(types["blk.1.attn_output.weight"], "iq3_s");
  EXPECT_EQ(types["token_embd.weight"], "iq3_s");
}

TEST_F(CliIqFileTypes, AnImatrixForAnotherModelIsRefused) {
  // Rows of 512 where the model's are 256: output.weight is the first tensor llama.cpp checks.
  const std::string wide = write_imatrix(
      "wide.gguf", "n_embd=512,n_layer=8,n_head=4,n_head_kv=1,n_ff=512,n_vocab=256,context=64");
  const std::string file = path("out.gguf");
  auto made = run_command(gauntlet_exe() + " model make --dims " + kDims +
                          " --format IQ2_XXS --imatrix " + wide + " -o " + file + " 2>&1");
  EXPECT_EQ(made.exit_code, 2) << made.output;
  EXPECT_NE(made.output.find("tensor 'output.weight' has 512 values, the tensor needs 256"),
            std::string::npos)
      << made.output;
  EXPECT_NE(made.output.find("another model"), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(file));
  // A tensor missing: of a type that needs an imatrix (llama.cpp's message), of another type.
  const std::string no_up = write_imatrix("no-up.gguf", kDims, "blk.1.ffn_up.weight");
  made = run_command(gauntlet_exe() + " model make --dims " + kDims +
                     " --format IQ2_XXS --imatrix " + no_up + " -o " + file + " 2>&1");
  EXPECT_EQ(made.exit_code, 2) << made.output;
  EXPECT_NE(made.output.find("Missing importance matrix for tensor blk.1.ffn_up.weight in a very "
                             "low-bit quantization"),
            std::string::npos)
      << made.output;
  const std::string no_v = write_imatrix("no-v.gguf", kDims, "blk.0.attn_v.weight");
  made = run_command(gauntlet_exe() + " model make --dims " + kDims +
                     " --format IQ2_XXS --imatrix " + no_v + " -o " + file + " 2>&1");
  EXPECT_EQ(made.exit_code, 2) << made.output;
  EXPECT_NE(made.output.find("the imatrix has no entry for tensor 'blk.0.attn_v.weight'"),
            std::string::npos)
      << made.output;
  EXPECT_FALSE(std::filesystem::exists(file));
  // A bad file: cut short.
  const std::string cut = path("cut.gguf");
  std::filesystem::copy_file(no_v, cut);
  std::filesystem::resize_file(cut, std::filesystem::file_size(cut) - 5);
  made = run_command(gauntlet_exe() + " model make --dims " + kDims +
                     " --format Q4_K_M --imatrix " + cut + " -o " + file + " 2>&1");
  EXPECT_EQ(made.exit_code, 2) << made.output;
  EXPECT_NE(made.output.find("--imatrix: '" + cut + "': invalid imatrix file"), std::string::npos)
      << made.output;
  EXPECT_FALSE(std::filesystem::exists(file));
}

}  // namespace
}  // namespace gauntlet::testing
