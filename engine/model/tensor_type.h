#pragma once
// The tensor types live in core/ (conformance and the engine both decode them); the engine's
// model code names them as its own.
#include "core/tensor_type.h"

namespace gauntlet::engine::model {

using core::all_tensor_types;
using core::block_bytes;
using core::block_elements;
using core::dequantize_row;
using core::dot_row;
using core::dot_row_tokens;
using core::f16_lookup;
using core::is_quantized;
using core::known_tensor_types;
using core::parse_tensor_type;
using core::quantize_row;
using core::row_bytes;
using core::tensor_type_from_id;
using core::TensorType;
using core::to_string;
using core::traits;

}  // namespace gauntlet::engine::model
