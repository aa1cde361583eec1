#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
// engine_matvec.comp reading its weights through a uniform texel buffer, for CPU Vulkan drivers
// (engine/device/config.h's matvec_weights_as_texels).
#define WEIGHTS_AS_TEXELS 1
#include "engine_matvec_body.glsl"
