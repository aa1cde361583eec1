#include "engine/model/gguf_writer.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <thread>
#include <vector>

namespace gauntlet::engine::model {

namespace {

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};

class FileSink {
 public:
  explicit FileSink(std::FILE* f) : f_(f) {}
  bool put(const void* p, size_t n) { return std::fwrite(p, 1, n, f_) == n; }

 private:
  std::FILE* f_;
};

class MemorySink {
 public:
  bool put(const void* p, size_t n) {
    const auto* b = static_cast<const std::byte*>(p);
    out.insert(out.end(), b, b + n);
    return true;
  }
  std::vector<std::byte> out;
};

template <typename Sink, typename T>
bool put_value(Sink& sink, T v) {
  return sink.put(&v, sizeof v);
}

template <typename Sink>
bool put_string(Sink& sink, const std::string& s) {
  return put_value<Sink, uint64_t>(sink, s.size()) && sink.put(s.data(), s.size());
}

template <typename Sink>
bool put_meta(Sink& sink, const MetaValue& v) {
  switch (v.type) {
    case MetaType::u32:
      return put_value<Sink, uint32_t>(sink, static_cast<uint32_t>(v.u));
    case MetaType::u64:
      return put_value<Sink, uint64_t>(sink, v.u);
    case MetaType::boolean:  // one byte, as gguf's GGUF_TYPE_BOOL
      return put_value<Sink, uint8_t>(sink, v.u != 0 ? 1 : 0);
    case MetaType::i32:
      return put_value<Sink, int32_t>(sink, static_cast<int32_t>(v.i));
    case MetaType::f32:
      return put_value<Sink, float>(sink, static_cast<float>(v.f));
    case MetaType::string:
      return put_string(sink, v.s);
    case MetaType::array: {
      if (!put_value<Sink, uint32_t>(sink, static_cast<uint32_t>(v.array_type)) ||
          !put_value<Sink, uint64_t>(sink, v.array.size())) {
        return false;
      }
      for (const auto& e : v.array) {
        if (!put_meta(sink, e)) return false;
      }
      return true;
    }
    default:
      return false;  // the setters make only the types above
  }
}

// Counts the bytes written, so that padding can be computed from the position.
template <typename Sink>
struct Counting {
  Sink& sink;
  uint64_t pos = 0;
  bool put(const void* p, size_t n) {
    pos += n;
    return sink.put(p, n);
  }
  bool pad_to(uint64_t target) {
    static const std::byte zeros[256] = {};
    while (pos < target) {
      if (!put(zeros, std::min<uint64_t>(target - pos, sizeof zeros))) return false;
    }
    return true;
  }
};

core::Error write_failed(const std::string& what) {
  return core::make_error(core::ErrorKind::io_error, "writing GGUF failed: " + what);
}

}  // namespace

GgufWriter::GgufWriter(uint32_t alignment) : alignment_(alignment) {
  if (alignment_ != kGgufDefaultAlignment) set_u32("general.alignment", alignment_);
}

void GgufWriter::set_u32(const std::string& key, uint32_t value) {
  MetaValue v;
  v.type = MetaType::u32;
  v.u = value;
  set_meta(key, std::move(v));
}

void GgufWriter::set_u64(const std::string& key, uint64_t value) {
  MetaValue v;
  v.type = MetaType::u64;
  v.u = value;
  set_meta(key, std::move(v));
}

void GgufWriter::set_f32(const std::string& key, float value) {
  MetaValue v;
  v.type = MetaType::f32;
  v.f = value;
  set_meta(key, std::move(v));
}

void GgufWriter::set_string(const std::string& key, const std::string& value) {
  MetaValue v;
  v.type = MetaType::string;
  v.s = value;
  set_meta(key, std::move(v));
}

void GgufWriter::set_meta(const std::string& key, MetaValue value) {
  // GGUF keys are unique (llama.cpp's reader refuses a duplicate): a second set replaces.
  for (auto& [k, v] : metadata_) {
    if (k == key) {
      v = std::move(value);
      return;
    }
  }
  metadata_.emplace_back(key, std::move(value));
}

