#include "cli/model_flags.h"

namespace gauntlet::cli {

core::Result<engine::ModelSource> model_source_from_flags(const std::string& model,
                                                          const std::string& shape,
                                                          const std::string& format,
                                                          uint64_t seed) {
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
