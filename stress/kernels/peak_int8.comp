#version 450
#extension GL_GOOGLE_include_directive : require
// Peak int8 dot-product throughput with 32-bit integer arithmetic (the form conform.int8.dot4
// verifies; no integer dot product extension): each step adds the dot product of an accumulator's
// own four bytes with four fixed bytes, so the steps depend on each other and cannot be folded.
// Per iteration 16 x 8 dot products = 512 multiply-adds = 1024 OP per invocation.
#include "peak_common.glsl"
layout(std430, binding = 0) writeonly buffer Out { int o[]; };

#define DOT_I8(a) a += dot4(a);

ivec4 b;
int dot4(int packed) {
  return bitfieldExtract(packed, 0, 8) * b.x + bitfieldExtract(packed, 8, 8) * b.y +
         bitfieldExtract(packed, 16, 8) * b.z + bitfieldExtract(packed, 24, 8) * b.w;
}

void main() {
  const int w = int(p.seed | 0x01010101u);
  b = ivec4(bitfieldExtract(w, 0, 8), bitfieldExtract(w, 8, 8), bitfieldExtract(w, 16, 8),
            bitfieldExtract(w, 24, 8));
  const int s = int(gl_GlobalInvocationID.x * 2654435761u);
  int a0 = s, a1 = s ^ 0x11, a2 = s ^ 0x22, a3 = s ^ 0x33;
  int a4 = s ^ 0x44, a5 = s ^ 0x55, a6 = s ^ 0x66, a7 = s ^ 0x77;
  for (uint i = 0u; i < p.iterations; ++i) {
    TIMES16(EACH8(DOT_I8))
  }
  o[gl_GlobalInvocationID.x] = ((a0 ^ a1) ^ (a2 ^ a3)) ^ ((a4 ^ a5) ^ (a6 ^ a7));
}
