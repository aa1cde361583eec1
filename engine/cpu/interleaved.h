#pragma once
// q4_0, q8_0, mxfp4 and q4_K rows interleaved eight at a time for the cpu device, as llama.cpp's
// CPU backend repacks q4_0 and q4_K matrices on AVX2 and AVX-512 when it loads them
// (ggml-cpu/repack.cpp: block_q4_0x8 and block_q4_Kx8, chosen by
// ggml_repack_get_optimal_repack_type for rows in multiples of 8; it repacks q8_0 only on ARM,
// block_q8_0x4, and mxfp4 not at all; this project does both here too, because a decode step then
// reads the matrix as one stream). The kernel sums eight rows at once, one per 32-bit lane. The
// layout has the rows' own size, so the loader writes it in place of theirs; its byte order is this
// project's own (interleaved_kernels.cpp reads it):
//   for each group of rows 8g..8g+7, for each block b of the row (group_block_bytes each):
//     the eight rows' scales, row order (f16: bytes 0..15; mxfp4's E8M0: bytes 0..7)
//     then chunks of 32 bytes, chunk c holding bytes 4c..4c+3 of each row's code bytes, row order
//     (q4_0 and mxfp4: 4 chunks of their 16 code bytes, each byte element j in the low nibble and
//     j + 16 in the high; q8_0: 8 chunks of its 32 codes; q4_K: no scales in row order, all 144
//     bytes of its block as 36 chunks: chunk 0 each row's f16 scale and minimum's scale, 1-3 its
//     twelve bytes of packed 6-bit sub-block scales and minimums, 4-35 its 128 code bytes)
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/tensor_type.h"

namespace gauntlet::engine::cpu {

inline constexpr uint64_t kGroupRows = 8;

// Whether a type has an interleaved layout and kernel: q4_0, q8_0, mxfp4 and q4_K.
bool has_interleaved_layout(core::TensorType type);
// A block's bytes in row order and its bytes taken as 32-bit words (ggml's block_q4_0 and
// block_q8_0: an f16 scale, then 16 or 32 code bytes; block_mxfp4: an E8M0 byte, then 16;
// block_q4_K: 144 bytes, all words), and the bytes of one block position of a group: the eight
// rows' blocks (144, 272, 136 and 1152).
constexpr uint64_t block_scale_bytes(core::TensorType type) {
  switch (type) {
    case core::TensorType::mxfp4:
      return 1;
    case core::TensorType::q4_K:
      return 0;
    default:
      return 2;
  }
}
constexpr uint64_t block_code_bytes(core::TensorType type) {
  switch (type) {
    case core::TensorType::q8_0:
      return 32;
    case core::TensorType::q4_K:
      return 144;
    default:
      return 16;
  }
}
constexpr uint64_t group_block_bytes(core::TensorType type) {
  return kGroupRows * (block_scale_bytes(type) + block_code_bytes(type));
}

// An interleaved matrix in memory: n_out rows of `blocks` blocks of `type`.
struct InterleavedMatrix {
  core::TensorType type = core::TensorType::q4_0;
  uint64_t n_out = 0;
  uint64_t blocks = 0;
  const uint8_t* data = nullptr;
  InterleavedMatrix() = default;
  // n_out rows of n_in elements at `laid` (interleave's output).
  InterleavedMatrix(core::TensorType t, uint64_t n_out, uint64_t n_in, const void* laid)
      : type(t),
        n_out(n_out),
        blocks(n_in / core::block_elements(t)),
        data(static_cast<const uint8_t*>(laid)) {}
  const uint8_t* group(uint64_t g) const { return data + g * blocks * group_block_bytes(type); }
};

// Whether the loader lays a tensor out interleaved for the cpu device: a matrix of a type with a
// layout (2-D, rows in whole groups) that the forward pass only multiplies by, never reads rows
// of: the blocks' projections and the output layer. Embedding tables, expert stacks and matrices
// read in slices keep the file's layout.
bool interleaves(core::TensorType type, std::string_view name, uint64_t n_out, uint64_t n_matrices);

// Rows [0, n_rows) of n_in elements at `rows` (`type`, row after row; n_rows a multiple of 8)
// interleaved into `out`, which has their size.
void interleave(core::TensorType type, const std::byte* rows, uint64_t n_rows, uint64_t n_in,
                std::byte* out);

}  // namespace gauntlet::engine::cpu
