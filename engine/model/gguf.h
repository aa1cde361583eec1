#pragma once
// GGUF v3 files: parsing with strict validation, and a memory-mapped reader.
//
// Layout (little-endian): "GGUF", u32 version = 3, u64 tensor_count, u64 kv_count, kv_count
// pairs (string key, u32 value type, value), tensor_count infos (string name, u32 n_dims,
// u64 ne[n_dims] fastest-first, u32 type, u64 offset), padding to general.alignment (default 32),
// then the tensor data; each offset is relative to the data start and a multiple of the alignment.
// Strings are a u64 length then the bytes.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/status.h"
#include "engine/model/tensor_type.h"

namespace gauntlet::engine::model {

inline constexpr uint32_t kGgufMagic = 0x46554747;  // "GGUF" read as a little-endian u32
inline constexpr uint32_t kGgufVersion = 3;
inline constexpr uint32_t kGgufDefaultAlignment = 32;
inline constexpr uint64_t kMaxStoredArray = 4096;

enum class MetaType : uint32_t {
  u8 = 0,
  i8 = 1,
  u16 = 2,
  i16 = 3,
  u32 = 4,
  i32 = 5,
  f32 = 6,
  boolean = 7,
  string = 8,
  array = 9,
  u64 = 10,
  i64 = 11,
  f64 = 12,
};

struct MetaValue {
  MetaType type = MetaType::u32;
  uint64_t u = 0;  // unsigned integers and booleans
  int64_t i = 0;   // signed integers
  double f = 0;    // floats
  std::string s;
  MetaType array_type = MetaType::u8;
  uint64_t array_count = 0;
  // Elements of arrays up to kMaxStoredArray long; longer ones (tokenizer tables) are checked
  // and skipped, since the engine does not need them.
  std::vector<MetaValue> array;
};

struct TensorInfo {
  std::string name;
  std::vector<uint64_t> ne;  // fastest-varying first
  TensorType type = TensorType::f32;
  uint64_t offset = 0;  // relative to the data section
  uint64_t n_elements = 0;
  uint64_t bytes = 0;
};

// Everything the header says, checked against the size of the data it came from.
struct GgufInfo {
  uint32_t version = 0;
  uint32_t alignment = kGgufDefaultAlignment;
  std::map<std::string, MetaValue> metadata;
  std::vector<std::string> metadata_order;  // keys as they appear in the file
  std::vector<TensorInfo> tensors;
  uint64_t data_offset = 0;  // absolute offset of the data section

  const TensorInfo* find(const std::string& name) const;
  const MetaValue* meta(const std::string& key) const;
  // Non-negative integer of any integer type; nullopt if absent or of another type.
  std::optional<uint64_t> get_uint(const std::string& key) const;
  std::optional<double> get_float(const std::string& key) const;
  std::optional<std::string> get_string(const std::string& key) const;
};

// Parses and validates the header of a GGUF file held in `data`. Every read is bounds-checked:
// a bad file is an invalid_argument error naming what was wrong, never a crash.
core::Result<GgufInfo> parse_gguf(std::span<const std::byte> data);

// A read-only memory map of a file, unmapped on destruction.
class MappedFile {
 public:
  static core::Result<std::unique_ptr<MappedFile>> open(const std::filesystem::path& path);
  MappedFile(const std::byte* data, size_t size) : data_(data), size_(size) {}
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  std::span<const std::byte> bytes() const { return {data_, size_}; }
  // Drops the pages of [offset, offset + size) from this process's resident set (the data stays
  // in the page cache and is read again on the next access), so that streaming through the map
  // does not grow the resident set by the file size.
  void release(uint64_t offset, uint64_t size) const;

 private:
  const std::byte* data_;
  size_t size_;
};

// A GGUF file opened through a memory map.
class GgufFile {
 public:
  static core::Result<std::unique_ptr<GgufFile>> open(const std::filesystem::path& path);
  GgufFile(std::unique_ptr<MappedFile> map, GgufInfo info, std::filesystem::path path)
      : map_(std::move(map)), info_(std::move(info)), path_(std::move(path)) {}

  const GgufInfo& info() const { return info_; }
  const MappedFile& map() const { return *map_; }
  std::span<const std::byte> bytes() const { return map_->bytes(); }
  // The bytes of a tensor (bounds were checked when the file was opened).
  std::span<const std::byte> tensor_data(const TensorInfo& tensor) const;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::unique_ptr<MappedFile> map_;
  GgufInfo info_;
  std::filesystem::path path_;
};

}  // namespace gauntlet::engine::model
