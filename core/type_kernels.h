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

// The OpenCL C for a kernel that writes and reads a KV cache of K type `k` and V type `v`
// (engine_kv_store.cl, engine_attention.cl): common.cl with GAUNTLET_KV_ENCODE, then each
// quantized type's decoder and encoder (encode_block(x, block)) with its names prefixed k_ or v_
// (k_value_at, v_encode_block, ...) and its block as K_ELEMS / K_BYTES, V_ELEMS / V_BYTES, so that
// the two may be the same type or differ. f32 and f16 need no decoder.
std::vector<std::string_view> opencl_kv_type_headers(TensorType k, TensorType v);

// Bytes of workgroup-local memory the type's GLSL decoder keeps its lookup table in (the iq
// lattice grids, core/kernels/types/iq_tables.glsl; 0 for every other type): every Vulkan kernel
// that decodes the type holds it beside its own tiles. OpenCL reads the tables from __constant
// memory instead.
uint32_t vulkan_decoder_table_bytes(TensorType type);

}  // namespace gauntlet::core
