// Proves that the parameter block, a dynamic __local argument and build-time constants reach a
// kernel: each workgroup reverses its slice of `in` through local memory, then scales and offsets.
typedef struct {
  uint n;
  int bias;
  int scale;
} ParamsLocalParams;

__kernel __attribute__((reqd_work_group_size(WG_X, 1, 1)))
void params_local(__global const int* in, __global int* out, ParamsLocalParams p,
                  __local int* scratch) {
  const uint lid = get_local_id(0);
  const uint gid = get_global_id(0);
  scratch[lid] = gid < p.n ? in[gid] : 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  if (gid < p.n) out[gid] = scratch[WG_X - 1 - lid] * p.scale + p.bias + EXTRA;
}
