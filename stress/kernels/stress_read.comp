#version 450
#extension GL_GOOGLE_include_directive : require
// Bandwidth: device-side read of `count` 16-byte vectors; one xor per thread is kept so that the
// reads cannot be optimised away.
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(std430, binding = 0) readonly buffer Src { uvec4 src[]; };
layout(std430, binding = 1) writeonly buffer Out { uint out_words[]; };
#include "bandwidth_range.glsl"

void main() {
  uint begin, end, step;
  vector_range(begin, end, step);
  uvec4 acc = uvec4(0u);
  for (uint i = begin; i < end; i += step) acc ^= src[i];
  out_words[gl_GlobalInvocationID.x] = acc.x ^ acc.y ^ acc.z ^ acc.w;
}
