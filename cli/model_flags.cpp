#include "cli/model_flags.h"

namespace gauntlet::cli {

void add_model_flags(CLI::App& command, ModelFlags& flags) {
  command.add_option("--model", flags.model, "a GGUF file");
  command.add_option("--shape", flags.shape,
                     "a synthetic model of this preset shape, or of these dims "
                     "(n_embd=..,n_layer=..,n_head=..,n_ff=..,n_vocab=..,context=..), instead");
  command.add_option("--format", flags.format,
                     "the synthetic model's llama.cpp file type (default Q8_0)");
  command.add_option("--seed", flags.seed, "the synthetic model's seed (default 1)");
}

core::Result<engine::ModelSource> model_source_from_flags(const ModelFlags& flags) {
  const auto& [model, shape, format, seed] = flags;
  if (model.empty() == shape.empty()) {
    return core::make_error(core::ErrorKind::invalid_argument,
                            "give exactly one of --model and --shape");
  }
  engine::ModelSource source;
  source.path = model;
  source.seed = seed;
  if (!shape.empty()) {
    auto parsed = engine::model::parse_shape(shape);
    if (!parsed) return parsed.error();
    source.shape = *parsed;
  }
  auto type = engine::model::parse_file_type(format);
  if (!type) {
    return core::make_error(
        core::ErrorKind::invalid_argument,
        "unknown --format '" + format + "' (" + engine::model::known_file_types() + ")");
  }
  source.format = *type;
  return source;
}

}  // namespace gauntlet::cli
