#pragma once
// Small models shared by the engine tests.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "engine/batch.h"
#include "engine/model/gguf.h"
#include "engine/model/loaded_model.h"
#include "engine/model/synthetic.h"
#include "tests/support/temp_dir.h"

namespace gauntlet::engine::test {

// The shape `dims` describe (model make's --dims text); with `validate`, also checked as a
// decoder would check it.
inline model::ModelShape shape_of(const std::string& dims, bool validate = false) {
  auto s = model::parse_dims(dims);
  EXPECT_TRUE(s.is_ok()) << s.error().describe();
  if (validate) {
    auto valid = model::validate_shape(*s);
    EXPECT_TRUE(valid.is_ok()) << valid.error().describe();
  }
  return *s;
}

// The tensor named `name`, or nullptr.
inline const model::TensorDesc* find(const std::vector<model::TensorDesc>& t,
                                     const std::string& name) {
  for (const auto& d : t) {
    if (d.name == name) return &d;
  }
  return nullptr;
}

// The type of the tensor named `name` (a test failure, and f32, if there is none).
inline core::TensorType type_of(const std::vector<model::TensorDesc>& tensors,
                                const std::string& name) {
  const auto* t = find(tensors, name);
  if (t == nullptr) ADD_FAILURE() << "no tensor " << name;
  return t ? t->type : core::TensorType::f32;
}

inline std::vector<std::byte> synthetic_bytes(const model::ModelShape& shape,
                                              model::FileType format, uint64_t seed = 7) {
  auto w = model::synthetic_writer(shape, format, seed);
  EXPECT_TRUE(w.is_ok()) << w.error().describe();
  auto bytes = w->to_bytes();
  EXPECT_TRUE(bytes.is_ok()) << bytes.error().describe();
  return std::move(*bytes);
}

inline model::LoadedModel load(const std::vector<std::byte>& bytes) {
  auto info = model::parse_gguf(bytes);
  EXPECT_TRUE(info.is_ok());
  auto m = model::load_model(*info, bytes);
  EXPECT_TRUE(m.is_ok()) << m.error().describe();
  return std::move(*m);
}

// A synthetic F32 file of `shape`, changed by `change` (a GgufWriter&), is refused at load with an
// error that holds `what`.
template <typename Change>
void expect_load_refused(const model::ModelShape& shape, Change&& change, const std::string& what) {
  auto w = *model::synthetic_writer(shape, model::FileType::f32, 7);
  change(w);
  auto bytes = w.to_bytes();
  ASSERT_TRUE(bytes.is_ok());
  auto m = model::load_model(*model::parse_gguf(*bytes), *bytes);
  ASSERT_FALSE(m.is_ok()) << what;
  EXPECT_NE(m.error().message.find(what), std::string::npos) << m.error().message;
}

// Each id for the next position of sequence `seq`, every token wanting its logits.
inline std::vector<BatchToken> tokens_of(const std::vector<int32_t>& ids, uint32_t seq = 0) {
  std::vector<BatchToken> b;
  for (int32_t id : ids) b.push_back({id, seq, true});
  return b;
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
