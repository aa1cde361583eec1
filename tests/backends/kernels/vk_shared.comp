#version 450
// A shared array sized by specialization constant 3 (floats): each workgroup fills it with
// i % 7 (sums stay exact in float) and its first invocation writes the sum.
layout(local_size_x_id = 0) in;
layout(constant_id = 3) const int SHARED_FLOATS = 256;
shared float tile[SHARED_FLOATS];
layout(std430, binding = 0) writeonly buffer Out { float sums[]; };

void main() {
  uint l = gl_LocalInvocationID.x;
  for (uint i = l; i < uint(SHARED_FLOATS); i += gl_WorkGroupSize.x) tile[i] = float(i % 7u);
  barrier();
  if (l == 0) {
    float s = 0.0;
    for (int i = 0; i < SHARED_FLOATS; ++i) s += tile[i];
    sums[gl_WorkGroupID.x] = s;
  }
}
