#version 450
// Groups a pass's expert picks by expert for the expert-indexed matmul; as
// engine_expert_group.cl, whose comment gives the list's layout.
layout(local_size_x_id = 0) in;
layout(std430, binding = 0) buffer A { float act[]; };
layout(push_constant) uniform Params {
  uint n_expert;
  uint k;
  uint sel_off;
  uint router_off;
  uint groups_off;
  uint group_len;
  uint stride;
  uint n_tok;
  uint tile;
} p;

uint at(uint i) { return i / p.group_len * p.stride + p.groups_off + i % p.group_len; }
uint pick_expert(uint i) { return uint(act[i / p.k * p.stride + p.sel_off + i % p.k]); }

void main() {
  if (gl_GlobalInvocationID.x != 0u) return;
  const uint count = p.router_off, start = p.stride + p.router_off;
  const uint picks = p.n_tok * p.k;
  for (uint e = 0u; e < p.n_expert; ++e) act[count + e] = 0.0;
  for (uint i = 0u; i < picks; ++i) act[count + pick_expert(i)] += 1.0;
  uint first = 0u;
  for (uint e = 0u; e < p.n_expert; ++e) {
    act[start + e] = float(first);
    first += uint(act[count + e]);
  }
  for (uint i = 0u; i < picks; ++i) {
    const uint e = pick_expert(i);
    act[at(1u + uint(act[start + e]))] = float(i);
    act[start + e] += 1.0;
  }
  uint tiles = 0u;
  for (uint e = 0u; e < p.n_expert; ++e) {
    const uint n = uint(act[count + e]), begin = uint(act[start + e]) - n;
    for (uint s = 0u; s < n; s += p.tile) {
      const uint w = 1u + picks + 3u * tiles;
      act[at(w)] = float(e);
      act[at(w + 1u)] = float(begin + s);
      act[at(w + 2u)] = float(min(p.tile, n - s));
      ++tiles;
    }
  }
  act[at(0u)] = float(tiles);
}
