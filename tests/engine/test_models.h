#pragma once
// Small models shared by the engine tests.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "engine/model/gguf.h"
#include "engine/model/loaded_model.h"
#include "engine/model/synthetic.h"
#include "tests/support/temp_dir.h"

namespace gauntlet::engine::test {

inline std::vector<std::byte> synthetic_bytes(const model::ModelShape& shape,
                                              model::FileType format, uint64_t seed = 7) {
  auto w = model::synthetic_writer(shape, format, seed);
  EXPECT_TRUE(w.is_ok()) << w.error().describe();
  auto bytes = w->to_bytes();
  EXPECT_TRUE(bytes.is_ok()) << bytes.error().describe();
  return std::move(*bytes);
}

inline std::filesystem::path temp_path(const std::string& name) {
  return gauntlet::testing::temp_file_path("engine-" + name);
}

inline model::ModelShape micro_shape() {
  auto s =
      model::parse_dims("n_embd=32,n_layer=1,n_head=2,n_head_kv=1,n_ff=64,n_vocab=48,context=16");
  EXPECT_TRUE(s.is_ok());
  s->name = "micro";
  return *s;
}

}  // namespace gauntlet::engine::test
