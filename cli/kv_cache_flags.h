#pragma once
// llama.cpp's KV cache flags, as run takes them for its fit answer: -ctk/--cache-type-k,
// -ctv/--cache-type-v (f16 by default) and -fa/--flash-attn on|off|auto. As in llama.cpp, a
// quantized V cache needs flash attention: "auto" turns it on for one, "off" refuses it.
#include <CLI/CLI.hpp>
#include <string>

#include "core/status.h"
#include "engine/planner/planner.h"
#include "harness/fit.h"

namespace gauntlet::cli {

struct KvCacheFlags {
  std::string type_k = "f16";
  std::string type_v = "f16";
  std::string flash_attn = "auto";
};

void add_kv_cache_flags(CLI::App& command, KvCacheFlags& flags);

// The cache the flags ask for; an unknown type, or a quantized V with -fa off, is an
// invalid_argument error naming the flag.
core::Result<harness::FitCache> fit_cache(const KvCacheFlags& flags);

// The engine's own KV cache (decode, bench): -ctk/-ctv name K's and V's types (f32, f16 or a
// quantized type; empty: `base`, what --kv or the default gives), -fa says whether the device
// decoders attend through flash attention. The same refusal as fit_cache for a quantized V with
// -fa off; "auto" is on for a quantized V.
struct EngineKvCache {
  engine::planner::KvPrecision kv;
  bool flash_attention = false;
};
void add_engine_kv_cache_flags(CLI::App& command, KvCacheFlags& flags);
core::Result<EngineKvCache> engine_kv_cache(const KvCacheFlags& flags,
                                            engine::planner::KvPrecision base);

}  // namespace gauntlet::cli
