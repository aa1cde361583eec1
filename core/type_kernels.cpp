#include "core/type_kernels.h"

#include "kernels/common_cl.h"
#include "kernels/type_decoders_cl.h"

namespace gauntlet::core {

namespace {

// The type's OpenCL C block decoder, core/kernels/types/<name>.cl (every type of
// core/weight_types.def, embedded by cmake/kernels.cmake's gauntlet_embed_type_decoders).
std::string_view decoder_cl(TensorType type) {
  return kernels::type_decoder_cl(static_cast<uint32_t>(type));
}

}  // namespace

std::vector<std::string_view> opencl_type_headers(TensorType type) {
  const std::string_view decoder = decoder_cl(type);
  if (decoder.empty()) return {};
  return {kernels::common_cl, decoder};
}

std::vector<std::string_view> opencl_kv_type_headers(TensorType k, TensorType v) {
  static constexpr std::string_view kEncode = "#define GAUNTLET_KV_ENCODE 1\n";
  static constexpr std::string_view kPrefixK =
      "#define value_at k_value_at\n#define decode16 k_decode16\n"
      "#define encode_block k_encode_block\n#define codes16 k_codes16\n";
  static constexpr std::string_view kSuffixK =
      "enum { K_ELEMS = BLOCK_ELEMS, K_BYTES = BLOCK_BYTES };\n#undef BLOCK_ELEMS\n"
      "#undef BLOCK_BYTES\n#undef value_at\n#undef decode16\n#undef encode_block\n"
      "#undef codes16\n#undef BLOCK_F16_SCALE\n";
  static constexpr std::string_view kPrefixV =
      "#define value_at v_value_at\n#define decode16 v_decode16\n"
      "#define encode_block v_encode_block\n#define codes16 v_codes16\n";
  static constexpr std::string_view kSuffixV =
      "enum { V_ELEMS = BLOCK_ELEMS, V_BYTES = BLOCK_BYTES };\n#undef BLOCK_ELEMS\n"
      "#undef BLOCK_BYTES\n#undef value_at\n#undef decode16\n#undef encode_block\n"
      "#undef codes16\n#undef BLOCK_F16_SCALE\n";
  std::vector<std::string_view> out = {kEncode, kernels::common_cl};
  if (is_quantized(k)) out.insert(out.end(), {kPrefixK, decoder_cl(k), kSuffixK});
  if (is_quantized(v)) out.insert(out.end(), {kPrefixV, decoder_cl(v), kSuffixV});
  return out;
}

uint32_t vulkan_decoder_table_bytes(TensorType type) {
  // The words of each shared iq_grid (iq_tables.glsl): 8-value grids at 2 bits a value, two
  // entries a word; iq3's grids a word an entry.
  switch (type) {
    case TensorType::iq2_xxs:
      return 128 * 4;
    case TensorType::iq2_xs:
    case TensorType::iq3_xxs:
      return 256 * 4;
    case TensorType::iq2_s:
    case TensorType::iq3_s:
      return 512 * 4;
    case TensorType::iq1_s:
    case TensorType::iq1_m:
      return 1024 * 4;
    default:
      return 0;
  }
}

}  // namespace gauntlet::core
