#pragma once
// Writes GGUF v3 files: metadata, tensor infos, padding, tensor data aligned to
// general.alignment. Tensor data comes row by row from a generator (so that a multi-gigabyte
// model is never held in memory) or as raw bytes. The file appears atomically: it is written
// to a temporary name in the same folder and renamed when complete.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "core/status.h"
#include "engine/model/gguf.h"

namespace gauntlet::engine::model {

class GgufWriter {
 public:
  // Fills `out` with row `row` (ne[0] floats) of a tensor.
  using RowFn = std::function<void(uint64_t row, float* out)>;

  explicit GgufWriter(uint32_t alignment = kGgufDefaultAlignment);

  void set_u32(const std::string& key, uint32_t value);
  void set_u64(const std::string& key, uint64_t value);
  void set_f32(const std::string& key, float value);
  void set_string(const std::string& key, const std::string& value);
  // Any value of type u32, u64, i32, f32, string, or an array of those (as the reader returns
  // them). Setting a key again replaces its value.
  void set_meta(const std::string& key, MetaValue value);
  void set_string_array(const std::string& key, const std::vector<std::string>& values);

  // A tensor whose rows the writer converts to `type`.
  void add_tensor(const std::string& name, std::vector<uint64_t> ne, TensorType type, RowFn rows);
  // A tensor given as its encoded bytes (row_bytes(type, ne[0]) * rows).
  void add_tensor_bytes(const std::string& name, std::vector<uint64_t> ne, TensorType type,
                        std::vector<std::byte> bytes);

  // Leaves a tensor out (a file as a converter writes it without an optional tensor).
  void remove_tensor(const std::string& name);

  // Importance values (an imatrix, imatrix.h) for tensor `name`'s rows, passed to
  // core::quantize_row: ne[0] values for a matrix, ne[0] * ne[2] for an expert stack, whose
  // expert e (its ne[1] rows) gets the values from e * ne[0] (llama-quant.cpp, imatrix_for_row).
  // False if no tensor added so far has that name.
  bool set_importance(const std::string& name, std::vector<float> values);

  // Refuses to replace an existing file unless `overwrite`.
  core::Status write(const std::filesystem::path& path, bool overwrite = false) const;
  // The whole file in memory (for tests of small models).
  core::Result<std::vector<std::byte>> to_bytes() const;

 private:
  struct Pending {
    std::string name;
    std::vector<uint64_t> ne;
    TensorType type;
    RowFn rows;
    std::vector<std::byte> bytes;
    std::vector<float> importance;  // empty: none
  };
  template <typename Sink>
  core::Status emit(Sink& sink) const;

  uint32_t alignment_;
  std::vector<std::pair<std::string, MetaValue>> metadata_;
  std::vector<Pending> tensors_;
};

}  // namespace gauntlet::engine::model
