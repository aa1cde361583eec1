#pragma once
// What llama.cpp's mtmd allocates for a vision projector beside the model (--mmproj), on the
// device it offloads to (clip_context_params.use_gpu, on by default): its weights, and the compute
// buffer that tools/mtmd/clip.cpp's warmup reserves for one image at the warmup size (qwen3vl:
// 46 x 46 merged tokens, 1472 x 1472 pixels), with flash attention where the backend has it
// (mtmd's flash_attn_type auto, which every gauntlet backend's llama.cpp counterpart supports).
#include <cstdint>

#include "engine/model/projector.h"

namespace gauntlet::engine::placement {

struct ProjectorBytes {
  uint64_t weights = 0;
  uint64_t compute = 0;
  uint64_t total() const { return weights + compute; }
};

ProjectorBytes projector_bytes(const model::ProjectorFile& projector, bool flash_attention = true);

}  // namespace gauntlet::engine::placement
