#include "engine/model/synthetic.h"

#include <cmath>
#include <memory>

#include "core/rng.h"
#include "engine/model/tokenizer_meta.h"

namespace gauntlet::engine::model {

namespace {

uint64_t name_hash(const std::string& name) {
  uint64_t h = 1469598103934665603ull;  // FNV-1a
  for (char c : name) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ull;
  }
  return h;
}

}  // namespace

core::Result<GgufWriter> synthetic_writer(const LlamaShape& shape, FileType format, uint64_t seed) {
  GAUNTLET_TRY(validate_shape(shape));
  GgufWriter w;
  w.set_string("general.architecture", "llama");
  w.set_string("general.name", shape.name);
  w.set_u32("general.file_type", static_cast<uint32_t>(format));
  w.set_u32("general.quantization_version", 2);  // GGML_QNT_VERSION
  w.set_u64("gauntlet.synthetic_seed", seed);
  w.set_u32("llama.context_length", shape.context);
  w.set_u32("llama.embedding_length", shape.n_embd);
  w.set_u32("llama.block_count", shape.n_layer);
  w.set_u32("llama.feed_forward_length", shape.n_ff);
  w.set_u32("llama.attention.head_count", shape.n_head);
  w.set_u32("llama.attention.head_count_kv", shape.n_head_kv);
  w.set_u32("llama.rope.dimension_count", shape.rope_dims());
  w.set_f32("llama.rope.freq_base", shape.rope_freq_base);
  w.set_f32("llama.attention.layer_norm_rms_epsilon", shape.rms_eps);
  add_minimal_tokenizer(w, shape.n_vocab);
  for (const auto& t : llama_tensors(shape, format)) {
    const uint64_t tensor_seed = seed ^ name_hash(t.name);
    // Rows are generated in order, so one generator per tensor gives the same values each time.
    auto rng = std::make_shared<core::Rng>(tensor_seed);
    const uint64_t n_in = t.ne[0];
    if (t.is_norm) {
      w.add_tensor(t.name, t.ne, t.type, [rng, n_in, tensor_seed](uint64_t row, float* out) {
        if (row == 0) *rng = core::Rng(tensor_seed);
        for (uint64_t i = 0; i < n_in; ++i) out[i] = 1.0f + rng->uniform(-0.2f, 0.2f);
      });
      continue;
    }
    // Embeddings are looked up, not multiplied, so they get unit scale.
    const bool embedding = t.name == "token_embd.weight";
    const float a = embedding ? 1.0f : std::sqrt(3.0f / static_cast<float>(n_in));
    w.add_tensor(t.name, t.ne, t.type, [rng, n_in, a, tensor_seed](uint64_t row, float* out) {
      if (row == 0) *rng = core::Rng(tensor_seed);
      for (uint64_t i = 0; i < n_in; ++i) out[i] = rng->uniform(-a, a);
    });
  }
  return w;
}

core::Status write_synthetic_model(const LlamaShape& shape, FileType format, uint64_t seed,
                                   const std::filesystem::path& path, bool overwrite) {
  auto w = synthetic_writer(shape, format, seed);
  if (!w) return w.error();
  return w->write(path, overwrite);
}

}  // namespace gauntlet::engine::model
