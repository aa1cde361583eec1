#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
// Peak f16 FMA throughput (shaderFloat16): per iteration 16 x 4 chains x 2 f16vec4 FMAs = 1024
// FLOP per invocation. Only run where conformance verified f16 arithmetic. The result is stored as f32,
// so no 16-bit storage is needed.
#include "peak_common.glsl"
layout(std430, binding = 0) writeonly buffer Out { float o[]; };

void main() {
  const float16_t s = float16_t(float((gl_GlobalInvocationID.x ^ p.seed) & 255u) / 256.0);
  f16vec4 x0 = f16vec4(s), y0 = x0 + float16_t(0.5), x1 = x0 + float16_t(1);
  f16vec4 y1 = x0 + float16_t(1.5), x2 = x0 + float16_t(2), y2 = x0 + float16_t(2.5);
  f16vec4 x3 = x0 + float16_t(3), y3 = x0 + float16_t(3.5);
  for (uint i = 0u; i < p.iterations; ++i) {
    TIMES16(EACH4(FMA_PAIR))
  }
  const f16vec4 sum = (x0 + y0) + (x1 + y1) + (x2 + y2) + (x3 + y3);
  o[gl_GlobalInvocationID.x] = float(sum.x) + float(sum.y) + float(sum.z) + float(sum.w);
}
