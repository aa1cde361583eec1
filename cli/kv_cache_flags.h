#pragma once
// llama.cpp's KV cache flags, as run takes them for its fit answer: -ctk/--cache-type-k,
// -ctv/--cache-type-v (f16 by default) and -fa/--flash-attn on|off|auto. As in llama.cpp, a
// quantized V cache needs flash attention: "auto" turns it on for one, "off" refuses it.
#include <CLI/CLI.hpp>
#include <string>

#include "core/status.h"
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

}  // namespace gauntlet::cli
