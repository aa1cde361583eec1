#pragma once
// GAUNTLET_FMA_CLONES: a function that fuses multiply-adds where llama.cpp does (std::fma) built
// twice with GCC on x86-64, for x86-64-v3 (FMA and F16C: std::fma is one instruction) and for the
// baseline (a library call), picked at load time. "arch=x86-64-v3" is picked on any processor
// with those features; an "arch=haswell" clone would be picked only on a Haswell itself.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define GAUNTLET_FMA_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define GAUNTLET_FMA_CLONES
#endif
