#include "engine/model/gguf.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <set>

namespace gauntlet::engine::model {

namespace {

// ggml's names for the type ids gauntlet does not run (ggml.c, type_traits), so that a refusal
// names the type as llama.cpp's tools do.
std::string ggml_type_name(uint32_t id) {
  static const std::map<uint32_t, const char*> names = {
      {4, "q4_2 (removed)"}, {5, "q4_3 (removed)"}, {9, "q8_1"}, {15, "q8_K"}, {24, "i8"},
      {25, "i16"},           {26, "i32"},           {27, "i64"}, {28, "f64"}};
  auto it = names.find(id);
  return it == names.end() ? "unknown" : it->second;
}

using core::ErrorKind;
using core::make_error;

constexpr uint64_t kMaxKeyLength = 65535;
constexpr uint32_t kMaxDims = 4;
constexpr int kMaxArrayDepth = 4;

core::Error bad(const std::string& what) {
  return make_error(ErrorKind::invalid_argument, "invalid GGUF file: " + what);
}

// A bounds-checked cursor over the file bytes.
class Cursor {
 public:
  explicit Cursor(std::span<const std::byte> data) : data_(data) {}
  uint64_t pos() const { return pos_; }
  uint64_t remaining() const { return data_.size() - pos_; }

  template <typename T>
  core::Result<T> read(const char* what) {
    if (remaining() < sizeof(T)) {
      return bad("truncated at byte " + std::to_string(pos_) + " while reading " + what +
                 " (file has " + std::to_string(data_.size()) + " bytes)");
    }
    T value;
    std::memcpy(&value, data_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return value;
  }

  core::Result<std::string> read_string(const char* what, uint64_t max_length) {
    auto length = read<uint64_t>(what);
    if (!length) return length.error();
    if (*length > max_length) {
      return bad(std::string(what) + " at byte " + std::to_string(pos_ - 8) + " has length " +
                 std::to_string(*length) + ", over the limit " + std::to_string(max_length));
    }
    if (*length > remaining()) {
      return bad("truncated at byte " + std::to_string(pos_) + ": " + what + " of " +
                 std::to_string(*length) + " bytes runs past the end of the file");
    }
    std::string s(reinterpret_cast<const char*>(data_.data() + pos_), *length);
    pos_ += *length;
    return s;
  }

 private:
  std::span<const std::byte> data_;
  uint64_t pos_ = 0;
};

// The smallest encoded size of a value of this type, so that a huge array count is refused
// before anything is allocated for it.
uint64_t min_value_bytes(MetaType type) {
  switch (type) {
    case MetaType::u8:
    case MetaType::i8:
    case MetaType::boolean:
      return 1;
    case MetaType::u16:
    case MetaType::i16:
      return 2;
    case MetaType::u32:
    case MetaType::i32:
    case MetaType::f32:
      return 4;
    case MetaType::u64:
    case MetaType::i64:
    case MetaType::f64:
    case MetaType::string:
      return 8;
    case MetaType::array:
      return 12;
  }
  return 1;
}

bool valid_meta_type(uint32_t t) { return t <= 12; }

core::Result<MetaValue> read_value(Cursor& c, MetaType type, const std::string& key, int depth) {
  MetaValue v;
  v.type = type;
  const char* what = "a metadata value";
  switch (type) {
#define GAUNTLET_READ(T, field) \
  {                             \
    auto r = c.read<T>(what);   \
    if (!r) return r.error();   \
    v.field = *r;               \
    return v;                   \
  }
    case MetaType::u8:
      GAUNTLET_READ(uint8_t, u)
    case MetaType::i8:
      GAUNTLET_READ(int8_t, i)
    case MetaType::u16:
      GAUNTLET_READ(uint16_t, u)
    case MetaType::i16:
      GAUNTLET_READ(int16_t, i)
    case MetaType::u32:
      GAUNTLET_READ(uint32_t, u)
    case MetaType::i32:
      GAUNTLET_READ(int32_t, i)
    case MetaType::u64:
      GAUNTLET_READ(uint64_t, u)
    case MetaType::i64:
      GAUNTLET_READ(int64_t, i)
    case MetaType::f32:
      GAUNTLET_READ(float, f)
    case MetaType::f64:
      GAUNTLET_READ(double, f)
#undef GAUNTLET_READ
    case MetaType::boolean: {
      auto r = c.read<uint8_t>(what);
      if (!r) return r.error();
      if (*r > 1) return bad("metadata '" + key + "' is a bool with value " + std::to_string(*r));
      v.u = *r;
      return v;
    }
    case MetaType::string: {
      auto r = c.read_string("a metadata string", c.remaining());
      if (!r) return r.error();
      v.s = std::move(*r);
      return v;
    }
    case MetaType::array: {
      if (depth >= kMaxArrayDepth) return bad("metadata '" + key + "' nests arrays too deeply");
      auto elem = c.read<uint32_t>("an array element type");
      if (!elem) return elem.error();
      if (!valid_meta_type(*elem)) {
        return bad("metadata '" + key + "' is an array of unknown value type " +
                   std::to_string(*elem));
      }
      auto count = c.read<uint64_t>("an array length");
      if (!count) return count.error();
      v.array_type = static_cast<MetaType>(*elem);
      if (*count > c.remaining() / min_value_bytes(v.array_type)) {
        return bad("metadata '" + key + "' claims " + std::to_string(*count) +
                   " array elements, more than the " + std::to_string(c.remaining()) +
                   " bytes left in the file can hold");
      }
      v.array_count = *count;
      const bool keep = *count <= kMaxStoredArray;
      if (keep) v.array.reserve(*count);
      for (uint64_t i = 0; i < *count; ++i) {
        auto e = read_value(c, v.array_type, key, depth + 1);
        if (!e) return e.error();
        if (keep) v.array.push_back(std::move(*e));
      }
      return v;
    }
  }
  return bad("metadata '" + key + "' has unknown value type");
}

}  // namespace

const TensorInfo* GgufInfo::find(const std::string& name) const {
  for (const auto& t : tensors) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

const MetaValue* GgufInfo::meta(const std::string& key) const {
  auto it = metadata.find(key);
  return it == metadata.end() ? nullptr : &it->second;
}

std::optional<uint64_t> GgufInfo::get_uint(const std::string& key) const {
  const MetaValue* v = meta(key);
  if (v == nullptr) return std::nullopt;
  switch (v->type) {
    case MetaType::u8:
    case MetaType::u16:
    case MetaType::u32:
    case MetaType::u64:
      return v->u;
    case MetaType::i8:
    case MetaType::i16:
    case MetaType::i32:
    case MetaType::i64:
      if (v->i < 0) return std::nullopt;
      return static_cast<uint64_t>(v->i);
    default:
      return std::nullopt;
  }
}

std::optional<double> GgufInfo::get_float(const std::string& key) const {
  const MetaValue* v = meta(key);
  if (v == nullptr || (v->type != MetaType::f32 && v->type != MetaType::f64)) return std::nullopt;
  return v->f;
}

std::optional<std::string> GgufInfo::get_string(const std::string& key) const {
  const MetaValue* v = meta(key);
  if (v == nullptr || v->type != MetaType::string) return std::nullopt;
  return v->s;
}

core::Result<GgufInfo> parse_gguf(std::span<const std::byte> data) {
  Cursor c(data);
  GgufInfo info;
  auto magic = c.read<uint32_t>("the magic");
  if (!magic) return magic.error();
  if (*magic != kGgufMagic) {
    char m[5] = {};
    std::memcpy(m, &*magic, 4);
    for (char& ch : m) {
      if (ch != 0 && (ch < 32 || ch > 126)) ch = '?';
    }
    return bad(std::string("bad magic '") + m + "' (expected 'GGUF')");
  }
  auto version = c.read<uint32_t>("the version");
  if (!version) return version.error();
  if (*version != kGgufVersion) {
    return bad("unsupported GGUF version " + std::to_string(*version) + " (only version 3)");
  }
  info.version = *version;
  auto tensor_count = c.read<uint64_t>("the tensor count");
  if (!tensor_count) return tensor_count.error();
  auto kv_count = c.read<uint64_t>("the metadata count");
  if (!kv_count) return kv_count.error();
  // Each pair needs at least 12 bytes and each tensor info at least 24.
  if (*kv_count > c.remaining() / 12) {
    return bad("metadata count " + std::to_string(*kv_count) + " is more than the file can hold");
  }
  if (*tensor_count > c.remaining() / 24) {
    return bad("tensor count " + std::to_string(*tensor_count) + " is more than the file can hold");
  }

  for (uint64_t k = 0; k < *kv_count; ++k) {
    auto key = c.read_string("a metadata key", kMaxKeyLength);
    if (!key) return key.error();
    if (key->empty()) return bad("metadata pair " + std::to_string(k) + " has an empty key");
    auto type = c.read<uint32_t>("a metadata value type");
    if (!type) return type.error();
    if (!valid_meta_type(*type)) {
      return bad("metadata '" + *key + "' has unknown value type " + std::to_string(*type));
    }
    auto value = read_value(c, static_cast<MetaType>(*type), *key, 0);
    if (!value) return value.error();
    if (!info.metadata.emplace(*key, std::move(*value)).second) {
      return bad("metadata key '" + *key + "' appears twice");
    }
    info.metadata_order.push_back(*key);
  }

  if (const MetaValue* a = info.meta("general.alignment")) {
    // At least 4: the engine reads f32 weights in place, which needs 4-byte aligned tensors.
    if (a->type != MetaType::u32 || a->u < 4 || (a->u & (a->u - 1)) != 0) {
      return bad("general.alignment must be a u32 power of two of at least 4, not " +
                 std::to_string(a->u));
    }
    info.alignment = static_cast<uint32_t>(a->u);
  }

  std::set<std::string> names;
  for (uint64_t t = 0; t < *tensor_count; ++t) {
    TensorInfo ti;
    auto name = c.read_string("a tensor name", kMaxKeyLength);
    if (!name) return name.error();
    ti.name = std::move(*name);
    if (!names.insert(ti.name).second) return bad("tensor '" + ti.name + "' appears twice");
    auto n_dims = c.read<uint32_t>("a tensor's dimension count");
    if (!n_dims) return n_dims.error();
    if (*n_dims == 0 || *n_dims > kMaxDims) {
      return bad("tensor '" + ti.name + "' has " + std::to_string(*n_dims) +
                 " dimensions (1 to 4 allowed)");
    }
    ti.n_elements = 1;
    for (uint32_t d = 0; d < *n_dims; ++d) {
      auto ne = c.read<uint64_t>("a tensor dimension");
      if (!ne) return ne.error();
      if (*ne == 0) return bad("tensor '" + ti.name + "' has a zero dimension");
      if (__builtin_mul_overflow(ti.n_elements, *ne, &ti.n_elements) ||
          ti.n_elements > (uint64_t{1} << 60)) {
        return bad("tensor '" + ti.name + "': the product of its dimensions overflows");
      }
      ti.ne.push_back(*ne);
    }
    auto type = c.read<uint32_t>("a tensor type");
    if (!type) return type.error();
    auto tt = tensor_type_from_id(*type);
    if (!tt) {
      return bad("tensor '" + ti.name + "' has type " + ggml_type_name(*type) + " (id " +
                 std::to_string(*type) +
                 "), which gauntlet cannot run (supported: " + known_tensor_types() + ")");
    }
    ti.type = *tt;
    if (ti.ne[0] % block_elements(ti.type) != 0) {
      return bad("tensor '" + ti.name + "' of type " + to_string(ti.type) + " has a row of " +
                 std::to_string(ti.ne[0]) + " elements, not a multiple of the block size " +
                 std::to_string(block_elements(ti.type)));
    }
    ti.bytes = ti.n_elements / block_elements(ti.type) * block_bytes(ti.type);
    auto offset = c.read<uint64_t>("a tensor offset");
    if (!offset) return offset.error();
    ti.offset = *offset;
    if (ti.offset % info.alignment != 0) {
      return bad("tensor '" + ti.name + "' has offset " + std::to_string(ti.offset) +
                 ", not a multiple of the alignment " + std::to_string(info.alignment));
    }
    info.tensors.push_back(std::move(ti));
  }

  const uint64_t header_end = c.pos();
  info.data_offset = (header_end + info.alignment - 1) / info.alignment * info.alignment;
  const uint64_t size = data.size();
  for (const auto& ti : info.tensors) {
    uint64_t begin = 0, end = 0;
    if (__builtin_add_overflow(info.data_offset, ti.offset, &begin) ||
        __builtin_add_overflow(begin, ti.bytes, &end) || end > size) {
      return bad("tensor '" + ti.name + "' (" + std::to_string(ti.bytes) +
                 " bytes at data offset " + std::to_string(ti.offset) +
                 ") lies outside the file of " + std::to_string(size) + " bytes");
    }
  }
  return info;
}

core::Result<std::unique_ptr<MappedFile>> MappedFile::open(const std::filesystem::path& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return make_error(errno == ENOENT ? ErrorKind::not_found : ErrorKind::io_error,
                      "cannot open '" + path.string() + "': " + std::strerror(errno));
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return make_error(ErrorKind::invalid_argument, "'" + path.string() + "' is not a regular file");
  }
  const auto size = static_cast<size_t>(st.st_size);
  if (size == 0) {
    ::close(fd);
    return bad("'" + path.string() + "' is empty");
  }
  void* p = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  const int mmap_errno = errno;
  ::close(fd);
  if (p == MAP_FAILED) {
    return make_error(ErrorKind::io_error,
                      "cannot map '" + path.string() + "': " + std::strerror(mmap_errno));
  }
  return std::make_unique<MappedFile>(static_cast<const std::byte*>(p), size);
}

MappedFile::~MappedFile() { ::munmap(const_cast<std::byte*>(data_), size_); }

void MappedFile::release(uint64_t offset, uint64_t size) const {
  const uint64_t page = static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
  if (offset >= size_) return;
  size = std::min<uint64_t>(size, size_ - offset);
  // Whole pages inside the range only, so that a neighbour still in use is never dropped.
  const uint64_t begin = (offset + page - 1) / page * page;
  const uint64_t end = (offset + size == size_) ? size_ : (offset + size) / page * page;
  if (end <= begin) return;
  ::madvise(const_cast<std::byte*>(data_) + begin, end - begin, MADV_DONTNEED);
}

core::Result<std::unique_ptr<GgufFile>> GgufFile::open(const std::filesystem::path& path) {
  auto map = MappedFile::open(path);
  if (!map) return map.error();
  auto info = parse_gguf((*map)->bytes());
  if (!info) {
    core::Error e = info.error();
    e.message = "'" + path.string() + "': " + e.message;
    return e;
  }
  return std::make_unique<GgufFile>(std::move(*map), std::move(*info), path);
}

std::span<const std::byte> GgufFile::tensor_data(const TensorInfo& tensor) const {
  return bytes().subspan(info_.data_offset + tensor.offset, tensor.bytes);
}

}  // namespace gauntlet::engine::model
