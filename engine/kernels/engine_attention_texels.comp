#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
// engine_attention.comp reading the K and V caches as texels, for CPU Vulkan drivers
// (engine/device/config.h's reads_as_texels).
#define KV_AS_TEXELS 1
#include "engine_attention_body.glsl"
