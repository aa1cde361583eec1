#pragma once
// q4_0 rows interleaved eight at a time for the cpu device, as llama.cpp's CPU backend repacks a
// q4_0 matrix on AVX2 when it loads it (ggml-cpu/repack.cpp: block_q4_0x8, chosen by
// ggml_repack_get_optimal_repack_type for rows in multiples of 8). A decode step then reads the
// matrix as one stream, and the kernel sums eight rows at once, one per 32-bit lane. The layout
// has the rows' own size, so the loader writes it in place of theirs; its byte order is this
// project's own (dot_kernels.cpp's GroupQ4_0x8 reads it):
//   for each group of rows 8g..8g+7, for each block b of the row (kGroupBlockBytes each):
//     bytes 0..15    the eight rows' f16 scales, row order
//     bytes 16..143  four chunks of 32 bytes; chunk c holds bytes 4c..4c+3 of each row's 16 code
//                    bytes, row order (each byte: element j in the low nibble, j + 16 in the high)
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace gauntlet::engine::cpu {

inline constexpr uint64_t kGroupRows = 8;
inline constexpr uint64_t kGroupBlockBytes = 16 + 8 * 16;

// An interleaved matrix in memory: n_out rows of `blocks` q4_0 blocks.
struct InterleavedQ4_0 {
  uint64_t n_out = 0;
  uint64_t blocks = 0;
  const uint8_t* data = nullptr;
  const uint8_t* group(uint64_t g) const { return data + g * blocks * kGroupBlockBytes; }
};

// Whether the loader lays a tensor out interleaved for the cpu device: a q4_0 matrix (2-D, rows
// in whole groups) that the forward pass only multiplies by, never reads rows of: the blocks'
// projections and the output layer. Embedding tables, expert stacks and matrices read in slices
// keep the file's layout.
bool interleaves_q4_0(std::string_view name, uint64_t n_out, uint64_t n_matrices);

// Rows [0, n_rows) of n_in elements at `rows` (q4_0, row after row; n_rows a multiple of 8)
// interleaved into `out`, which has their size.
void interleave_q4_0(const std::byte* rows, uint64_t n_rows, uint64_t n_in, std::byte* out);

}  // namespace gauntlet::engine::cpu
