#include "engine/cpu/quantized_acts.h"

#include "engine/cpu/round_acts.h"

namespace gauntlet::engine::cpu {

void quantize_acts(ActKind kind, const float* x, uint64_t stride, size_t tokens, uint64_t n,
                   reference::ThreadPool& pool, QuantizedActs& out) {
  out.kind = kind;
  out.n = n;
  out.tokens = tokens;
  out.qs.resize(tokens * n);
  out.d.resize(tokens * out.scales());
  out.sums.resize(tokens * out.sum_count());
  auto one = kind == ActKind::q8_0 ? round_q8_0 : round_q8_K;
  pool.parallel_for(tokens, [&](uint64_t t0, uint64_t t1) {
    for (uint64_t t = t0; t < t1; ++t) {
      one(x + t * stride, n, out.qs.data() + t * n, out.d.data() + t * out.scales(),
          out.sums.data() + t * out.sum_count());
    }
  });
}

}  // namespace gauntlet::engine::cpu
