#pragma once
// The tensor (weight) types gauntlet reads and writes: ggml's type ids, names and block layouts.
// A type is one line of the registry core/weight_types.def (name, id, block size, bytes per block,
// codec file, Vulkan matvec kind), which C++ reads as an X-macro and CMake as a table; here it is
// one TypeTraits entry (with its host encode and decode); the planner's bytes, the GGUF reader and
// writer, the host reference and the kernel choice all read from it. Each type's layout is written
// down once per language: the C++ in core/types/*.cpp, the OpenCL C in
// core/kernels/types/<name>.cl, the GLSL in core/kernels/types/<name>.glsl.
//
// Layouts (ggml's ggml-common.h; d, dmin and m are f16; QK_K = 256):
//   f32, f16, bf16   one element per "block"
//   q4_0  32 elems,  18 bytes  {d, qs[16]}: value = d * (q - 8)
//   q4_1  32 elems,  20 bytes  {d, m, qs[16]}: value = d * q + m
//   q5_0  32 elems,  22 bytes  {d, qh[4], qs[16]}: 5th bit from qh; value = d * (q - 16)
//   q5_1  32 elems,  24 bytes  {d, m, qh[4], qs[16]}: value = d * q + m
//   q8_0  32 elems,  34 bytes  {d, qs[32] int8}: value = d * q
//   q2_K 256 elems,  84 bytes  {scales[16], qs[64], d, dmin}: 16 sub-blocks of 16 with 4-bit scale
//                              and min; value = d * sc * q - dmin * m, q 2 bits
//   q3_K 256 elems, 110 bytes  {hmask[32], qs[64], scales[12], d}: 16 sub-blocks of 16 with 6-bit
//                              scales; value = d * (sc - 32) * (q - 4), q 3 bits (2 in qs, 1 in
//                              hmask); blocks are only 2-byte aligned
//   q4_K 256 elems, 144 bytes  {d, dmin, scales[12], qs[128]}: 8 sub-blocks of 32 with 6-bit
//                              scale and min; value = d * sc * q - dmin * m
//   q5_K 256 elems, 176 bytes  {d, dmin, scales[12], qh[32], qs[128]}
//   q6_K 256 elems, 210 bytes  {ql[128], qh[64], scales[16] int8, d}: value = d * sc * (q - 32)
//   iq4_nl  32 elems,  18 bytes  {d, qs[16]}: value = d * kvalues_iq4nl[q] (16 non-linear levels)
//   iq4_xs 256 elems, 136 bytes  {d, scales_h u16, scales_l[4], qs[128]}: 8 blocks of 32 with a
//                                6-bit scale; value = d * (sc - 32) * kvalues_iq4nl[q]
//   mxfp4   32 elems,  17 bytes  {e, qs[16]}: e an E8M0 scale (u8, 2^(e - 127)); value =
//                                kvalues_mxfp4[q] * 2^(e - 128) (E2M1 values doubled, scale
//                                halved); blocks are only byte aligned
//   tq1_0 256 elems,  54 bytes  {qs[48], qh[4], d}: ternary (-1, 0, +1) * d, five trits a byte in
//                                qs and four in qh as base-3 fractions (trit n of byte b is
//                                ((uint8_t)(b * 3^n) * 3) >> 8)
//   tq2_0 256 elems,  66 bytes  {qs[64], d}: ternary, 2-bit codes 0..2 laid out as q2_K's;
//                                value = (q - 1) * d
//   nvfp4   64 elems,  36 bytes  {d[4], qs[32]}: 4 sub-blocks of 16 with a UE4M3 scale byte;
//                                value = kvalues_mxfp4[q] * UE4M3(d[s]) / 2; in each sub-block
//                                byte j of its 8 holds element j (low nibble) and j + 8 (high)
//   iq2_xxs, iq2_xs, iq2_s, iq3_xxs, iq3_s, iq1_s, iq1_m 256 elems (66, 74, 82, 98, 110, 50,
//                                56 bytes): groups of 8 (iq3: 4) values read from a lattice
//                                table (core/types/iq_tables.h) with sign bits, times a step per
//                                16 or 32; core/types/iq2.cpp, iq3.cpp, iq1.cpp describe each
//   q1_0  128 elems,  18 bytes  {d, qs[16]}: one bit an element (bit j % 8 of qs[j / 8]); value
//                                = d where set, -d where not
//   q2_0   64 elems,  18 bytes  {d, qs[16]}: 2-bit codes q (bits 2 (j % 4) of qs[j / 4]); value =
//                                (q - 1) * d
// In q4_0/q4_1/q5_0/q5_1/iq4_nl/mxfp4 (and each block of 32 of iq4_xs), byte j holds element j in
// its low nibble and element j + 16 in its high nibble.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace gauntlet::core {

