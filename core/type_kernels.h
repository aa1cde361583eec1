#pragma once
// The device block decoders of each weight type. Every type's layout is written once per device
// language: OpenCL C in core/kernels/types/<type>.cl (after the shared common.cl), GLSL in
// core/kernels/types/<type>.glsl (after access.glsl; cmake's gauntlet_add_typed_kernels builds
// one SPIR-V per type from a kernel body). Each defines BLOCK_ELEMS, BLOCK_BYTES,
// decode16(block, c) (elements [16c, 16c + 16) of a block) and value_at(block, j).
#include <string_view>
#include <vector>

#include "core/tensor_type.h"

namespace gauntlet::core {

// The OpenCL C that defines `type`'s decoder: {common.cl, <type>.cl}, for
// backends::KernelSource::opencl_headers. Empty for a type without a decoder.
std::vector<std::string_view> opencl_type_headers(TensorType type);

}  // namespace gauntlet::core
