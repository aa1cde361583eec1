#include "harness/quick_model.h"

#include <functional>

#include "engine/model/gguf.h"
#include "engine/model/llama.h"
#include "engine/model/synthetic.h"
#include "engine/planner/planner.h"

namespace gauntlet::harness {

namespace {

using engine::model::TensorType;
constexpr TensorType kFormats[] = {TensorType::f32, TensorType::f16, TensorType::bf16,
                                   TensorType::q8_0, TensorType::q4_0};
constexpr uint64_t kSeed = 20261121;

std::string describe(const engine::model::LlamaShape& s) {
  return "llama d=" + std::to_string(s.n_embd) + " L=" + std::to_string(s.n_layer) +
         " H=" + std::to_string(s.n_head) + "/" + std::to_string(s.n_head_kv) +
         " ff=" + std::to_string(s.n_ff) + " vocab=" + std::to_string(s.n_vocab) +
         " ctx=" + std::to_string(s.context);
}

// A cached file is reused only when it opens as a valid model of the same shape.
bool cached_model_is_valid(const std::filesystem::path& path,
                           const engine::model::LlamaShape& shape) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return false;
  auto file = engine::model::GgufFile::open(path);
  if (!file) return false;
  auto read = engine::model::read_llama_shape((*file)->info());
  return read && read->n_embd == shape.n_embd && read->n_ff == shape.n_ff &&
         read->n_layer == shape.n_layer && read->context == shape.context &&
         read->n_vocab == shape.n_vocab;
}

}  // namespace

engine::model::LlamaShape quick_shape() {
  engine::model::LlamaShape s;
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
    auto shape = engine::model::read_llama_shape((*file)->info());
    if (!shape) return shape.error();
    auto model = engine::model::load_llama((*file)->info(), (*file)->bytes());
    if (!model) return model.error();
    set.shape = *shape;
    set.info.name = model_path.filename().string();
    set.info.format = engine::model::to_string(model->format);
    set.files[model->format] = model_path;
    set.note =
        "the model file holds " + set.info.format + " weights; other formats are planned only";
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
    for (TensorType format : kFormats) {
      const uint64_t bytes = engine::planner::weight_bytes(set.shape, format);
      if (bytes > max_synthetic_bytes) {
        set.note = "weights over " + std::to_string(max_synthetic_bytes >> 20) +
                   " MiB are planned only, not synthesized";
        continue;
      }
      auto path = cache_dir / (set.shape.name + "-" + engine::model::to_string(format) + "-" +
                               std::to_string(kSeed) + ".gguf");
      if (!cached_model_is_valid(path, set.shape)) {
        GAUNTLET_TRY(engine::model::write_synthetic_model(set.shape, format, kSeed, path, true));
      }
      set.files[format] = path;
    }
  }
  set.info.shape = describe(set.shape);
  set.info.params = engine::model::parameter_count(set.shape);
  set.info.bytes = engine::planner::weight_bytes(
      set.shape, set.files.empty() ? TensorType::q4_0 : set.files.begin()->first);
  return set;
}

}  // namespace gauntlet::harness
