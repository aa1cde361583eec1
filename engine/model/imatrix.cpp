#include "engine/model/imatrix.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "engine/model/gguf.h"
#include "engine/model/gguf_writer.h"

namespace gauntlet::engine::model {

namespace {

core::Error bad_imatrix(const std::string& what) {
  return core::invalid_argument("invalid imatrix file: " + what);
}

// Non-finite values are refused as llama_model_quantize_impl refuses them ("imatrix contains
// non-finite value").
core::Status check_imatrix_finite(const std::string& name, std::span<const float> values,
                                  const char* what) {
  for (size_t i = 0; i < values.size(); ++i) {
    if (!std::isfinite(values[i])) {
      return bad_imatrix("'" + name + "' " + what + " " + std::to_string(i) + " is " +
                         std::to_string(values[i]) + ", not a finite number");
    }
  }
  return core::Status::ok();
}

// The legacy .dat format (common_imatrix_load_legacy), every read bounds-checked.
class LegacyReader {
 public:
  explicit LegacyReader(std::span<const std::byte> data) : data_(data) {}
  bool at_end() const { return pos_ == data_.size(); }

  core::Result<int32_t> i32(const std::string& what) {
    int32_t v = 0;
    GAUNTLET_TRY(take(&v, sizeof v, what));
    return v;
  }
  core::Status take(void* out, uint64_t n, const std::string& what) {
    if (data_.size() - pos_ < n) {
      return bad_imatrix("truncated at byte " + std::to_string(pos_) + " while reading " + what +
                         " (" + std::to_string(n) + " bytes; the file has " +
                         std::to_string(data_.size()) + ")");
    }
    std::memcpy(out, data_.data() + pos_, n);
    pos_ += n;
    return core::Status::ok();
  }

