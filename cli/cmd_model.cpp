// gauntlet model make | info | shapes: synthetic GGUF models of real shapes, what a GGUF file
// holds, and the preset shapes.
#include <iostream>
#include <map>
#include <optional>

#include "cli/commands.h"
#include "cli/format.h"
#include "core/json.h"
#include "engine/model/gguf.h"
#include "engine/model/imatrix.h"
#include "engine/model/loaded_model.h"
#include "engine/model/projector.h"
#include "engine/model/synthetic.h"
#include "engine/planner/planner.h"

namespace gauntlet::cli {

namespace {

struct MakeArgs {
  std::string shape, dims, format, out, imatrix;
  std::vector<std::string> tensor_types;  // PATTERN=TYPE, as llama-quantize's --tensor-type
  uint64_t seed = 1;
  bool force = false;
  bool projector = false;
};

// The model's vision projector instead of the model (an mmproj file, as convert_hf_to_gguf.py's
// --mmproj writes one beside it): its matrices in F32, F16 (the default, as converters write
// them), BF16 or Q8_0.
int make_projector(const MakeArgs& a, const engine::model::ModelShape& shape) {
  if (!a.tensor_types.empty() || !a.imatrix.empty()) {
    return fail(
        "--projector takes neither --tensor-type nor --imatrix (its matrices are all of "
        "--format's type)",
        kExitUsage);
  }
  const std::string format = a.format.empty() ? "F16" : a.format;
  const auto type = format == "F32"    ? std::optional{core::TensorType::f32}
                    : format == "F16"  ? std::optional{core::TensorType::f16}
                    : format == "BF16" ? std::optional{core::TensorType::bf16}
                    : format == "Q8_0" ? std::optional{core::TensorType::q8_0}
                                       : std::nullopt;
  if (!type) {
    return fail("a projector's --format is one of F32, F16, BF16, Q8_0, not '" + format + "'",
                kExitUsage);
  }
  const auto projector = engine::model::projector_for(a.shape, shape.n_embd);
  auto status = engine::model::write_projector(projector, *type, a.out, a.force);
  if (!status) return fail(status.error().message, kExitFailures);
  std::cout << "wrote " << a.out << ": a " << projector.projector_type << " vision projector of "
            << projector.n_layer << " layers of " << projector.n_embd << " for " << shape.name
            << " (" << format << "), "
            << format_bytes(engine::planner::weight_bytes(
                   engine::model::projector_tensors(projector, *type)))
            << " of weights\n";
  return kExitOk;
}

int make_model(const MakeArgs& a) {
  if (a.shape.empty() == a.dims.empty())
    return fail("give exactly one of --shape and --dims", kExitUsage);
  if (a.projector) {
    auto shape =
        a.shape.empty() ? engine::model::parse_dims(a.dims) : engine::model::preset_shape(a.shape);
    if (!shape) return fail(shape.error().message, kExitUsage);
    return make_projector(a, *shape);
  }
  const std::string format_name = a.format.empty() ? "Q8_0" : a.format;
  auto format = engine::model::parse_file_type(format_name);
  if (!format) {
    return fail("unknown format '" + format_name + "' (" + engine::model::known_file_types() + ")",
                kExitUsage);
  }
  std::vector<engine::model::TensorTypeOverride> overrides;
  for (const auto& text : a.tensor_types) {
    auto o = engine::model::parse_tensor_type_override(text);
    if (!o) {
      return fail("--tensor-type '" + text +
                      "': give PATTERN=TYPE, a regular expression and one of " +
                      core::known_tensor_types(),
                  kExitUsage);
    }
    overrides.push_back(std::move(*o));
  }
  auto shape =
      a.shape.empty() ? engine::model::parse_dims(a.dims) : engine::model::preset_shape(a.shape);
  if (!shape) return fail(shape.error().message, kExitUsage);
  std::optional<engine::model::Imatrix> imatrix;
  if (!a.imatrix.empty()) {
    auto read = engine::model::read_imatrix(a.imatrix);
    if (!read) return fail("--imatrix: " + read.error().message, kExitUsage);
    imatrix = std::move(*read);
  }
  const auto tensors =
      engine::model::model_tensors(*shape, *format, overrides, imatrix.has_value());
  // A type without a fallback (nvfp4) on a row it cannot hold: llama.cpp's quantizer stops there
  // (tensor_type_fallback: "no tensor type fallback is defined for type nvfp4").
  for (const auto& t : tensors) {
    if (!engine::model::row_fits_type(t.type, t.ne[0])) {
      return fail("tensor '" + t.name + "': a row of " + std::to_string(t.ne[0]) +
                      " elements is not whole " + engine::model::to_string(t.type) +
                      " blocks, and llama.cpp defines no tensor type fallback for " +
                      engine::model::to_string(t.type),
                  kExitUsage);
    }
  }
  auto status = engine::model::write_synthetic_model(*shape, *format, a.seed, a.out, a.force,
                                                     overrides, imatrix ? &*imatrix : nullptr);
  if (!status) {
    return fail(status.error().message, status.error().kind == core::ErrorKind::invalid_argument
                                            ? kExitUsage
                                            : kExitFailures);
  }
  std::cout << "wrote " << a.out << ": " << shape->name << " " << engine::model::to_string(*format)
            << (imatrix ? " with an importance matrix" : "") << ", "
            << engine::model::parameter_count(*shape) << " parameters, "
            << format_bytes(engine::planner::weight_bytes(tensors)) << " of weights\n";
  return kExitOk;
}

int model_info(const std::string& path, bool json) {
  auto file = engine::model::GgufFile::open(path);
  if (!file) return fail(file.error().message, kExitUsage);
  const auto& info = (*file)->info();
  auto model = engine::model::load_model(info, (*file)->bytes());
  if (!model) return fail("'" + path + "': " + model.error().message, kExitUsage);
  const auto& s = model->shape;
  uint64_t params = 0, bytes = 0;
  // Per type in ggml id order: tensor count and bytes.
  std::map<uint32_t, std::pair<uint64_t, uint64_t>> mix;
  for (const auto& t : info.tensors) {
    params += t.n_elements;
    bytes += t.bytes;
    auto& [count, type_bytes] = mix[static_cast<uint32_t>(t.type)];
    ++count;
    type_bytes += t.bytes;
  }
  const std::string format = std::string(engine::model::to_string(model->file_type)) +
                             (model->file_type_guessed ? " (guessed)" : "");
  if (json) {
    core::OrderedJson j;
    j["path"] = path;
    j["architecture"] = s.traits().name;
    j["name"] = s.name;
    j["format"] = format;
    j["gguf_version"] = info.version;
    j["alignment"] = info.alignment;
    j["file_bytes"] = (*file)->bytes().size();
    j["tensor_bytes"] = bytes;
    j["parameters"] = params;
    j["type_mix"] = core::OrderedJson::array();
    for (const auto& [id, share] : mix) {
      j["type_mix"].push_back({{"type", engine::model::to_string(engine::model::TensorType{id})},
                               {"tensors", share.first},
                               {"bytes", share.second}});
    }
    j["shape"] = {{"n_embd", s.n_embd},        {"n_layer", s.n_layer},
                  {"n_head", s.n_head},        {"n_head_kv", s.n_head_kv},
                  {"head_dim", s.head_dim()},  {"n_ff", s.n_ff},
                  {"n_vocab", s.n_vocab},      {"context", s.context},
                  {"rope_dim", s.rope_dims()}, {"rope_freq_base", s.rope_freq_base},
                  {"rms_eps", s.rms_eps},      {"tied_output", s.tied_output}};
    j["tensors"] = core::OrderedJson::array();
    for (const auto& t : info.tensors) {
      j["tensors"].push_back({{"name", t.name},
                              {"type", engine::model::to_string(t.type)},
                              {"ne", t.ne},
                              {"bytes", t.bytes},
                              {"offset", info.data_offset + t.offset}});
    }
    std::cout << j.dump(2) << "\n";
    return kExitOk;
  }
  std::cout << path << ": " << s.traits().name << " '" << s.name << "', " << format << ", GGUF v"
            << info.version << "\n"
            << "  n_embd " << s.n_embd << ", n_layer " << s.n_layer << ", n_head " << s.n_head
            << ", n_head_kv " << s.n_head_kv << ", head_dim " << s.head_dim() << ", n_ff " << s.n_ff
            << ", n_vocab " << s.n_vocab << ", context " << s.context
            << (s.tied_output ? ", tied output" : "") << "\n"
            << "  " << params << " parameters, " << format_bytes(bytes) << " of tensors in a "
            << format_bytes((*file)->bytes().size()) << " file\n";
  std::vector<std::vector<std::string>> types{{"TYPE", "TENSORS", "BYTES"}};
  for (const auto& [id, share] : mix) {
    types.push_back({engine::model::to_string(engine::model::TensorType{id}),
                     std::to_string(share.first), format_bytes(share.second)});
  }
  std::cout << format_table(types);
  std::vector<std::vector<std::string>> table{{"TENSOR", "TYPE", "SHAPE", "BYTES"}};
  for (const auto& t : info.tensors) {
    std::string ne;
    for (size_t i = 0; i < t.ne.size(); ++i) ne += (i ? " x " : "") + std::to_string(t.ne[i]);
    table.push_back({t.name, engine::model::to_string(t.type), ne, std::to_string(t.bytes)});
  }
  std::cout << format_table(table);
  return kExitOk;
}

}  // namespace

void add_model_command(CLI::App& app, CommandContext& context) {
  auto* model =
      app.add_subcommand("model", "Make synthetic GGUF models and show what a GGUF holds");
  model->require_subcommand(1);

  auto make = std::make_shared<MakeArgs>();
  auto* mk = model->add_subcommand(
      "make", "Write a model of a real shape with deterministic weights from a seed");
  std::string presets;
  for (const auto& n : engine::model::preset_names()) presets += (presets.empty() ? "" : ", ") + n;
  mk->add_option("--shape", make->shape, "preset (see `gauntlet model shapes`): " + presets);
  mk->add_option("--dims", make->dims,
                 "n_embd=..,n_layer=..,n_head=..,n_head_kv=..,n_ff=..,n_vocab=..,context=.. "
                 "(also arch=" +
                     engine::model::known_architectures("|") +
                     ", head_dim, rope_dim, tied=1, rope_freqs=1, window, attn_softcap, "
                     "final_softcap, yarn_factor, yarn_orig_ctx; a mixture: n_expert, "
                     "n_expert_used, n_ff_exp, n_ff_shexp, fused_gate_up=1; a gated-DeltaNet "
                     "hybrid: ssm_state, ssm_groups, ssm_heads, ssm_inner, ssm_conv, "
                     "full_attention_interval, rope_sections=T:H:W:E, nextn=1 (qwen35's MTP "
                     "block after the trunk); qwen3vl: rope_sections, "
                     "deepstack; gemma4: head_dim_swa, n_head_kv_global, swa_pattern, shared_kv, "
                     "k_as_v=1, n_embd_per_layer, double_wide_mlp=1, and n_expert, n_expert_used, "
                     "n_ff_exp for the 26B-A4B's experts beside the dense feed-forward; lfm2: "
                     "attn_layers=A:B:... (the attention layers, the others short convolutions), "
                     "ssm_conv (the conv's taps, default 3); lfm2moe: also dense_lead (leading "
                     "dense layers), gating=1|2|3 (llama.cpp's expert_gating_func); mistral3: "
                     "yarn_beta_fast, yarn_beta_slow, yarn_log_mul, attn_temp_scale; "
                     "nemotron_h: layers=M-M*... (one per layer: M Mamba2, * attention, - or E "
                     "feed-forward) and the Mamba2 block's ssm_state, ssm_groups, ssm_heads, "
                     "ssm_inner, ssm_conv; nemotron_h_moe: also expert_norm=0|1, expert_scale; "
                     "granitehybrid: layers=M*... (M Mamba2, * attention), the Mamba2 dims; "
                     "granite and granitehybrid: rope=0|1, embedding_scale, residual_scale, "
                     "attention_scale, logit_scale; "
                     "laguna: window (every layer but each fourth from 0 slides), n_head_swa (the "
                     "sliding layers' query heads), rope_dim_swa, rope_freq_base_swa, dense_lead, "
                     "expert_norm=0|1, expert_scale)");
  mk->add_option("--format", make->format,
                 "llama.cpp file type: each tensor gets the type llama.cpp's quantizer gives it "
                 "(" +
                     engine::model::known_file_types() + "; default Q8_0)");
  mk->add_option("--tensor-type", make->tensor_types,
                 "PATTERN=TYPE (repeatable): tensors whose name matches the regular expression get "
                 "the ggml type TYPE instead of the format's rules, as llama-quantize's "
                 "--tensor-type (e.g. 'ffn_.*_exps=mxfp4')");
  mk->add_option("--imatrix", make->imatrix,
                 "an importance matrix (llama-imatrix's GGUF or legacy .dat file), as "
                 "llama-quantize's --imatrix: each tensor's rows are quantized weighted by its "
                 "entry (an expert stack's experts by theirs), and the types follow llama.cpp's "
                 "rules with an imatrix. Without one, a tensor whose type needs one (iq1_s, "
                 "iq1_m, iq2_xxs, iq2_xs, iq2_s, iq3_xxs; so IQ1_*, IQ2_*, IQ3_XXS, IQ3_XS) is "
                 "refused as llama.cpp refuses it. Every quantized tensor but output.weight and "
                 "the token table must have an entry of its size (n_per_row times experts)");
  mk->add_option("--seed", make->seed, "weight seed (default 1)");
  mk->add_option("-o,--output", make->out, "the GGUF file to write")->required();
  mk->add_flag("--projector", make->projector,
               "write the model's vision projector instead (an mmproj GGUF of type "
               "qwen3vl_merger, its output the model's n_embd wide): qwen3.6-27b's published "
               "tower (27 layers of 1152), else a small one (2 layers of 64); --format F32, F16 "
               "(default), BF16 or Q8_0 for its matrices");
  mk->add_flag("--force", make->force, "replace an existing file");
  mk->callback([&context, make] { context.exit_code = make_model(*make); });

  auto path = std::make_shared<std::string>();
  auto json = std::make_shared<bool>(false);
  auto* info =
      model->add_subcommand("info", "Shapes, formats, bytes and parameter count of a GGUF");
  info->add_option("file", *path, "the GGUF file")->required();
  info->add_flag("--json", *json, "print JSON");
  info->callback([&context, path, json] { context.exit_code = model_info(*path, *json); });
  add_model_shapes_command(*model, context);
}

}  // namespace gauntlet::cli
