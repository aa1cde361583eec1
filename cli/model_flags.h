#pragma once
// --model FILE or --shape NAME [--format F], as `decode` and `bench` take them: checked before
// any device is opened, every problem named.
#include <cstdint>
#include <string>

#include "core/status.h"
#include "engine/model_source.h"

namespace gauntlet::cli {

core::Result<engine::ModelSource> model_source_from_flags(const std::string& model,
                                                          const std::string& shape,
                                                          const std::string& format,
                                                          uint64_t seed = 1);

}  // namespace gauntlet::cli