// One value a line of the registry core/weight_types.def, its ggml id.
enum class TensorType : uint32_t {
#define GAUNTLET_WEIGHT_TYPE(name, id, elements, bytes, codec, matvec) name = id,
#include "core/weight_types.def"
#undef GAUNTLET_WEIGHT_TYPE
};

// Encodes n floats (whole blocks) into the type's bytes / decodes them back.
using QuantizeFn = void (*)(const float* src, std::byte* dst, uint64_t n, const float* importance);
using DequantizeFn = void (*)(const std::byte* src, float* dst, uint64_t n);

struct TypeTraits {
  TensorType type;
  const char* name;  // ggml's type name: "f32", "q4_0", "q4_K", ...
  uint32_t block_elements;
  uint32_t block_bytes;
  QuantizeFn quantize;
  DequantizeFn dequantize;
};

// Every type gauntlet can read, write and run, in ggml id order.
std::span<const TypeTraits> all_tensor_types();
const TypeTraits& traits(TensorType type);

const char* to_string(TensorType type);
// ggml's names, case-insensitive ("q4_k" finds q4_K).
std::optional<TensorType> parse_tensor_type(std::string_view name);
// The type for a ggml type id, if gauntlet knows it.
std::optional<TensorType> tensor_type_from_id(uint32_t id);
// "f32, f16, q4_0, ..." with their ids, for error messages.
std::string known_tensor_types();

inline uint32_t block_elements(TensorType type) { return traits(type).block_elements; }
inline size_t block_bytes(TensorType type) { return traits(type).block_bytes; }
// Bytes of one row of n elements; n must be a multiple of block_elements(type).
inline uint64_t row_bytes(TensorType type, uint64_t n) {
  return n / block_elements(type) * block_bytes(type);
}
bool is_quantized(TensorType type);

// Converts one row of n floats into `type`'s encoding (dst has row_bytes(type, n) bytes).
// importance, when given, weighs each of the n values as an importance matrix (imatrix) does for
// llama.cpp's quantizer: the types whose ggml encoder takes quant_weights use it, the rest ignore
// it.
void quantize_row(TensorType type, const float* src, std::byte* dst, uint64_t n,
                  const float* importance = nullptr);
// Converts one encoded row back to n floats, exactly as the format defines.
void dequantize_row(TensorType type, const std::byte* src, float* dst, uint64_t n);
// Dot product of one encoded row of n elements with n floats, computed in a fixed order (each
// block decoded, then multiplied in eight lanes added pairwise; an f32 row of whole 16-lane steps
// in llama.cpp's order, llamafile_dot.h).
float dot_row(TensorType type, const std::byte* row, const float* x, uint64_t n);
// dot_row of one encoded row with the n floats of each of n_tokens tokens (token t's at
// x + t * stride), into out[t * stride]: bit for bit dot_row's result, each block decoded once for
// all the tokens.
void dot_row_tokens(TensorType type, const std::byte* row, const float* x, uint64_t n,
                    size_t n_tokens, uint64_t stride, float* out);

// f16 -> f32 through a table (the hot loops need it inline and fast).
float f16_lookup(uint16_t bits);
// The whole table (65536 floats), for loops that index it themselves.
const float* f16_table_data();

}  // namespace gauntlet::core
