#include "engine/model/projector.h"

#include <algorithm>

#include "engine/model/gguf.h"
#include "engine/model/gguf_writer.h"

namespace gauntlet::engine::model {

namespace {

// Keys as tools/mtmd/clip-impl.h names them.
constexpr const char* kProjectorType = "clip.projector_type";
constexpr const char* kVisionProjectorType = "clip.vision.projector_type";
const std::string kVision = "clip.vision.";

core::Error bad_projector(const std::filesystem::path& path, const std::string& what) {
  return core::make_error(core::ErrorKind::invalid_argument,
                          "vision projector " + path.string() + ": " + what);
}

TensorDesc matrix(std::string name, uint64_t n_in, uint64_t n_out, TensorType type) {
  return {std::move(name), {n_in, n_out}, type};
}

TensorDesc vector(std::string name, uint64_t n) {
  return {std::move(name), {n}, TensorType::f32, true};
}

void add_norm(std::vector<TensorDesc>& out, const std::string& prefix, uint64_t n) {
  out.push_back(vector(prefix + ".weight", n));
  out.push_back(vector(prefix + ".bias", n));
}

void add_linear(std::vector<TensorDesc>& out, const std::string& prefix, uint64_t n_in,
                uint64_t n_out, TensorType type) {
  out.push_back(matrix(prefix + ".weight", n_in, n_out, type));
  out.push_back(vector(prefix + ".bias", n_out));
}

MetaValue boolean(bool value) {
  MetaValue v;
  v.type = MetaType::boolean;
  v.u = value ? 1 : 0;
  return v;
}

MetaValue float_array(std::vector<float> values) {
  MetaValue a;
  a.type = MetaType::array;
  a.array_type = MetaType::f32;
  for (float f : values) {
    MetaValue e;
    e.type = MetaType::f32;
    e.f = f;
    a.array.push_back(e);
  }
  a.array_count = a.array.size();
  return a;
}

MetaValue deepstack_flags(const ProjectorShape& s) {
  MetaValue a;
  a.type = MetaType::array;
  a.array_type = MetaType::boolean;
  for (uint32_t l = 0; l < s.n_layer; ++l) {
    const bool on = std::find(s.deepstack_layers.begin(), s.deepstack_layers.end(), l) !=
                    s.deepstack_layers.end();
    a.array.push_back(boolean(on));
  }
  a.array_count = a.array.size();
  return a;
}

}  // namespace

uint64_t ProjectorShape::warmup_patches() const {
  const uint64_t side = 46ull * spatial_merge;
  return side * side;
}

std::vector<TensorDesc> projector_tensors(const ProjectorShape& s, TensorType matrix_type) {
  const uint64_t n = s.n_embd, merged = 4ull * s.n_embd, side = s.image_size / s.patch_size;
  std::vector<TensorDesc> out;
  // convert_hf_to_gguf.py splits the Conv3D patch embedding into two Conv2Ds along time.
  out.push_back({"v.patch_embd.weight", {s.patch_size, s.patch_size, 3, n}, TensorType::f16});
  out.push_back({"v.patch_embd.weight.1", {s.patch_size, s.patch_size, 3, n}, TensorType::f16});
  out.push_back(vector("v.patch_embd.bias", n));
  // f32: resize_position_embeddings interpolates it (ggml_interpolate takes f32 only).
  out.push_back({"v.position_embd.weight", {n, side * side}, TensorType::f32});
  for (uint32_t l = 0; l < s.n_layer; ++l) {
    const std::string p = "v.blk." + std::to_string(l) + ".";
    add_norm(out, p + "ln1", n);
    add_linear(out, p + "attn_qkv", n, 3 * n, matrix_type);
    add_linear(out, p + "attn_out", n, n, matrix_type);
    add_norm(out, p + "ln2", n);
    add_linear(out, p + "ffn_up", n, s.n_ff, matrix_type);
    add_linear(out, p + "ffn_down", s.n_ff, n, matrix_type);
  }
  add_norm(out, "v.post_ln", n);
  add_linear(out, "mm.0", merged, merged, matrix_type);
  add_linear(out, "mm.2", merged, s.projection_dim, matrix_type);
  for (uint32_t l : s.deepstack_layers) {
    const std::string p = "v.deepstack." + std::to_string(l) + ".";
    add_norm(out, p + "norm", merged);
    add_linear(out, p + "fc1", merged, merged, matrix_type);
    add_linear(out, p + "fc2", merged, s.projection_dim, matrix_type);
  }
  return out;
}

core::Status write_projector(const ProjectorShape& s, TensorType matrix_type,
                             const std::filesystem::path& path, bool overwrite) {
  GgufWriter w;
  w.set_string("general.architecture", "clip");
  w.set_string(kProjectorType, s.projector_type);
  w.set_meta("clip.has_vision_encoder", boolean(true));
  w.set_meta("clip.use_gelu", boolean(true));
  w.set_u32(kVision + "image_size", s.image_size);
  w.set_u32(kVision + "patch_size", s.patch_size);
  w.set_u32(kVision + "embedding_length", s.n_embd);
  w.set_u32(kVision + "feed_forward_length", s.n_ff);
  w.set_u32(kVision + "block_count", s.n_layer);
  w.set_u32(kVision + "projection_dim", s.projection_dim);
  w.set_u32(kVision + "attention.head_count", s.n_head);
  w.set_f32(kVision + "attention.layer_norm_epsilon", 1e-6f);
  w.set_u32(kVision + "spatial_merge_size", s.spatial_merge);
  w.set_meta(kVision + "image_mean", float_array({0.5f, 0.5f, 0.5f}));
  w.set_meta(kVision + "image_std", float_array({0.5f, 0.5f, 0.5f}));
  if (!s.deepstack_layers.empty()) w.set_meta(kVision + "is_deepstack_layers", deepstack_flags(s));
  for (const auto& t : projector_tensors(s, matrix_type)) {
    // Weights small enough that any activation stays finite; gauntlet plans, it never runs them.
    const float value = t.is_vector && t.name.ends_with("weight") ? 1.0f : 0.01f;
    w.add_tensor(t.name, t.ne, t.type,
                 [value, n = t.ne[0]](uint64_t, float* out) { std::fill_n(out, n, value); });
  }
  return w.write(path, overwrite);
}

core::Result<ProjectorFile> read_projector(const std::filesystem::path& path) {
  auto file = GgufFile::open(path);
  if (!file) return bad_projector(path, file.error().message);
  const GgufInfo& info = (*file)->info();
  const auto arch = info.get_string("general.architecture");
  if (arch != "clip") {
    return bad_projector(path, "general.architecture is '" + arch.value_or("") +
                                   "', a vision projector's is 'clip'");
  }
  ProjectorFile out;
  auto& s = out.shape;
  s.projector_type =
      info.get_string(kProjectorType).value_or(info.get_string(kVisionProjectorType).value_or(""));
  if (s.projector_type != kQwen3vlProjector) {
    return bad_projector(path, "projector type '" + s.projector_type +
                                   "' is not one gauntlet sizes (known: " + kQwen3vlProjector +
                                   ")");
  }
  const auto need = [&](const std::string& key, uint32_t& into) -> bool {
    const auto v = info.get_uint(kVision + key);
    if (v) into = static_cast<uint32_t>(*v);
    return v.has_value() && *v > 0;
  };
  for (auto [key, field] : {std::pair{"image_size", &s.image_size},
                            {"patch_size", &s.patch_size},
                            {"embedding_length", &s.n_embd},
                            {"feed_forward_length", &s.n_ff},
                            {"block_count", &s.n_layer},
                            {"projection_dim", &s.projection_dim},
                            {"attention.head_count", &s.n_head}}) {
    if (!need(key, *field)) return bad_projector(path, "missing or zero " + kVision + key);
  }
  s.spatial_merge =
      static_cast<uint32_t>(info.get_uint(kVision + "spatial_merge_size").value_or(2));
  if (s.spatial_merge == 0) return bad_projector(path, kVision + "spatial_merge_size is 0");
  if (const MetaValue* flags = info.meta(kVision + "is_deepstack_layers")) {
    for (uint32_t l = 0; l < flags->array.size(); ++l) {
      if (flags->array[l].u != 0) s.deepstack_layers.push_back(l);
    }
  }
  for (const TensorInfo& t : info.tensors) {
    TensorDesc d{t.name, t.ne, t.type};
    d.is_vector = t.ne.size() == 1;
    out.tensors.push_back(std::move(d));
  }
  return out;
}

ProjectorShape projector_for(const std::string& preset, uint32_t text_n_embd) {
  ProjectorShape s;  // Qwen3.6-27B's vision_config (config.json): no deepstack mergers
  if (preset != "qwen3.6-27b") {
    // A small tower for synthetic models: 2 layers of 64, position table 8 x 8 patches of 16.
    s.image_size = 128;
    s.n_embd = 64;
    s.n_ff = 256;
    s.n_layer = 2;
    s.n_head = 4;
  }
  s.projection_dim = text_n_embd;
  return s;
}

}  // namespace gauntlet::engine::model
