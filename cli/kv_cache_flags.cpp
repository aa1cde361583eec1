#include "cli/kv_cache_flags.h"

#include "engine/placement/deployment.h"

namespace gauntlet::cli {

void add_kv_cache_flags(CLI::App& command, KvCacheFlags& flags) {
  const std::string types = engine::placement::known_kv_cache_types();
  command.add_option(
      "--cache-type-k", flags.type_k,
      "-ctk: the KV cache's K type the fit answer counts (" + types + "; default f16)");
  command.add_option("--cache-type-v", flags.type_v,
                     "-ctv: the KV cache's V type the fit answer counts (" + types +
                         "; default f16; a quantized V needs flash attention)");
  command
      .add_option("--flash-attn", flags.flash_attn,
                  "-fa on|off|auto: flash attention in the fit answer's compute buffer (auto, the "
                  "default: on where a quantized V cache needs it, else off)")
      ->check(CLI::IsMember({"on", "off", "auto"}));
}

core::Result<harness::FitCache> fit_cache(const KvCacheFlags& flags) {
  harness::FitCache cache;
  const auto k = engine::placement::parse_kv_cache_type(flags.type_k);
  if (!k) {
    return core::make_error(core::ErrorKind::invalid_argument,
                            "--cache-type-k '" + flags.type_k + "' is not a KV cache type (" +
                                engine::placement::known_kv_cache_types() + ")");
  }
  const auto v = engine::placement::parse_kv_cache_type(flags.type_v);
  if (!v) {
    return core::make_error(core::ErrorKind::invalid_argument,
                            "--cache-type-v '" + flags.type_v + "' is not a KV cache type (" +
                                engine::placement::known_kv_cache_types() + ")");
  }
  cache.type_k = *k;
  cache.type_v = *v;
  // llama_init_from_model refuses a quantized V cache without flash attention.
  const bool quantized_v = core::block_elements(*v) > 1;
  if (quantized_v && flags.flash_attn == "off") {
    return core::make_error(
        core::ErrorKind::invalid_argument,
        "--cache-type-v " + flags.type_v + " needs flash attention, and --flash-attn is off");
  }
  cache.flash_attention = flags.flash_attn == "on" || (flags.flash_attn == "auto" && quantized_v);
  return cache;
}

}  // namespace gauntlet::cli