void GgufWriter::set_string_array(const std::string& key, const std::vector<std::string>& values) {
  MetaValue v;
  v.type = MetaType::array;
  v.array_type = MetaType::string;
  for (const auto& s : values) {
    MetaValue e;
    e.type = MetaType::string;
    e.s = s;
    v.array.push_back(e);
  }
  v.array_count = v.array.size();
  set_meta(key, std::move(v));
}

void GgufWriter::add_tensor(const std::string& name, std::vector<uint64_t> ne, TensorType type,
                            RowFn rows) {
  tensors_.push_back({name, std::move(ne), type, std::move(rows), {}, {}});
}

void GgufWriter::remove_tensor(const std::string& name) {
  std::erase_if(tensors_, [&](const Pending& t) { return t.name == name; });
}

bool GgufWriter::set_importance(const std::string& name, std::vector<float> values) {
  for (auto& t : tensors_) {
    if (t.name == name) {
      t.importance = std::move(values);
      return true;
    }
  }
  return false;
}

void GgufWriter::add_tensor_bytes(const std::string& name, std::vector<uint64_t> ne,
                                  TensorType type, std::vector<std::byte> bytes) {
  tensors_.push_back({name, std::move(ne), type, nullptr, std::move(bytes), {}});
}

namespace {

constexpr uint64_t kChunkValues = uint64_t{1} << 24;  // 64 MiB of f32 rows at a time

// Where a tensor's importance values are: row r (of the whole tensor) reads those of its expert,
// r / rows_per_expert (llama-quant.cpp, imatrix_for_row).
struct Importance {
  const float* values = nullptr;  // null: none
  uint64_t rows_per_expert = 1;
};

// `count` rows of `n_in` values each, from row `first` of the tensor, quantized on every hardware
// thread (each row alone).
void quantize_rows(TensorType type, const float* in, std::byte* out, uint64_t n_in, uint64_t first,
                   uint64_t count, Importance importance) {
  const uint64_t bytes = row_bytes(type, n_in);
  const uint64_t threads = std::clamp<uint64_t>(std::thread::hardware_concurrency(), 1,
                                                std::max<uint64_t>(1, count * n_in / 65536));
  auto rows_of = [&](uint64_t k) {
    for (uint64_t r = k; r < count; r += threads) {
      const float* weights =
          importance.values ? importance.values + (first + r) / importance.rows_per_expert * n_in
                            : nullptr;
      quantize_row(type, in + r * n_in, out + r * bytes, n_in, weights);
    }
  };
  std::vector<std::jthread> helpers;
  for (uint64_t k = 1; k < threads; ++k) helpers.emplace_back(rows_of, k);
  rows_of(0);
}

}  // namespace