 private:
  std::span<const std::byte> data_;
  uint64_t pos_ = 0;
};

core::Result<Imatrix> parse_legacy_entries(std::span<const std::byte> bytes) {
  LegacyReader in(bytes);
  Imatrix m;
  m.legacy = true;
  auto n_entries = in.i32("the entry count");
  if (!n_entries) return n_entries.error();
  if (*n_entries < 1) {
    return bad_imatrix("its entry count " + std::to_string(*n_entries) + " is not positive");
  }
  for (int32_t e = 0; e < *n_entries; ++e) {
    const std::string entry =
        "entry " + std::to_string(e + 1) + " of " + std::to_string(*n_entries);
    auto len = in.i32("the name length of " + entry);
    if (!len) return len.error();
    if (*len < 0 || static_cast<uint64_t>(*len) > bytes.size()) {
      return bad_imatrix("the name length of " + entry + " is " + std::to_string(*len));
    }
    std::string name(static_cast<size_t>(*len), '\0');
    GAUNTLET_TRY(in.take(name.data(), name.size(), "the name of " + entry));
    name.resize(std::strlen(name.c_str()));  // the loader reads the name as a C string
    auto ncall = in.i32("the call count of '" + name + "'");
    if (!ncall) return ncall.error();
    auto nval = in.i32("the value count of '" + name + "'");
    if (!nval) return nval.error();
    if (*nval < 1) {
      return bad_imatrix("'" + name + "' has " + std::to_string(*nval) + " values (none to read)");
    }
    if (*ncall < 0)
      return bad_imatrix("'" + name + "' has a negative call count " + std::to_string(*ncall));
    std::vector<float> sums(static_cast<size_t>(*nval));
    GAUNTLET_TRY(in.take(sums.data(), sums.size() * sizeof(float), "the values of '" + name + "'"));
    GAUNTLET_TRY(check_imatrix_finite(name, sums, "value"));
    // quantize.cpp load_imatrix: "sums contain (raw/count)*ncall, divide by ncall".
    if (*ncall > 0) {
      const auto calls = static_cast<float>(static_cast<int64_t>(*ncall));
      for (float& v : sums) v = v / calls;
    }
    GAUNTLET_TRY(check_imatrix_finite(name, sums, "value"));
    m.values[name] = std::move(sums);  // a repeated name replaces, as the loader's map does
  }
  // The trailing chunk count and dataset name are optional.
  if (!in.at_end()) {
    auto chunks = in.i32("the chunk count");
    if (chunks) {
      m.chunk_count = *chunks < 0 ? 0 : static_cast<uint32_t>(*chunks);
      auto len = in.i32("the dataset name's length");
      if (len && *len > 0 && static_cast<uint64_t>(*len) <= bytes.size()) {
        std::string dataset(static_cast<size_t>(*len), '\0');
        if (in.take(dataset.data(), dataset.size(), "the dataset name").is_ok()) {
          dataset.resize(std::strlen(dataset.c_str()));
          m.datasets.push_back(dataset);
        }
      }
    }
  }
  return m;
}

// A file without the GGUF magic is read as a legacy one; its errors say both.
core::Result<Imatrix> parse_legacy(std::span<const std::byte> bytes) {
  auto m = parse_legacy_entries(bytes);
  if (m) return m;
  std::string why = m.error().message;
  const std::string prefix = "invalid imatrix file: ";
  if (why.starts_with(prefix)) why = why.substr(prefix.size());
  return bad_imatrix("no \"GGUF\" magic, and not a legacy .dat imatrix either: " + why);
}

core::Result<Imatrix> parse_gguf_imatrix(std::span<const std::byte> bytes) {
  auto info = parse_gguf(bytes);
  if (!info) return bad_imatrix(info.error().message);
  Imatrix m;
  // llama-quantize refuses a GGUF imatrix without the three keys ("missing imatrix metadata").
  for (const char* key : {"imatrix.datasets", "imatrix.chunk_count", "imatrix.chunk_size"}) {
    if (!info->meta(key)) return bad_imatrix("the GGUF has no key " + std::string(key));
  }
  const MetaValue* datasets = info->meta("imatrix.datasets");
  if (datasets->type == MetaType::array && datasets->array_type == MetaType::string) {
    for (const auto& d : datasets->array) m.datasets.push_back(d.s);
  }
  auto chunk_count = info->get_uint("imatrix.chunk_count");
  auto chunk_size = info->get_uint("imatrix.chunk_size");
  if (!chunk_count || !chunk_size) {
    return bad_imatrix("imatrix.chunk_count and imatrix.chunk_size must be unsigned integers");
  }
  m.chunk_count = static_cast<uint32_t>(*chunk_count);
  m.chunk_size = static_cast<uint32_t>(*chunk_size);

  // Pair NAME.in_sum2 with NAME.counts; other tensors are not read (as the loader ignores them).
  std::map<std::string, std::pair<const TensorInfo*, const TensorInfo*>> pairs;
  for (const auto& t : info->tensors) {
    if (t.name.ends_with(".in_sum2")) {
      pairs[t.name.substr(0, t.name.size() - 8)].first = &t;
    } else if (t.name.ends_with(".counts")) {
      pairs[t.name.substr(0, t.name.size() - 7)].second = &t;
    }
  }
  if (pairs.empty()) return bad_imatrix("the GGUF holds no NAME.in_sum2 and NAME.counts tensors");
  auto floats = [&](const TensorInfo& t) {
    std::vector<float> v(t.n_elements);
    std::memcpy(v.data(), bytes.data() + info->data_offset + t.offset, v.size() * sizeof(float));
    return v;
  };
  for (const auto& [name, pair] : pairs) {
    const auto [sums_info, counts_info] = pair;
    if (!sums_info || !counts_info) {
      return bad_imatrix("'" + name + "' has " +
                         (sums_info ? "in_sum2 but no counts" : "counts but no in_sum2") +
                         " (mismatched sums and counts)");
    }
    if (sums_info->type != TensorType::f32 || counts_info->type != TensorType::f32) {
      return bad_imatrix("the sums and counts of '" + name + "' must be F32");
    }
    const uint64_t n_counts = counts_info->n_elements, n_sums = sums_info->n_elements;
    if (n_counts == 0 || n_sums == 0) return bad_imatrix("'" + name + "' has no values");
    if (n_sums % n_counts != 0) {
      return bad_imatrix("'" + name + "' has " + std::to_string(n_sums) + " sums, which its " +
                         std::to_string(n_counts) + " counts do not divide");
    }
    const std::vector<float> sums = floats(*sums_info), counts = floats(*counts_info);
    GAUNTLET_TRY(check_imatrix_finite(name, sums, "sum"));
    GAUNTLET_TRY(check_imatrix_finite(name, counts, "count"));
    // quantize.cpp load_imatrix: per expert j, sums / count (the loader rounds each count to an
    // integer, lround); an expert that saw no activations (count 0) gets all 1.
    const uint64_t n_per_row = n_sums / n_counts;
    std::vector<float> values(n_sums);
    for (uint64_t j = 0; j < n_counts; ++j) {
      if (counts[j] < 0) {
        return bad_imatrix("'" + name + "' count " + std::to_string(j) + " is negative (" +
                           std::to_string(counts[j]) + ")");
      }
      const auto count = static_cast<float>(std::lround(counts[j]));
      for (uint64_t i = 0; i < n_per_row; ++i) {
        const uint64_t k = j * n_per_row + i;
        values[k] = count > 0.0f ? sums[k] / count : 1.0f;
      }
    }
    GAUNTLET_TRY(check_imatrix_finite(name, values, "value"));
    m.values[name] = std::move(values);
  }
  return m;
}

}  // namespace

const std::vector<float>* Imatrix::find(const std::string& name) const {
  auto it = values.find(name);
  return it == values.end() ? nullptr : &it->second;
}

core::Result<Imatrix> parse_imatrix(std::span<const std::byte> bytes) {
  uint32_t magic = 0;
  if (bytes.size() >= sizeof magic) std::memcpy(&magic, bytes.data(), sizeof magic);
  // common_imatrix_load: a file gguf_init_from_file cannot read is tried as the legacy format.
  return magic == kGgufMagic ? parse_gguf_imatrix(bytes) : parse_legacy(bytes);
}

core::Result<Imatrix> read_imatrix(const std::filesystem::path& path) {
  auto map = MappedFile::open(path);
  if (!map) return map.error();
  auto m = parse_imatrix((*map)->bytes());
  if (!m) return core::invalid_argument("'" + path.string() + "': " + m.error().message);
  return m;
}

namespace {

bool is_token_table_name(const std::string& name) {
  return name == "token_embd.weight" || name == "per_layer_token_embd.weight";
}

uint64_t importance_size(const TensorDesc& t) { return t.ne[0] * (t.ne.size() > 2 ? t.ne[2] : 1); }

}  // namespace

core::Status check_importance(std::span<const TensorDesc> tensors, const Imatrix* imatrix) {
  // In llama.cpp's order, so that a refusal names the tensor llama.cpp's names.
  std::vector<const TensorDesc*> order;
  for (const auto& t : tensors) order.push_back(&t);
  std::stable_sort(order.begin(), order.end(), [](const TensorDesc* a, const TensorDesc* b) {
    return loader_order(a->name, b->name);
  });
  for (const TensorDesc* tensor : order) {
    const TensorDesc& t = *tensor;
    if (t.type == TensorType::f32) continue;  // copied from the F32 source, not converted
    const std::string type = to_string(t.type);
    if (!imatrix) {
      if (tensor_requires_imatrix(t.name, t.type)) {
        return core::invalid_argument(
            "tensor '" + t.name + "' gets type " + type +
            ", and llama.cpp refuses that quantization without an importance matrix (\"this "
            "quantization requires an imatrix!\"): give --imatrix FILE");
      }
      continue;
    }
    const auto* values = imatrix->find(t.name);
    if (!values) {
      if (tensor_requires_imatrix(t.name, t.type)) {
        return core::invalid_argument("the imatrix has no entry for tensor '" + t.name +
                                      "' (type " + type +
                                      "): \"Missing importance matrix for tensor " + t.name +
                                      " in a very low-bit quantization\" (llama.cpp)");
      }
      if (is_quantized(t.type) && !is_token_table_name(t.name) && t.name != "output.weight") {
        return core::invalid_argument("the imatrix has no entry for tensor '" + t.name +
                                      "': is it for another model?");
      }
      continue;
    }
    if (values->size() != importance_size(t) && !is_token_table_name(t.name)) {
      return core::invalid_argument(
          "the imatrix entry for tensor '" + t.name + "' has " + std::to_string(values->size()) +
          " values, the tensor needs " + std::to_string(importance_size(t)) + " (a row of " +
          std::to_string(t.ne[0]) +
          (t.ne.size() > 2 ? " times " + std::to_string(t.ne[2]) + " experts" : std::string()) +
          "): is it for another model? (llama.cpp: \"imatrix size " +
          std::to_string(values->size()) + " is different from tensor size " +
          std::to_string(importance_size(t)) + " for " + t.name + "\")");
    }
  }
  return core::Status::ok();
}

const std::vector<float>* importance_for(const TensorDesc& tensor, const Imatrix& imatrix) {
  if (tensor.type == TensorType::f32) return nullptr;
  const auto* values = imatrix.find(tensor.name);
  return values && values->size() == importance_size(tensor) ? values : nullptr;
}

core::Result<std::vector<std::byte>> imatrix_gguf_bytes(std::span<const ImatrixEntry> entries,
                                                        const std::vector<std::string>& datasets,
                                                        uint32_t chunk_count, uint32_t chunk_size) {
  GgufWriter w;
  w.set_string("general.type", "imatrix");
  w.set_string_array("imatrix.datasets", datasets);
  w.set_u32("imatrix.chunk_count", chunk_count);
  w.set_u32("imatrix.chunk_size", chunk_size);
  auto bytes_of = [](const std::vector<float>& v) {
    std::vector<std::byte> b(v.size() * sizeof(float));
    std::memcpy(b.data(), v.data(), b.size());
    return b;
  };
  for (const auto& e : entries) {
    const uint64_t n_mat = e.counts.size();
    if (n_mat == 0 || e.sums.size() % n_mat != 0) {
      return core::invalid_argument("imatrix entry '" + e.name +
                                    "': " + std::to_string(e.sums.size()) + " sums for " +
                                    std::to_string(n_mat) + " counts");
    }
    w.add_tensor_bytes(e.name + ".in_sum2", {e.sums.size() / n_mat, n_mat}, TensorType::f32,
                       bytes_of(e.sums));
    w.add_tensor_bytes(e.name + ".counts", {1, n_mat}, TensorType::f32, bytes_of(e.counts));
  }
  return w.to_bytes();
}

}  // namespace gauntlet::engine::model
