#version 450
#extension GL_GOOGLE_include_directive : require
// One scalar chain, each FMA waiting for the one before (see peak_serial in peak.cl): run by
// one invocation it shows the rate of a device that hides nothing. 64 FLOP per iteration.
#include "peak_common.glsl"
layout(std430, binding = 0) writeonly buffer Out { float o[]; };

void main() {
  float x = float(gl_GlobalInvocationID.x ^ p.seed) * 1e-9, y = x + 0.5;
  for (uint i = 0u; i < p.iterations; ++i) {
    TIMES16(FMA_PAIR(x, y))
  }
  o[gl_GlobalInvocationID.x] = x + y;
}
