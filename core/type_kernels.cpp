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

}  // namespace gauntlet::core
