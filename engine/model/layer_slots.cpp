#include "engine/model/layer_slots.h"

namespace gauntlet::engine::model {

std::string slot_tensor_name(const ModelShape& shape, std::string_view field,
                             std::string_view name) {
  const Architecture& arch = shape.traits();
  // gpt-oss and qwen35 call the feed-forward's norm post_attention_norm (Architecture::ffn_norm).
  if (field == "ffn_norm") return std::string(arch.ffn_norm) + ".weight";
  if (arch.short_conv) {  // src/models/lfm2.cpp: LLM_TENSOR_SHORTCONV_*
    if (field == "ssm_qkv") return "shortconv.in_proj.weight";  // B, C and x
    if (field == "ssm_conv1d") return "shortconv.conv.weight";
    if (field == "ssm_out") return "shortconv.out_proj.weight";
  }
  if (arch.mamba2 && field == "ssm_qkv") return "ssm_in.weight";  // z, x, B, C and dt
  return std::string(name);
}

}  // namespace gauntlet::engine::model
