// engine_matmul.glsl with a chunk's activations read once per subgroup and broadcast to its lanes
// (SUBGROUP_SHARE there says why and when).
#extension GL_KHR_shader_subgroup_ballot : require
#define SUBGROUP_SHARE 1
#include "engine_matmul.glsl"
