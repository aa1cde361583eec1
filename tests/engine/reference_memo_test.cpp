// The profile checks' memo of reference runs: a run is found by the key of the same file and
// inputs, not by another file's or other inputs', and only the most recent runs are kept.
#include "engine/device/reference_memo.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "engine/model/synthetic.h"
#include "tests/support/temp_dir.h"

namespace gauntlet::engine::test {
namespace {

std::unique_ptr<model::GgufFile> written(const gauntlet::testing::TempDir& dir, const char* name,
                                         uint64_t seed) {
  auto shape = model::parse_dims("n_embd=64,n_layer=1,n_head=2,n_ff=128,n_vocab=64,context=32");
  EXPECT_TRUE(shape.is_ok());
  const auto path = dir.path() / name;
  EXPECT_TRUE(
      model::write_synthetic_model(*shape, model::FileType::q8_0, seed, path, true).is_ok());
  return model::GgufFile::open(path).value();
}

TEST(ReferenceMemo, FindsARunByItsFileAndInputsOnly) {
  gauntlet::testing::TempDir dir("reference-memo");
  const auto a = written(dir, "a.gguf", 1);
  const auto a_again = written(dir, "a2.gguf", 1);
  const auto b = written(dir, "b.gguf", 2);
  const uint64_t inputs[] = {1, 512, 7}, other_inputs[] = {1, 512, 8};
  const auto key = device::reference_key(*a, inputs);
  EXPECT_EQ(device::reference_key(*a, inputs), key);
  EXPECT_NE(device::reference_key(*a, other_inputs), key);
  EXPECT_NE(device::reference_key(*b, inputs), key);
  EXPECT_NE(device::reference_key(*a_again, inputs), key);  // another path

  device::keep_reference_run(key, {{{1.0f, 2.0f}}, {1}});
  const auto found = device::find_reference_run(key);
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->logits, (std::vector<std::vector<float>>{{1.0f, 2.0f}}));
  EXPECT_EQ(found->tokens, std::vector<int32_t>{1});
  EXPECT_FALSE(device::find_reference_run(device::reference_key(*b, inputs)).has_value());

  // Eight newer runs push it out.
  for (uint64_t i = 0; i < 8; ++i) {
    const uint64_t more[] = {2, i};
    device::keep_reference_run(device::reference_key(*b, more), {});
  }
  EXPECT_FALSE(device::find_reference_run(key).has_value());

  // Runs over 64 MiB of logits in all push out the older ones, but the newest is kept.
  const std::vector<float> vocab(262144, 1.0f);
  device::ReferenceRun big{std::vector<std::vector<float>>(40, vocab), {}};
  const uint64_t first[] = {3, 0}, second[] = {3, 1};
  device::keep_reference_run(device::reference_key(*a, first), big);
  device::keep_reference_run(device::reference_key(*a, second), big);
  EXPECT_FALSE(device::find_reference_run(device::reference_key(*a, first)).has_value());
  EXPECT_TRUE(device::find_reference_run(device::reference_key(*a, second)).has_value());
}

}  // namespace
}  // namespace gauntlet::engine::test
