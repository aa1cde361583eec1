#version 450
// GGUF block dequantization, q8_0 (op 0) and q4_0 (op 1); see quant.cl. Blocks are read as
// bytes out of 32-bit words since 34- and 18-byte blocks are not word aligned.
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(std430, binding = 0) readonly buffer Q { uint q[]; };
layout(std430, binding = 1) buffer O { float o[]; };
layout(push_constant) uniform Params { uint n; uint op; uint k; uint fault; } p;

uint byte_at(uint offset) { return (q[offset >> 2] >> (8u * (offset & 3u))) & 0xffu; }

void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i >= p.n) return;
  uint blk = i / 32u, j = i % 32u;
  uint base = blk * (p.op == 0u ? 34u : 18u);
  float d = unpackHalf2x16(byte_at(base) | (byte_at(base + 1u) << 8)).x;
  float r;
  if (p.op == 0u) {
    r = d * float(bitfieldExtract(int(byte_at(base + 2u + j)), 0, 8));
  } else {
    uint b = byte_at(base + 2u + (j % 16u));
    int v = int(j < 16u ? (b & 15u) : (b >> 4));
    r = d * float(v - 8);
  }
  o[i] = r;
}
