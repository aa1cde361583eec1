#include "engine/reference/short_conv.h"

#include <algorithm>

#include "engine/reference/gated_delta_net.h"
#include "engine/reference/layer_ops.h"

namespace gauntlet::engine::reference {

void short_conv_token(const model::ModelShape& s, const model::LayerWeights& L, const float* bcx,
                      float* state, bool first, float* y) {
  const uint32_t n = s.n_embd, width = s.ssm_conv, kept = width - 1;
  if (first) std::fill(state, state + uint64_t{kept} * n, 0.0f);
  const float* b = bcx;
  const float* c = bcx + n;
  const float* x = bcx + 2 * uint64_t{n};
  const float* taps = floats(L.ssm_conv1d);
  for (uint32_t ch = 0; ch < n; ++ch) {
    const float bx = b[ch] * x[ch];
    y[ch] =
        c[ch] * conv_window(state + uint64_t{ch} * kept, taps + uint64_t{ch} * width, width, bx);
  }
}

}  // namespace gauntlet::engine::reference
