#version 450
#extension GL_GOOGLE_include_directive : require
// Bandwidth: device-side copy of `count` 16-byte vectors (the widest load a shader has: CPU
// drivers pay per load, not per byte).
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(std430, binding = 0) readonly buffer Src { uvec4 src[]; };
layout(std430, binding = 1) writeonly buffer Dst { uvec4 dst[]; };
#include "bandwidth_range.glsl"

void main() {
  uint begin, end, step;
  vector_range(begin, end, step);
  for (uint i = begin; i < end; i += step) dst[i] = src[i];
}
