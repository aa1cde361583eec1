// The push constants of the bandwidth kernels, and the 16-byte vectors one invocation moves:
// every stride-th one (per_invocation 0), or one contiguous run of per_invocation of them.
layout(push_constant) uniform Params { uint count; uint per_invocation; } p;

void vector_range(out uint begin, out uint end, out uint step) {
  uint id = gl_GlobalInvocationID.x;
  begin = p.per_invocation == 0 ? id : id * p.per_invocation;
  end = p.per_invocation == 0 ? p.count : min(begin + p.per_invocation, p.count);
  step = p.per_invocation == 0 ? gl_NumWorkGroups.x * gl_WorkGroupSize.x : 1;
}