template <typename Sink>
core::Status GgufWriter::emit(Sink& sink) const {
  std::vector<uint64_t> sizes, offsets;
  uint64_t data_pos = 0;
  for (const auto& t : tensors_) {
    uint64_t n = 1;
    for (uint64_t d : t.ne) n *= d;
    if (t.ne.empty() || t.ne[0] % block_elements(t.type) != 0) {
      return write_failed("tensor '" + t.name + "' rows are not whole blocks of " +
                          to_string(t.type));
    }
    const uint64_t bytes = n / block_elements(t.type) * block_bytes(t.type);
    const uint64_t experts = t.ne.size() > 2 ? t.ne[2] : 1;
    if (!t.importance.empty() && t.importance.size() != t.ne[0] * experts) {
      return write_failed("tensor '" + t.name + "' has " + std::to_string(t.importance.size()) +
                          " importance values, its rows need " + std::to_string(t.ne[0] * experts));
    }
    if (!t.rows && t.bytes.size() != bytes) {
      return write_failed("tensor '" + t.name + "' has " + std::to_string(t.bytes.size()) +
                          " bytes, its shape needs " + std::to_string(bytes));
    }
    data_pos = (data_pos + alignment_ - 1) / alignment_ * alignment_;
    offsets.push_back(data_pos);
    sizes.push_back(bytes);
    data_pos += bytes;
  }

  Counting<Sink> out{sink};
  using C = Counting<Sink>;

  bool ok = put_value<C, uint32_t>(out, kGgufMagic) && put_value<C, uint32_t>(out, kGgufVersion) &&
            put_value<C, uint64_t>(out, tensors_.size()) &&
            put_value<C, uint64_t>(out, metadata_.size());
  for (const auto& [key, value] : metadata_) {
    ok = ok && put_string(out, key) &&
         put_value<C, uint32_t>(out, static_cast<uint32_t>(value.type)) && put_meta(out, value);
  }
  for (size_t i = 0; i < tensors_.size(); ++i) {
    const auto& t = tensors_[i];
    ok = ok && put_string(out, t.name) &&
         put_value<C, uint32_t>(out, static_cast<uint32_t>(t.ne.size()));
    for (uint64_t d : t.ne) ok = ok && put_value<C, uint64_t>(out, d);
    ok = ok && put_value<C, uint32_t>(out, static_cast<uint32_t>(t.type)) &&
         put_value<C, uint64_t>(out, offsets[i]);
  }
  const uint64_t data_start = (out.pos + alignment_ - 1) / alignment_ * alignment_;
  ok = ok && out.pad_to(data_start);
  std::vector<float> rows;
  std::vector<std::byte> encoded;
  for (size_t i = 0; i < tensors_.size() && ok; ++i) {
    const auto& t = tensors_[i];
    ok = ok && out.pad_to(data_start + offsets[i]);
    if (!t.rows) {
      ok = ok && out.put(t.bytes.data(), t.bytes.size());
      continue;
    }
    // Rows are generated in order (a tensor's values come from one generator), then a chunk of
    // them is quantized on every core: an 8B model's K-quants take minutes on one.
    const uint64_t n_in = t.ne[0];
    const uint64_t n_rows = sizes[i] / row_bytes(t.type, n_in);
    const uint64_t chunk = std::max<uint64_t>(1, kChunkValues / n_in);
    const Importance importance{t.importance.empty() ? nullptr : t.importance.data(),
                                t.ne.size() > 1 ? std::max<uint64_t>(1, t.ne[1]) : 1};
    for (uint64_t r0 = 0; r0 < n_rows && ok; r0 += chunk) {
      const uint64_t count = std::min(chunk, n_rows - r0);
      rows.resize(count * n_in);
      encoded.resize(count * row_bytes(t.type, n_in));
      for (uint64_t r = 0; r < count; ++r) t.rows(r0 + r, rows.data() + r * n_in);
      quantize_rows(t.type, rows.data(), encoded.data(), n_in, r0, count, importance);
      ok = out.put(encoded.data(), encoded.size());
    }
  }
  if (!ok) return write_failed(std::strerror(errno));
  return core::Status::ok();
}

core::Result<std::vector<std::byte>> GgufWriter::to_bytes() const {
  MemorySink sink;
  GAUNTLET_TRY(emit(sink));
  return std::move(sink.out);
}

core::Status GgufWriter::write(const std::filesystem::path& path, bool overwrite) const {
  std::error_code ec;
  if (!overwrite && std::filesystem::exists(path, ec)) {
    return core::make_error(
        core::ErrorKind::invalid_argument,
        std::string("'").append(path.string()).append("' exists (use --force to replace it)"));
  }
  const std::filesystem::path tmp =
      path.string() + ".tmp." + std::to_string(static_cast<long>(::getpid()));
  {
    std::unique_ptr<std::FILE, FileCloser> f(std::fopen(tmp.c_str(), "wb"));
    if (!f) {
      return core::make_error(core::ErrorKind::io_error,
                              "cannot create '" + tmp.string() + "': " + std::strerror(errno));
    }
    FileSink sink(f.get());
    core::Status s = emit(sink);
    if (s.is_ok() && (std::fflush(f.get()) != 0 || ::fsync(::fileno(f.get())) != 0)) {
      s = write_failed(std::string("flushing '") + tmp.string() + "': " + std::strerror(errno));
    }
    if (!s.is_ok()) {
      f.reset();
      std::filesystem::remove(tmp, ec);
      return s;
    }
  }
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::filesystem::remove(tmp, ec);
    return core::make_error(core::ErrorKind::io_error,
                            "cannot rename to '" + path.string() + "': " + ec.message());
  }
  return core::Status::ok();
}

}  // namespace gauntlet::engine::model
