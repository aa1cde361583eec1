// Groups a pass's expert picks by expert for the expert-indexed matmul (engine_matmul.cl with
// EXPERTS): one work-item lists the picks (t * k + j for token t's pick j) expert by expert, in
// token order within an expert, and cuts each expert's list into token tiles of `tile` picks.
// The list is a pass-wide array of floats kept `group_len` floats per token (element i at
// (i / group_len) * stride + groups_off + i % group_len):
//   [0]                     the number of tiles W
//   [1, 1 + n_tok * k)      the picks, grouped by expert
//   [1 + n_tok * k + 3 w]   tile w: its expert, its first pick in the list, its picks (<= tile)
// Token 0's and 1's router logits (spent once the picks are made) count each expert's picks and
// hold where its picks start.
typedef struct {
  uint n_expert;
  uint k;
  uint sel_off;
  uint router_off;
  uint groups_off;
  uint group_len;
  uint stride;
  uint n_tok;
  uint tile;
} GroupParams;

#define AT(i) ((i) / p.group_len * p.stride + p.groups_off + (i) % p.group_len)

__kernel void expert_group(__global float* act, GroupParams p) {
  if (get_global_id(0) != 0) return;
  __global float* count = act + p.router_off;
  __global float* start = act + p.stride + p.router_off;
  const uint picks = p.n_tok * p.k;
  for (uint e = 0; e < p.n_expert; ++e) count[e] = 0.0f;
  for (uint i = 0; i < picks; ++i) {
    count[(uint)act[i / p.k * p.stride + p.sel_off + i % p.k]] += 1.0f;
  }
  uint at = 0;
  for (uint e = 0; e < p.n_expert; ++e) {
    start[e] = (float)at;
    at += (uint)count[e];
  }
  for (uint i = 0; i < picks; ++i) {
    const uint e = (uint)act[i / p.k * p.stride + p.sel_off + i % p.k];
    act[AT(1 + (uint)start[e])] = (float)i;
    start[e] += 1.0f;
  }
  uint tiles = 0;
  for (uint e = 0; e < p.n_expert; ++e) {
    const uint n = (uint)count[e], first = (uint)start[e] - n;
    for (uint s = 0; s < n; s += p.tile) {
      const uint w = 1 + picks + 3 * tiles;
      act[AT(w)] = (float)e;
      act[AT(w + 1)] = (float)(first + s);
      act[AT(w + 2)] = (float)min(p.tile, n - s);
      ++tiles;
    }
  }
  act[AT(0)] = (float)tiles;
}
