#pragma once
// What the shape's files share (shape_validate.cpp, shape_dims.cpp): the error of a shape that is
// not a model.
#include <string>

#include "core/status.h"

namespace gauntlet::engine::model::detail {

inline core::Error bad_shape(const std::string& what) {
  return core::make_error(core::ErrorKind::invalid_argument, "invalid model shape: " + what);
}

}  // namespace gauntlet::engine::model::detail
