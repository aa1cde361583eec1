#include "core/type_kernels.h"

#include "kernels/bf16_cl.h"
#include "kernels/common_cl.h"
#include "kernels/f16_cl.h"
#include "kernels/f32_cl.h"
#include "kernels/iq4_nl_cl.h"
#include "kernels/iq4_xs_cl.h"
#include "kernels/mxfp4_cl.h"
#include "kernels/q2_K_cl.h"
#include "kernels/q3_K_cl.h"
#include "kernels/q4_0_cl.h"
#include "kernels/q4_1_cl.h"
#include "kernels/q4_K_cl.h"
#include "kernels/q5_0_cl.h"
#include "kernels/q5_1_cl.h"
#include "kernels/q5_K_cl.h"
#include "kernels/q6_K_cl.h"
#include "kernels/q8_0_cl.h"

namespace gauntlet::core {

namespace {

std::string_view decoder_cl(TensorType type) {
  switch (type) {
    case TensorType::f32:
      return kernels::f32_cl;
    case TensorType::f16:
      return kernels::f16_cl;
    case TensorType::q4_0:
      return kernels::q4_0_cl;
    case TensorType::q4_1:
      return kernels::q4_1_cl;
    case TensorType::q5_0:
      return kernels::q5_0_cl;
    case TensorType::q5_1:
      return kernels::q5_1_cl;
    case TensorType::q8_0:
      return kernels::q8_0_cl;
    case TensorType::q2_K:
      return kernels::q2_K_cl;
    case TensorType::q3_K:
      return kernels::q3_K_cl;
    case TensorType::q4_K:
      return kernels::q4_K_cl;
    case TensorType::q5_K:
      return kernels::q5_K_cl;
    case TensorType::q6_K:
      return kernels::q6_K_cl;
    case TensorType::iq4_nl:
      return kernels::iq4_nl_cl;
    case TensorType::iq4_xs:
      return kernels::iq4_xs_cl;
    case TensorType::bf16:
      return kernels::bf16_cl;
    case TensorType::mxfp4:
      return kernels::mxfp4_cl;
  }
  return {};
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

}  // namespace gauntlet::core
