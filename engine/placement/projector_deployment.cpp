#include "engine/placement/projector_deployment.h"

#include <algorithm>

#include "engine/placement/deployment.h"

namespace gauntlet::engine::placement {

namespace {

constexpr uint64_t kTensorAlignment = 32;  // ggml's TENSOR_ALIGNMENT in a weight buffer

// The warmup graph's peak in f32 elements: the largest of its stages, each holding the input
// image (3 x side^2 floats, a graph input) or as much of its memory as ggml-alloc does not reuse.
// Fitted to what llama.cpp 3.22.1's CPU backend reserved for gauntlet-written qwen3vl projectors
// (tests/engine/projector_deployment_test.cpp: towers 64 to 2048 wide, 4 to 16 heads,
// feed-forward 256 to 4304, projections 256 to 5120, 0 to 3 deepstack layers): never below;
// exact where the patch convolution, the feed-forward, or flash attention on towers 896 to 1536
// wide binds; within 3 % without flash attention; up to 9 % above with it on narrower towers;
// deepstack features planned for the worst order of their layers.
uint64_t peak_floats(const model::ProjectorShape& s, bool flash_attention) {
  const uint64_t side = 46ull * s.spatial_merge * s.patch_size;  // set_warmup_n_tokens(46*46)
  const uint64_t image = 3 * side * side;
  const uint64_t patches = s.warmup_patches(), n = s.n_embd, np = patches * n;
  const uint64_t tokens = patches / (uint64_t{s.spatial_merge} * s.spatial_merge);
  // The two temporal Conv2Ds by im2col: the f16 columns (3 p^2 per patch) and one output.
  const uint64_t conv = image + patches * 3ull * s.patch_size * s.patch_size / 2 + np;
  // A layer around its attention: the residual, the fused QKV, the roped Q and K and the f16
  // casts of K and V; without flash attention the n_head score matrices of patches^2 beside.
  // With it the allocator packed towers narrower than 896 into 6.5 widths a patch and, for some
  // widths (320, 448, 640), a gap of up to a fifth of the image; 896 to 1536 into the image and
  // 6 widths; a 2048-wide one (the widest measured, so wider ones too) needed the image and 6.5.
  const uint64_t flash = n < 896     ? np * 13 / 2 + image / 5
                         : n <= 1536 ? image + 6 * np
                                     : image + np * 13 / 2;
  const uint64_t attention =
      flash_attention ? flash : image + uint64_t{s.n_head} * patches * patches + 7 * np;
  const uint64_t feed_forward = image + patches * (s.n_ff + n);
  // The merger: the merged rows (4 n per token) in and out of its first matrix, and its output.
  const uint64_t merger = image + 2 * np + tokens * s.projection_dim;
  // Deepstack features concatenated as the layers go, and beside the merger's output at the end.
  const uint64_t k = s.deepstack_layers.size();
  const uint64_t deepstack = k == 0 ? 0 : (3 * k + 2) * tokens * s.projection_dim / 2;
  return std::max({conv, attention, feed_forward, merger}) + deepstack;
}

}  // namespace

ProjectorBytes projector_bytes(const model::ProjectorFile& projector, bool flash_attention) {
  ProjectorBytes out;
  for (const auto& t : projector.tensors) {
    out.weights += (t.bytes() + kTensorAlignment - 1) / kTensorAlignment * kTensorAlignment;
  }
  out.compute = kAllocatorSlack + 4 * peak_floats(projector.shape, flash_attention);
  return out;
}

}  // namespace gauntlet::engine::placement
