#include "engine/model_source.h"

#include <unistd.h>

#include "engine/model/synthetic.h"

namespace gauntlet::engine {

namespace {

core::Result<std::unique_ptr<model::GgufFile>> synthesize(const ModelSource& s) {
  const auto dir = std::filesystem::temp_directory_path();
  const auto path =
      dir / ("gauntlet-synthetic-" + std::to_string(::getpid()) + "-" + s.shape->name + ".gguf");
  GAUNTLET_TRY(model::write_synthetic_model(*s.shape, s.format, s.seed, path, true));
  auto file = model::GgufFile::open(path);
  std::error_code ec;
  std::filesystem::remove(path, ec);
  return file;
}

}  // namespace

core::Result<std::unique_ptr<model::GgufFile>> open_model(const ModelSource& source) {
  if (!source.path.empty()) return model::GgufFile::open(source.path);
  if (!source.shape) return core::make_error(core::ErrorKind::invalid_argument, "no model given");
  return synthesize(source);
}

}  // namespace gauntlet::engine
