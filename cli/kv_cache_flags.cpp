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

void add_engine_kv_cache_flags(CLI::App& command, KvCacheFlags& flags) {
  flags.type_k.clear();
  flags.type_v.clear();
  command.add_option("--cache-type-k", flags.type_k,
                     "-ctk: the KV cache's K type (f32, f16, q8_0, q4_0, q4_1, q5_0, q5_1, "
                     "iq4_nl; default: --kv's)");
  command.add_option("--cache-type-v", flags.type_v,
                     "-ctv: the KV cache's V type (as -ctk; a quantized V needs flash attention)");
  command
      .add_option("--flash-attn", flags.flash_attn,
                  "-fa on|off|auto: attend through flash attention (auto, the default: on where "
                  "a quantized V cache needs it, else off)")
      ->check(CLI::IsMember({"on", "off", "auto"}));
}

core::Result<EngineKvCache> engine_kv_cache(const KvCacheFlags& flags,
                                            engine::planner::KvPrecision base) {
  EngineKvCache out{base};
  auto pick = [](const std::string& flag, const std::string& name,
                 engine::model::TensorType& type) -> core::Status {
    if (name.empty()) return core::Status::ok();
    const auto t = engine::model::parse_tensor_type(name);
    if (!t || !engine::planner::is_kv_cache_type(*t)) {
      return core::make_error(core::ErrorKind::invalid_argument,
                              flag + " '" + name +
                                  "' is not a KV cache type the engine stores (f32, f16, q8_0, "
                                  "q4_0, q4_1, q5_0, q5_1, iq4_nl)");
    }
    type = *t;
    return core::Status::ok();
  };
  GAUNTLET_TRY(pick("--cache-type-k", flags.type_k, out.kv.k));
  GAUNTLET_TRY(pick("--cache-type-v", flags.type_v, out.kv.v));
  if (out.kv.needs_flash() && flags.flash_attn == "off") {
    return core::make_error(core::ErrorKind::invalid_argument,
                            std::string("--cache-type-v ") + engine::model::to_string(out.kv.v) +
                                " needs flash attention, and --flash-attn is off");
  }
  out.flash_attention =
      flags.flash_attn == "on" || (flags.flash_attn == "auto" && out.kv.needs_flash());
  return out;
}

}  // namespace gauntlet::cli
