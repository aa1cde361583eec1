#pragma once
// The tensor types the engine reads and writes, with ggml's type ids and block layouts:
//   q8_0: blocks of 32 elements, f16 scale d then 32 int8 q; value = q * d        (34 bytes)
//   q4_0: blocks of 32 elements, f16 scale d then 16 bytes; byte j holds element j in its low
//         nibble and element j + 16 in its high nibble; value = (q - 8) * d        (18 bytes)
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace gauntlet::engine::model {

enum class TensorType : uint32_t {
  f32 = 0,
  f16 = 1,
  q4_0 = 2,
  q8_0 = 8,
  bf16 = 30,
};

inline constexpr uint32_t kQuantBlock = 32;
inline constexpr size_t kQ8_0BlockBytes = 34;
inline constexpr size_t kQ4_0BlockBytes = 18;

const char* to_string(TensorType type);
// Accepts the names above ("f32", "q4_0", ...), case-insensitive.
std::optional<TensorType> parse_tensor_type(std::string_view name);
// The type for a ggml type id, if it is one of the five.
std::optional<TensorType> tensor_type_from_id(uint32_t id);

// Elements per block (1 for f32/f16/bf16, 32 for the quantized types) and bytes per block.
uint32_t block_elements(TensorType type);
size_t block_bytes(TensorType type);
// Bytes of one row of n elements; n must be a multiple of block_elements(type).
uint64_t row_bytes(TensorType type, uint64_t n);

// Converts one row of n floats into `type`'s encoding (dst has row_bytes(type, n) bytes).
void quantize_row(TensorType type, const float* src, std::byte* dst, uint64_t n);
// Converts one encoded row back to n floats, exactly as the format defines.
void dequantize_row(TensorType type, const std::byte* src, float* dst, uint64_t n);
// Dot product of one encoded row of n elements with n floats, computed in a fixed order.
float dot_row(TensorType type, const std::byte* row, const float* x, uint64_t n);

// f16 -> f32 through a table (the hot loops need it inline and fast).
float f16_lookup(uint16_t bits);

}  // namespace gauntlet::engine::model
