#include "harness/quick_model.h"

#include <functional>

#include "engine/model/gguf.h"
#include "engine/model/loaded_model.h"
#include "engine/model/synthetic.h"
#include "engine/planner/planner.h"

namespace gauntlet::harness {

namespace {

using engine::model::FileType;
// The formats llama.cpp users ship most (Q4_K_M, Q5_K_M, Q6_K, Q8_0), the legacy Q4_0, and the
// unquantized ones.
constexpr FileType kFormats[] = {FileType::f32,    FileType::f16,  FileType::bf16,
                                 FileType::q8_0,   FileType::q6_K, FileType::q5_K_M,
                                 FileType::q4_K_M, FileType::q4_0};
constexpr uint64_t kSeed = 20261121;

std::vector<reports::TypeShare> type_shares(std::span<const engine::model::TensorDesc> tensors) {
  std::vector<reports::TypeShare> shares;
  for (auto type : engine::model::types_in(tensors)) {
    reports::TypeShare share{engine::model::to_string(type), 0, 0};
    for (const auto& t : tensors) {
      if (t.type != type) continue;
      ++share.tensors;
      share.bytes += t.bytes();
    }
    shares.push_back(share);
  }
  return shares;
}

std::string describe(const engine::model::ModelShape& s) {
  return std::string(s.traits().name) + " d=" + std::to_string(s.n_embd) +
         " L=" + std::to_string(s.n_layer) + " H=" + std::to_string(s.n_head) + "/" +
         std::to_string(s.n_head_kv) + " hd=" + std::to_string(s.head_dim()) +
         " ff=" + std::to_string(s.n_ff) + " vocab=" + std::to_string(s.n_vocab) +
         " ctx=" + std::to_string(s.context) + (s.tied_output ? " tied" : "");
}

// A cached file is reused only when it opens as a valid model of the same shape.
bool cached_model_is_valid(const std::filesystem::path& path,
                           const engine::model::ModelShape& shape) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return false;
  auto file = engine::model::GgufFile::open(path);
  if (!file) return false;
  auto read = engine::model::read_model_shape((*file)->info());
  return read && read->n_embd == shape.n_embd && read->n_ff == shape.n_ff &&
         read->n_layer == shape.n_layer && read->context == shape.context &&
         read->n_vocab == shape.n_vocab;
}

}  // namespace

std::vector<FileType> planned_formats(const engine::model::ModelShape& shape) {
  std::vector<FileType> formats(std::begin(kFormats), std::end(kFormats));
  // llama.cpp's MXFP4_MOE (gpt-oss's own format) types only the experts MXFP4: a dense model's
  // would be its Q8_0.
  if (shape.n_expert > 0) formats.push_back(FileType::mxfp4_moe);
  // The i-quant mixes of the 16 GB recipes, planned (fit and sizes) but not synthesized: llama.cpp
  // makes them with an importance matrix from real activations, which a synthetic model has not.
  for (FileType f : {FileType::iq3_m, FileType::iq3_xxs, FileType::iq2_m}) formats.push_back(f);
  return formats;
}

bool runs_at_quick_level(FileType format) {
  return format == FileType::f16 || format == FileType::q8_0 || format == FileType::q4_K_M;
}

engine::model::ModelShape quick_shape() {
  engine::model::ModelShape s;
  s.name = "gauntlet-quick";
  s.n_embd = 256;
  s.n_layer = 2;
  s.n_head = 4;
  s.n_head_kv = 4;
  s.n_ff = 11008;
  s.n_vocab = 2048;
  s.context = 65536;
  return s;
}

core::Result<ModelSet> prepare_models(const std::filesystem::path& model_path,
                                      const std::string& shape_name,
                                      const std::filesystem::path& cache_dir,
                                      uint64_t max_synthetic_bytes) {
  ModelSet set;
  if (!model_path.empty()) {
    auto file = engine::model::GgufFile::open(model_path);
    if (!file) return file.error();
    auto shape = engine::model::read_model_shape((*file)->info());
    if (!shape) return shape.error();
    auto model = engine::model::load_model((*file)->info(), (*file)->bytes());
    if (!model) return model.error();
    set.shape = *shape;
    set.info.name = model_path.filename().string();
    set.info.format = engine::model::to_string(model->file_type);
    set.files[model->file_type] = model_path;
    set.user_file = true;
    set.mixes[model->file_type] = model->tensors;
    set.note = "the model file holds " + set.info.format + " weights" +
               (model->file_type_guessed ? " (named by its largest type)" : "") +
               "; only they are planned";
  } else {
    if (shape_name.empty()) {
      set.shape = quick_shape();
    } else {
      auto shape = engine::model::parse_shape(shape_name);
      if (!shape) return shape.error();
      if (shape->name.empty() || shape->name == "custom") {
        shape->name = "custom-" + std::to_string(std::hash<std::string>{}(shape_name) % 100000);
      }
      set.shape = *shape;
    }
    set.info.name = set.shape.name;
    set.info.format = "all";
    std::error_code ec;
    std::filesystem::create_directories(cache_dir, ec);
    if (ec) {
      return core::make_error(
          core::ErrorKind::io_error,
          "cannot create the model cache " + cache_dir.string() + ": " + ec.message());
    }
    for (FileType format : planned_formats(set.shape)) {
      set.mixes[format] = engine::model::model_tensors(set.shape, format, {},
                                                       engine::model::made_with_imatrix(format));
      if (engine::model::made_with_imatrix(format)) continue;
      const uint64_t bytes = engine::planner::weight_bytes(set.mixes[format]);
      if (bytes > max_synthetic_bytes) {
        set.note = "weights over " + std::to_string(max_synthetic_bytes >> 20) +
                   " MiB are planned only, not synthesized";
        continue;
      }
      // "v2": files with llama.cpp's type mixes and a tokenizer (earlier caches had neither).
      auto path = cache_dir / (set.shape.name + "-" + engine::model::to_string(format) + "-" +
                               std::to_string(kSeed) + "-v2.gguf");
      if (!cached_model_is_valid(path, set.shape)) {
        GAUNTLET_TRY(engine::model::write_synthetic_model(set.shape, format, kSeed, path, true));
      }
      set.files[format] = path;
    }
  }
  set.info.shape = describe(set.shape);
  set.info.params = engine::model::parameter_count(set.shape);
  // The report's one size: Q4_K_M's where it is planned (the file type teams deploy most).
  const auto shown =
      set.mixes.count(FileType::q4_K_M) ? set.mixes.find(FileType::q4_K_M) : set.mixes.begin();
  set.info.bytes = engine::planner::weight_bytes(shown->second);
  for (const auto& [format, tensors] : set.mixes) {
    set.info.type_mix[engine::model::to_string(format)] = type_shares(tensors);
  }
  return set;
}

}  // namespace gauntlet::harness
