#pragma once
// --model FILE or --shape NAME [--format F] [--seed N], as `decode` and `bench` take them: checked
// before any device is opened, every problem named.
#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>

#include "core/status.h"
#include "engine/model_source.h"

namespace gauntlet::cli {

struct ModelFlags {
  std::string model, shape, format = "Q8_0";
  uint64_t seed = 1;
};

void add_model_flags(CLI::App& command, ModelFlags& flags);

core::Result<engine::ModelSource> model_source_from_flags(const ModelFlags& flags);

}  // namespace gauntlet::cli
