#version 450
#extension GL_GOOGLE_include_directive : require
// Peak f32 FMA throughput: per iteration 16 x 4 chains x 2 vec4 FMAs = 512 FMAs = 1024 FLOP per
// invocation; one value written so that no work can be dropped.
#include "peak_common.glsl"
layout(std430, binding = 0) writeonly buffer Out { float o[]; };

void main() {
  const float s = float(gl_GlobalInvocationID.x ^ p.seed) * 1e-9;
  vec4 x0 = vec4(s, s + 0.1, s + 0.2, s + 0.3), y0 = x0 + 0.5;
  vec4 x1 = x0 + 1.0, y1 = x0 + 1.5, x2 = x0 + 2.0, y2 = x0 + 2.5, x3 = x0 + 3.0, y3 = x0 + 3.5;
  for (uint i = 0u; i < p.iterations; ++i) {
    TIMES16(EACH4(FMA_PAIR))
  }
  const vec4 sum = (x0 + y0) + (x1 + y1) + (x2 + y2) + (x3 + y3);
  o[gl_GlobalInvocationID.x] = sum.x + sum.y + sum.z + sum.w;
}
