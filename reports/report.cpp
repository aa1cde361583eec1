#include "reports/report.h"

#include <array>
#include <cctype>
#include <ctime>

namespace gauntlet::reports {

namespace {

constexpr std::array<std::pair<ProfileVerdict, const char*>, 4> kProfileNames{{
    {ProfileVerdict::safe, "safe"},
    {ProfileVerdict::unsafe, "unsafe"},
    {ProfileVerdict::untested, "untested"},
    {ProfileVerdict::derived, "derived"},
}};

template <typename T>
Json optional_json(const std::optional<T>& value) {
  return value ? Json(*value) : Json(nullptr);
}

template <typename T>
std::optional<T> optional_from(const Json& j, const char* key) {
  if (!j.contains(key) || j.at(key).is_null()) return std::nullopt;
  return j.at(key).get<T>();
}

[[noreturn]] void bad_value(const Json& j, const std::string& what) {
  throw Json::other_error::create(501, what, &j);
}

}  // namespace

const char* to_string(ProfileVerdict verdict) {
  for (const auto& [value, name] : kProfileNames) {
    if (value == verdict) return name;
  }
  return "untested";
}

std::optional<ProfileVerdict> profile_verdict_from_string(const std::string& text) {
  for (const auto& [value, name] : kProfileNames) {
    if (text == name) return value;
  }
  return std::nullopt;
}

std::string familiar_name(const std::string& weight_format, const std::string& compute_precision) {
  // GGUF names a quantized format "q<bits>_<variant>"; the familiar style puts the activation
  // precision between bits and variant. Unquantized weights count as 0 bits.
  std::string bits = "0";
  std::string variant;
  std::string format = weight_format;
  for (char& c : format) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (format.size() > 1 && format[0] == 'q') {
    auto underscore = format.find('_');
    bits = format.substr(1, underscore == std::string::npos ? std::string::npos : underscore - 1);
    if (underscore != std::string::npos) variant = format.substr(underscore);
  }
  return "q" + bits + compute_precision + variant;
}

std::string profile_name(const Profile& p) {
  return p.weight_format + "/" + p.compute_precision + "/kv-" + p.kv_precision + "/" +
         p.variant.name + "/ctx" + std::to_string(p.context) + "/b" + std::to_string(p.batch) +
         (p.micro_batch > 1 ? "/mb" + std::to_string(p.micro_batch) : "") +
         (p.placement.empty() ? "" : "/" + p.placement);
}

std::string now_iso8601() {
  std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  std::array<char, 32> text{};
  std::strftime(text.data(), text.size(), "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text.data();
}

std::vector<const core::Row*> all_rows(const Report& report) {
  std::vector<const core::Row*> rows;
  for (const auto& r : report.environment) rows.push_back(&r);
  for (const auto& r : report.rows) rows.push_back(&r);
  for (const auto& d : report.devices) {
    for (const auto& r : d.conformance) rows.push_back(&r);
    for (const auto& r : d.machine_rows) rows.push_back(&r);
    if (d.stress) {
      for (const auto& r : d.stress->rows) rows.push_back(&r);
    }
    for (const auto& p : d.profiles) {
      for (const auto& r : p.rows) rows.push_back(&r);
    }
  }
  return rows;
}

Summary compute_summary(const Report& report) {
  Summary s;
  s.devices = static_cast<int>(report.devices.size());
  for (auto status : {core::RowStatus::pass, core::RowStatus::fail, core::RowStatus::unsupported,
                      core::RowStatus::skipped, core::RowStatus::error, core::RowStatus::timeout,
                      core::RowStatus::crash}) {
    s.rows_by_status[core::to_string(status)] = 0;
  }
  std::vector<core::Row> copies;
  for (const auto* row : all_rows(report)) {
    ++s.rows_by_status[core::to_string(row->status)];
    copies.push_back(*row);
  }
  bool any_usable = false;
  for (const auto& d : report.devices) {
    for (const auto& v : d.views) any_usable = any_usable || v.usable;
    for (const auto& p : d.profiles) {
      switch (p.verdict) {
        case ProfileVerdict::safe:
          ++s.profiles_safe;
          break;
        case ProfileVerdict::unsafe:
          ++s.profiles_unsafe;
          break;
        case ProfileVerdict::untested:
          ++s.profiles_untested;
          break;
        case ProfileVerdict::derived:
          ++s.profiles_derived;
          break;
      }
    }
  }
  if (!any_usable) {
    s.exit_code = 3;
  } else if (!core::all_passed(copies)) {
    s.exit_code = 1;
  }
  return s;
}

void to_json(Json& j, const ToolInfo& v) {
  j = Json{{"name", v.name}, {"version", v.version}, {"git_revision", v.git_revision}};
}
void from_json(const Json& j, ToolInfo& v) {
  v.name = j.at("name").get<std::string>();
  v.version = j.at("version").get<std::string>();
  v.git_revision = j.at("git_revision").get<std::string>();
}

void to_json(Json& j, const HostInfo& v) {
  j = Json{
      {"hostname", v.hostname}, {"os", v.os}, {"cpu", v.cpu}, {"memory_bytes", v.memory_bytes}};
}
void from_json(const Json& j, HostInfo& v) {
  v.hostname = j.at("hostname").get<std::string>();
  v.os = j.at("os").get<std::string>();
  v.cpu = j.at("cpu").get<std::string>();
  v.memory_bytes = j.at("memory_bytes").get<uint64_t>();
}

void to_json(Json& j, const OptionValue& v) { j = Json{{"value", v.value}, {"source", v.source}}; }
void from_json(const Json& j, OptionValue& v) {
  v.value = j.at("value").get<std::string>();
  v.source = j.at("source").get<std::string>();
}

void to_json(Json& j, const TypeShare& v) {
  j = Json{{"type", v.type}, {"tensors", v.tensors}, {"bytes", v.bytes}};
}
void from_json(const Json& j, TypeShare& v) {
  v.type = j.at("type").get<std::string>();
  v.tensors = j.at("tensors").get<uint64_t>();
  v.bytes = j.at("bytes").get<uint64_t>();
}

void to_json(Json& j, const ModelInfo& v) {
  j = Json{{"name", v.name},     {"shape", v.shape}, {"format", v.format},
           {"params", v.params}, {"bytes", v.bytes}, {"type_mix", v.type_mix}};
}
void from_json(const Json& j, ModelInfo& v) {
  v.name = j.at("name").get<std::string>();
  v.shape = j.at("shape").get<std::string>();
  v.format = j.at("format").get<std::string>();
  v.params = j.at("params").get<uint64_t>();
  v.bytes = j.at("bytes").get<uint64_t>();
  if (j.contains("type_mix")) {
    v.type_mix = j.at("type_mix").get<std::map<std::string, std::vector<TypeShare>>>();
  }
}

void to_json(Json& j, const Simulation& v) {
  j = Json{{"simulated", v.simulated},
           {"preset", v.preset},
           {"local_mem_bytes", optional_json(v.local_mem_bytes)},
           {"global_mem_bytes", optional_json(v.global_mem_bytes)},
           {"max_alloc_bytes", optional_json(v.max_alloc_bytes)},
           {"features_off", v.features_off}};
}
void from_json(const Json& j, Simulation& v) {
  v.simulated = j.at("simulated").get<bool>();
  v.preset = j.value("preset", "");
  v.local_mem_bytes = optional_from<uint64_t>(j, "local_mem_bytes");
  v.global_mem_bytes = optional_from<uint64_t>(j, "global_mem_bytes");
  v.max_alloc_bytes = optional_from<uint64_t>(j, "max_alloc_bytes");
  v.features_off = j.value("features_off", std::vector<std::string>{});
}

void to_json(Json& j, const DeviceView& v) {
  j = Json{{"api", v.api}, {"usable", v.usable}, {"reason", v.reason}, {"info", v.info}};
}
void from_json(const Json& j, DeviceView& v) {
  v.api = j.at("api").get<std::string>();
  v.usable = j.at("usable").get<bool>();
  v.reason = j.at("reason").get<std::string>();
  v.info = j.at("info").get<core::DeviceInfo>();
}

void to_json(Json& j, const VerifiedCaps& v) {
  j = Json{{"features", v.features},
           {"local_mem_verified_bytes", v.local_mem_verified_bytes},
           {"max_workgroup_verified", v.max_workgroup_verified},
           {"subgroup_size_observed", v.subgroup_size_observed}};
}
void from_json(const Json& j, VerifiedCaps& v) {
  v.features = j.at("features").get<std::map<std::string, FeatureResult>>();
  v.local_mem_verified_bytes = j.at("local_mem_verified_bytes").get<uint64_t>();
  v.max_workgroup_verified = j.at("max_workgroup_verified").get<uint64_t>();
  v.subgroup_size_observed = j.at("subgroup_size_observed").get<uint32_t>();
}

void to_json(Json& j, const KernelVariant& v) {
  j = Json{{"name", v.name},
           {"workgroup", v.workgroup},
           {"tile", v.tile},
           {"local_mem_bytes", v.local_mem_bytes}};
}
void from_json(const Json& j, KernelVariant& v) {
  v.name = j.at("name").get<std::string>();
  v.workgroup = j.at("workgroup").get<uint32_t>();
  v.tile = j.at("tile").get<std::map<std::string, uint64_t>>();
  v.local_mem_bytes = j.at("local_mem_bytes").get<uint64_t>();
}

void to_json(Json& j, const ProfileFigures& v) {
  j = Json{{"tok_s", optional_json(v.tok_s)},
           {"peak_bytes", optional_json(v.peak_bytes)},
           {"planned_peak_bytes", optional_json(v.planned_peak_bytes)},
           {"logits_nmse", optional_json(v.logits_nmse)},
           {"effective_gbps", optional_json(v.effective_gbps)},
           {"achieved_gflops", optional_json(v.achieved_gflops)},
           {"fraction_of_f32_peak", optional_json(v.fraction_of_f32_peak)},
           {"pp_tok_s", optional_json(v.pp_tok_s)},
           {"pp_tokens", optional_json(v.pp_tokens)},
           {"tg_tokens", optional_json(v.tg_tokens)}};
  if (v.steady_tok_s) j["steady_tok_s"] = *v.steady_tok_s;
}
void from_json(const Json& j, ProfileFigures& v) {
  v.tok_s = optional_from<double>(j, "tok_s");
  v.peak_bytes = optional_from<uint64_t>(j, "peak_bytes");
  v.planned_peak_bytes = optional_from<uint64_t>(j, "planned_peak_bytes");
  v.logits_nmse = optional_from<double>(j, "logits_nmse");
  v.effective_gbps = optional_from<double>(j, "effective_gbps");
  v.achieved_gflops = optional_from<double>(j, "achieved_gflops");  // absent before schema 1.3
  v.fraction_of_f32_peak = optional_from<double>(j, "fraction_of_f32_peak");
  v.pp_tok_s = optional_from<double>(j, "pp_tok_s");  // absent before schema 1.4
  v.pp_tokens = optional_from<uint32_t>(j, "pp_tokens");
  v.tg_tokens = optional_from<uint32_t>(j, "tg_tokens");
  v.steady_tok_s = optional_from<double>(j, "steady_tok_s");  // absent before schema 1.9
}

void to_json(Json& j, const Cause& v) {
  j = Json{{"key", v.key}};  // an empty subject or no figures are left out
  if (!v.subject.empty()) j["subject"] = v.subject;
  if (!v.figures.empty()) j["figures"] = v.figures;
}
void from_json(const Json& j, Cause& v) {
  v.key = j.at("key").get<std::string>();
  v.subject = j.value("subject", std::string());
  v.figures = j.value("figures", std::map<std::string, double>{});
}

void to_json(Json& j, const Profile& v) {
  j = Json{{"name", v.name},
           {"familiar_name", v.familiar_name},
           {"device", v.device},
           {"api", v.api},
           {"weight_format", v.weight_format},
           {"compute_precision", v.compute_precision},
           {"kv_precision", v.kv_precision},
           {"variant", v.variant},
           {"context", v.context},
           {"batch", v.batch},
           {"micro_batch", v.micro_batch},
           {"placement", v.placement},
           {"placement_shares", v.placement_shares},
           {"verdict", to_string(v.verdict)},
           {"reason", v.reason},
           {"figures", v.figures},
           {"evidence", v.evidence},
           {"rows", v.rows}};
  if (v.cause) j["cause"] = *v.cause;
}
void from_json(const Json& j, Profile& v) {
  v.name = j.at("name").get<std::string>();
  v.familiar_name = j.at("familiar_name").get<std::string>();
  v.device = j.at("device").get<std::string>();
  v.api = j.at("api").get<std::string>();
  v.weight_format = j.at("weight_format").get<std::string>();
  v.compute_precision = j.at("compute_precision").get<std::string>();
  v.kv_precision = j.at("kv_precision").get<std::string>();
  v.variant = j.at("variant").get<KernelVariant>();
  v.context = j.at("context").get<uint32_t>();
  v.batch = j.at("batch").get<uint32_t>();
  v.micro_batch = j.value("micro_batch", 1u);         // absent before schema 1.4
  v.placement = j.value("placement", std::string());  // absent before schema 1.5
  v.placement_shares = j.value("placement_shares", std::string());
  auto verdict = profile_verdict_from_string(j.at("verdict").get<std::string>());
  if (!verdict) bad_value(j, "unknown profile verdict");
  v.verdict = *verdict;
  v.reason = j.at("reason").get<std::string>();
  v.cause = optional_from<Cause>(j, "cause");  // absent before schema 1.5
  v.figures = j.at("figures").get<ProfileFigures>();
  v.evidence = j.at("evidence").get<std::vector<std::string>>();
  v.rows = j.value("rows", std::vector<core::Row>{});
}

void to_json(Json& j, const FitAnswer& v) {
  j = Json{{"weight_format", v.weight_format},
           {"weight_bytes", v.weight_bytes},
           {"budget_bytes", v.budget_bytes},
           {"budget_basis", v.budget_basis},
           {"largest_context", v.largest_context},
           {"planned_bytes", v.planned_bytes},
           {"kv_bytes", v.kv_bytes},
           {"kv_bytes_without_window", v.kv_bytes_without_window},
           {"kv_cache", v.kv_cache},
           {"flash_attention", v.flash_attention},
           {"why", v.why}};
  if (v.state_bytes > 0) j["state_bytes"] = v.state_bytes;
  if (!v.draft_model.empty()) {
    j["draft_model"] = v.draft_model;
    j["draft_bytes"] = v.draft_bytes;
  }
  if (v.mtp_layers > 0) {
    j["mtp_layers"] = v.mtp_layers;
    j["mtp_bytes"] = v.mtp_bytes;
  }
  if (!v.projector_model.empty()) {
    j["projector_model"] = v.projector_model;
    j["projector_bytes"] = v.projector_bytes;
  }
  if (v.pool_bytes > 0) {
    j["pool_bytes"] = v.pool_bytes;
    j["pool_basis"] = v.pool_basis;
    j["host_bytes"] = v.host_bytes;
  }
  if (v.placement) {
    Json bytes = Json::object();
    for (const auto& [device, n] : v.placement->bytes) bytes[device] = n;
    j["placement"] = {
        {"device_slots", v.placement->device_slots}, {"layer_slots", v.placement->layer_slots},
        {"context", v.placement->context},           {"min_context", v.placement->min_context},
        {"micro_batch", v.placement->micro_batch},   {"bytes", bytes}};
    if (v.placement->expert_layers_on_host > 0) {
      j["placement"]["expert_layers_on_host"] = v.placement->expert_layers_on_host;
    }
    if (v.placement->tokens_per_second) {
      j["placement"]["tokens_per_second"] = *v.placement->tokens_per_second;
      j["placement"]["measured_profile"] = v.placement->measured_profile;
    }
  }
}
void from_json(const Json& j, FitAnswer& v) {
  v.weight_format = j.at("weight_format").get<std::string>();
  v.weight_bytes = j.at("weight_bytes").get<uint64_t>();
  v.budget_bytes = j.at("budget_bytes").get<uint64_t>();
  v.budget_basis = j.at("budget_basis").get<std::string>();
  v.largest_context = j.at("largest_context").get<uint32_t>();
  v.planned_bytes = j.at("planned_bytes").get<uint64_t>();
  v.kv_bytes = j.at("kv_bytes").get<uint64_t>();
  v.kv_bytes_without_window = j.at("kv_bytes_without_window").get<uint64_t>();
  v.kv_cache = j.value("kv_cache", std::string("f16"));  // both absent before -ctk/-ctv/-fa
  v.flash_attention = j.value("flash_attention", false);
  v.state_bytes = j.value("state_bytes", uint64_t{0});  // a hybrid's only
  v.why = j.at("why").get<std::string>();
  v.pool_bytes = j.value("pool_bytes", uint64_t{0});  // a shared-memory device's, from 1.7
  v.pool_basis = j.value("pool_basis", std::string());
  v.host_bytes = j.value("host_bytes", uint64_t{0});
  v.draft_model = j.value("draft_model", std::string());  // a draft model's, from 1.8
  v.draft_bytes = j.value("draft_bytes", uint64_t{0});
  v.projector_model = j.value("projector_model", std::string());  // a projector's, from 1.9
  v.projector_bytes = j.value("projector_bytes", uint64_t{0});
  v.mtp_layers = j.value("mtp_layers", uint32_t{0});  // an MTP head's, from 1.9
  v.mtp_bytes = j.value("mtp_bytes", uint64_t{0});
  if (j.contains("placement")) {  // absent before schema 1.5
    const Json& p = j.at("placement");
    FitAnswer::Placement out;
    out.device_slots = p.at("device_slots").get<uint32_t>();
    out.layer_slots = p.at("layer_slots").get<uint32_t>();
    out.context = p.at("context").get<uint32_t>();
    out.min_context = p.at("min_context").get<uint32_t>();
    out.micro_batch = p.at("micro_batch").get<uint32_t>();
    out.expert_layers_on_host = p.value("expert_layers_on_host", 0u);
    for (const auto& [device, n] : p.at("bytes").items()) {
      out.bytes.emplace_back(device, n.get<uint64_t>());
    }
    if (p.contains("tokens_per_second")) {
      out.tokens_per_second = p.at("tokens_per_second").get<double>();
      out.measured_profile = p.value("measured_profile", std::string());
    }
    v.placement = out;
  }
}

void to_json(Json& j, const DriverFigure& v) {
  j = Json{{"source", v.source},
           {"raw_bytes", v.raw_bytes},
           {"total_bytes", v.total_bytes},
           {"used_bytes", v.used_bytes},
           {"note", v.note}};
}
void from_json(const Json& j, DriverFigure& v) {
  v.source = j.at("source").get<std::string>();
  v.raw_bytes = j.at("raw_bytes").get<uint64_t>();
  v.total_bytes = j.at("total_bytes").get<uint64_t>();
  v.used_bytes = j.at("used_bytes").get<uint64_t>();
  v.note = j.value("note", std::string());
}

void to_json(Json& j, const MemoryPool& v) {
  j = Json{{"shared", v.shared},
           {"bound", v.bound},
           {"bound_bytes", v.bound_bytes},
           {"pool_bytes", v.pool_bytes},
           {"device_held_bytes", v.device_held_bytes},
           {"device_held_source", v.device_held_source},
           {"pool_held_bytes", v.pool_held_bytes},
           {"pool_held_source", v.pool_held_source},
           {"clamped", v.clamped},
           {"notes", v.notes}};
  if (v.driver_overhead_bytes) j["driver_overhead_bytes"] = *v.driver_overhead_bytes;
}
void from_json(const Json& j, MemoryPool& v) {
  v.shared = j.at("shared").get<bool>();
  v.bound = j.at("bound").get<std::string>();
  v.bound_bytes = j.at("bound_bytes").get<uint64_t>();
  v.pool_bytes = j.value("pool_bytes", uint64_t{0});
  v.device_held_bytes = j.value("device_held_bytes", uint64_t{0});
  v.device_held_source = j.value("device_held_source", std::string());
  v.pool_held_bytes = j.value("pool_held_bytes", uint64_t{0});
  v.pool_held_source = j.value("pool_held_source", std::string());
  if (j.contains("driver_overhead_bytes")) {
    v.driver_overhead_bytes = j.at("driver_overhead_bytes").get<uint64_t>();
  }
  v.clamped = j.value("clamped", std::vector<DriverFigure>{});
  v.notes = j.value("notes", std::vector<std::string>{});
}

void to_json(Json& j, const LargestContext& v) {
  j = Json{{"weight_format", v.weight_format}, {"context", v.context}, {"profile", v.profile}};
}
void from_json(const Json& j, LargestContext& v) {
  v.weight_format = j.at("weight_format").get<std::string>();
  v.context = j.at("context").get<uint32_t>();
  v.profile = j.at("profile").get<std::string>();
}

void to_json(Json& j, const Recommendation& v) { j = Json{{"profile", v.profile}, {"why", v.why}}; }
void from_json(const Json& j, Recommendation& v) {
  v.profile = j.at("profile").get<std::string>();
  v.why = j.at("why").get<std::string>();
}

void to_json(Json& j, const SoakResult& v) {
  j = Json{{"profile", v.profile},           {"seconds", v.seconds}, {"cold_tok_s", v.cold_tok_s},
           {"steady_tok_s", v.steady_tok_s}, {"decline", v.decline}, {"samples", v.samples},
           {"signals", v.signals},           {"error", v.error}};
  if (v.max_temperature_c) j["max_temperature_c"] = *v.max_temperature_c;
}
void from_json(const Json& j, SoakResult& v) {
  v.profile = j.at("profile").get<std::string>();
  v.seconds = j.at("seconds").get<double>();
  v.cold_tok_s = j.at("cold_tok_s").get<double>();
  v.steady_tok_s = j.at("steady_tok_s").get<double>();
  v.decline = j.at("decline").get<double>();
  v.samples = j.at("samples").get<std::vector<std::pair<double, double>>>();
  if (j.contains("max_temperature_c"))
    v.max_temperature_c = j.at("max_temperature_c").get<double>();
  v.signals = j.value("signals", std::string());
  v.error = j.value("error", std::string());
}

void to_json(Json& j, const SpeculationResult& v) {
  j = Json{{"draft", v.draft},
           {"profile", v.profile},
           {"tokens", v.tokens},
           {"tokens_match", v.tokens_match},
           {"first_difference", v.first_difference},
           {"drafted", v.drafted},
           {"accepted", v.accepted},
           {"plain_tok_s", v.plain_tok_s},
           {"speculative_tok_s", v.speculative_tok_s},
           {"error", v.error}};
}
void from_json(const Json& j, SpeculationResult& v) {
  v.draft = j.at("draft").get<std::string>();
  v.profile = j.at("profile").get<std::string>();
  v.tokens = j.at("tokens").get<uint32_t>();
  v.tokens_match = j.at("tokens_match").get<bool>();
  v.first_difference = j.at("first_difference").get<uint64_t>();
  v.drafted = j.at("drafted").get<uint64_t>();
  v.accepted = j.at("accepted").get<uint64_t>();
  v.plain_tok_s = j.at("plain_tok_s").get<double>();
  v.speculative_tok_s = j.at("speculative_tok_s").get<double>();
  v.error = j.value("error", std::string());
}

void to_json(Json& j, const DeviceReport& v) {
  j = Json{{"key", v.key},
           {"name", v.name},
           {"simulation", v.simulation},
           {"views", v.views},
           {"verified", v.verified},
           {"conformance", v.conformance},
           {"stress", optional_json(v.stress)},
           {"compute_peak", optional_json(v.compute_peak)},
           {"profiles", v.profiles},
           {"largest_safe_context", v.largest_safe_context},
           {"recommendation", optional_json(v.recommendation)},
           {"fit", v.fit}};
  if (v.memory_pool) j["memory_pool"] = *v.memory_pool;
  if (v.telemetry.is_object()) j["telemetry"] = v.telemetry;
  if (!v.machine_rows.empty()) j["machine_rows"] = v.machine_rows;
  if (v.soak) j["soak"] = *v.soak;
  if (v.speculation) j["speculation"] = *v.speculation;
}
void from_json(const Json& j, DeviceReport& v) {
  v.key = j.at("key").get<std::string>();
  v.name = j.at("name").get<std::string>();
  v.simulation = j.at("simulation").get<Simulation>();
  v.views = j.at("views").get<std::vector<DeviceView>>();
  v.verified = j.at("verified").get<VerifiedCaps>();
  v.conformance = j.at("conformance").get<std::vector<core::Row>>();
  v.stress = optional_from<StressResult>(j, "stress");
  v.compute_peak = optional_from<core::ComputePeak>(j, "compute_peak");  // absent before 1.3
  v.profiles = j.at("profiles").get<std::vector<Profile>>();
  v.largest_safe_context = j.at("largest_safe_context").get<std::vector<LargestContext>>();
  v.recommendation = optional_from<Recommendation>(j, "recommendation");
  v.fit = j.value("fit", std::vector<FitAnswer>{});              // absent before schema 1.2
  v.memory_pool = optional_from<MemoryPool>(j, "memory_pool");   // absent before 1.7
  if (j.contains("telemetry")) v.telemetry = j.at("telemetry");  // absent before 1.6
  v.machine_rows = j.value("machine_rows", std::vector<core::Row>{});
  v.soak = optional_from<SoakResult>(j, "soak");                       // absent before 1.9
  v.speculation = optional_from<SpeculationResult>(j, "speculation");  // absent before 1.10
}

void to_json(Json& j, const Summary& v) {
  j = Json{{"devices", v.devices},
           {"profiles_safe", v.profiles_safe},
           {"profiles_unsafe", v.profiles_unsafe},
           {"profiles_untested", v.profiles_untested},
           {"profiles_derived", v.profiles_derived},
           {"rows_by_status", v.rows_by_status},
           {"exit_code", v.exit_code}};
}
void from_json(const Json& j, Summary& v) {
  v.devices = j.at("devices").get<int>();
  v.profiles_safe = j.at("profiles_safe").get<int>();
  v.profiles_unsafe = j.at("profiles_unsafe").get<int>();
  v.profiles_untested = j.at("profiles_untested").get<int>();
  v.profiles_derived = j.at("profiles_derived").get<int>();
  v.rows_by_status = j.at("rows_by_status").get<std::map<std::string, int>>();
  v.exit_code = j.at("exit_code").get<int>();
}

void to_json(Json& j, const Report& v) {
  j = Json{{"schema_version", v.schema_version},
           {"tool", v.tool},
           {"host", v.host},
           {"started", v.started},
           {"finished", v.finished},
           {"complete", v.complete},
           {"level", v.level},
           {"model", optional_json(v.model)},
           {"options", v.options},
           {"environment", v.environment},
           {"devices", v.devices},
           {"rows", v.rows},
           {"summary", v.summary}};
}
void from_json(const Json& j, Report& v) {
  v.schema_version = j.at("schema_version").get<std::string>();
  v.tool = j.at("tool").get<ToolInfo>();
  v.host = j.at("host").get<HostInfo>();
  v.started = j.at("started").get<std::string>();
  v.finished = j.at("finished").get<std::string>();
  v.complete = j.at("complete").get<bool>();
  v.level = j.at("level").get<std::string>();
  v.model = optional_from<ModelInfo>(j, "model");
  v.options = j.at("options").get<std::map<std::string, OptionValue>>();
  v.environment = j.at("environment").get<std::vector<core::Row>>();
  v.devices = j.at("devices").get<std::vector<DeviceReport>>();
  v.rows = j.value("rows", std::vector<core::Row>{});
  v.summary = j.at("summary").get<Summary>();
}

}  // namespace gauntlet::reports
