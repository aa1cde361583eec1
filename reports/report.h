#pragma once
// The report of a run, as plain data. The harness fills it; the writer, reader, renderers, diff
// and merge read it. Its JSON form is described by reports/schema/report.schema.json, whose
// version is kSchemaVersion: a change that breaks readers bumps the major number.
#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/compute_peak.h"
#include "core/device_info.h"
#include "core/feature_verdict.h"
#include "core/json.h"
#include "core/outcome.h"
#include "core/stress_result.h"

namespace gauntlet::reports {

using core::FeatureResult;
using core::FeatureVerdict;
using core::Json;
using core::StressPoint;
using core::StressResult;
using core::to_string;  // FeatureVerdict's, beside ProfileVerdict's below

inline constexpr const char* kSchemaVersion = "1.10";

struct ToolInfo {
  std::string name = "gauntlet";
  std::string version;  // the CLI fills it from version.h
  std::string git_revision;
};

struct HostInfo {
  std::string hostname;
  std::string os;
  std::string cpu;
  uint64_t memory_bytes = 0;
};

// One setting that changed behaviour, with where it came from ("flag", "environment NAME",
// "preset FILE", "default").
struct OptionValue {
  std::string value;
  std::string source;
};

// How many tensors of one type a weight format holds, and their bytes.
struct TypeShare {
  std::string type;  // ggml's type name, e.g. "q4_K"
  uint64_t tensors = 0;
  uint64_t bytes = 0;
};

struct ModelInfo {
  std::string name;    // a GGUF file name or a built-in shape name
  std::string shape;   // e.g. "llama d=256 L=4 H=4 ff=688 vocab=1024"
  std::string format;  // the file's weight format, e.g. "Q4_K_M", or "all" for synthetic sets
  uint64_t params = 0;
  uint64_t bytes = 0;
  // Per weight format planned (llama.cpp's file type names), its tensor types.
  std::map<std::string, std::vector<TypeShare>> type_mix;
};

enum class ProfileVerdict { safe, unsafe, untested, derived };

const char* to_string(ProfileVerdict verdict);
std::optional<ProfileVerdict> profile_verdict_from_string(const std::string& text);

// Limits clamped by --simulate; an absent clamp leaves the real limit.
struct Simulation {
  bool simulated = false;
  std::string preset;
  std::optional<uint64_t> local_mem_bytes;
  std::optional<uint64_t> global_mem_bytes;
  std::optional<uint64_t> max_alloc_bytes;
  std::vector<std::string> features_off;
};

// One API's view of a physical device: what the driver claims, and whether the run could use it.
struct DeviceView {
  std::string api;  // "opencl", "vulkan", "host", "drm"
  bool usable = true;
  std::string reason;
  core::DeviceInfo info;
};

struct VerifiedCaps {
  std::map<std::string, FeatureResult> features;  // "f16.arithmetic" -> verdict
  uint64_t local_mem_verified_bytes = 0;
  uint64_t max_workgroup_verified = 0;
  uint32_t subgroup_size_observed = 0;  // 0 when not observed
};

struct KernelVariant {
  std::string name;  // e.g. "wg64-tile-chunk1024"
  uint32_t workgroup = 0;
  std::map<std::string, uint64_t> tile;  // e.g. {"chunk": 1024, "rows": 4}
  uint64_t local_mem_bytes = 0;          // the largest need of the variant's kernels
};

// Figures a run or the planner produced; absent ones are null in JSON.
struct ProfileFigures {
  std::optional<double> tok_s;
  std::optional<uint64_t> peak_bytes;
  std::optional<uint64_t> planned_peak_bytes;
  std::optional<double> logits_nmse;
  std::optional<double> effective_gbps;
  // Prompt processing's arithmetic rate and its share of the device's f32 peak
  // (core::ratio_to_peak); absent until a run measures prompt processing (schema 1.3).
  std::optional<double> achieved_gflops;
  std::optional<double> fraction_of_f32_peak;
  // llama-bench's figures (schema 1.4): pp<pp_tokens> is the prompt's tokens per second in passes
  // of the profile's micro-batch, tg<tg_tokens> the generated tokens per second (tok_s).
  std::optional<double> pp_tok_s;
  std::optional<uint32_t> pp_tokens;
  std::optional<uint32_t> tg_tokens;
  // tok_s after the device was held busy: the cold figure scaled by the device's soak
  // (steady / cold of its heaviest safe profile held; schema 1.9). Absent without a soak.
  std::optional<double> steady_tok_s;
};

// Why a profile is not safe, as data (schema 1.5; absent before): renderers group the profiles one
// cause rules out instead of printing a line each. `key` is one of kCauseKeys; `subject` names what
// it is about (a feature key such as "f16.arithmetic", a kernel such as "matmul", a check such as
// "decode"); `figures` holds the numbers the reason quotes ("need_bytes", "limit_bytes", ...).
struct Cause {
  std::string key;
  std::string subject;
  std::map<std::string, double> figures;
};

// feature_unsupported, feature_failed, feature_not_tested: a needed feature conformance did not
// verify; local_memory: a kernel's local memory over the verified limit; memory_budget: the
// planned peak over the safe budget (budget_unverified: over the budget the level verified, so
// untested); mismatch, error, crash, timeout: the engine's run; not_run: the level, an
// interruption or a failed check of the same configuration left it untested; hang_or_reset,
// memory_errors, link_errors, link_degraded: the machine's signals during the check (1.6).
inline constexpr std::array<const char*, 15> kCauseKeys{"feature_unsupported",
                                                        "feature_failed",
                                                        "feature_not_tested",
                                                        "local_memory",
                                                        "memory_budget",
                                                        "budget_unverified",
                                                        "mismatch",
                                                        "error",
                                                        "crash",
                                                        "timeout",
                                                        "not_run",
                                                        "hang_or_reset",
                                                        "memory_errors",
                                                        "link_errors",
                                                        "link_degraded"};

struct Profile {
  std::string name;           // "q4_0/f16/kv-f16/wg64-tile-chunk1024/ctx2048/b1"
  std::string familiar_name;  // "q4f16_0"
  std::string device;         // the physical device key
  std::string api;            // "opencl", "vulkan", "host"
  std::string weight_format;  // llama.cpp's file type: F32, F16, BF16, Q8_0, Q4_K_M, ...
  std::string compute_precision;
  std::string kv_precision;
  KernelVariant variant;
  uint32_t context = 0;
  uint32_t batch = 1;        // sequences decoded together
  uint32_t micro_batch = 1;  // prompt tokens per pass (schema 1.4; 1 before)
  // Layers across devices, as llama.cpp's flags say it ("ngl=2"), and where each share runs
  // ("host: layers 0-1; opencl:0: layer 2 + output"); empty: the whole model on `device`.
  std::string placement;
  std::string placement_shares;
  ProfileVerdict verdict = ProfileVerdict::untested;
  std::string reason;          // why it is not safe, e.g. "local memory 41216 > 32768"
  std::optional<Cause> cause;  // the reason as data, for unsafe and untested profiles
  ProfileFigures figures;
  std::vector<std::string> evidence;  // ids of the rows the verdict rests on
  std::vector<core::Row> rows;        // the profile's own runs
};

struct LargestContext {
  std::string weight_format;
  uint32_t context = 0;  // 0: no safe context for this format
  std::string profile;   // the profile that showed it
};

struct Recommendation {
  std::string profile;
  std::string why;
};

// A planned answer to "does this format fit, and up to which context?" (harness/fit.h).
struct FitAnswer {
  std::string weight_format;
  uint64_t weight_bytes = 0;
  uint64_t budget_bytes = 0;
  std::string budget_basis;
  uint32_t largest_context = 0;  // 0: no context fits
  uint64_t planned_bytes = 0;    // the plan at largest_context (at the smallest when none fits)
  // The KV cache at that context, and what it would be if sliding-window layers kept every
  // position (equal for a model without a window).
  uint64_t kv_bytes = 0;
  uint64_t kv_bytes_without_window = 0;
  // A hybrid's recurrent state (conv and delta per recurrent layer, one sequence; fixed whatever
  // the context); 0 for a model without one.
  uint64_t state_bytes = 0;
  // The KV cache's types as the plan counted them: "f16", "q8_0", "q8_0/q4_0" (K/V; -ctk, -ctv),
  // and whether its compute buffer is flash attention's (-fa).
  std::string kv_cache = "f16";
  bool flash_attention = false;
  std::string why;
  // A device whose memory is the host's: the pool both sides of the placement draw on together
  // (its budget and what bounds it), and the host side's bytes counted against it. 0 and empty
  // for a discrete card, whose host side is host memory apart (absent before schema 1.7).
  uint64_t pool_bytes = 0;
  std::string pool_basis;
  uint64_t host_bytes = 0;
  // A draft model (-md) planned beside the model: its file's name and its bytes on the device at
  // largest_context (weights, KV cache and compute buffer; part of planned_bytes). Empty and 0
  // without one (absent before schema 1.8).
  std::string draft_model;
  uint64_t draft_bytes = 0;
  // A vision projector (--mmproj) planned beside the model: its file's name and its bytes on the
  // device (weights and compute buffer; part of planned_bytes). Absent before schema 1.9.
  std::string projector_model;
  uint64_t projector_bytes = 0;
  // The model's own MTP head in use (--spec-type draft-mtp): its blocks, and their bytes on the
  // device at largest_context (weights, the MTP context's KV cache and compute buffer; part of
  // planned_bytes). 0 without (absent before schema 1.9).
  uint32_t mtp_layers = 0;
  uint64_t mtp_bytes = 0;
  // For a format that does not fit whole: the placement llama.cpp's --fit logic would choose
  // (context first, down to min_context; then the most layer slots on the device).
  struct Placement {
    uint32_t device_slots = 0;  // layer slots on the device (-ngl)
    uint32_t layer_slots = 0;   // n_layer + 1 (the output layer counts)
    uint32_t context = 0;
    uint32_t min_context = 0;
    uint32_t micro_batch = 0;  // the compute buffer's micro-batch (-ub)
    // A mixture's routed experts of the first N layers in host memory (--n-cpu-moe N).
    uint32_t expert_layers_on_host = 0;
    std::vector<std::pair<std::string, uint64_t>> bytes;  // per device, "host" for the rest
    // At the levels that run it: the generation speed a placed profile of these layer slots
    // measured (at its own context), and that profile.
    std::optional<double> tokens_per_second;
    std::string measured_profile;
  };
  std::optional<Placement> placement;
};

// A driver's memory figure as it was read, and the figure the plan used instead where it made no
// sense (free above total, a zero total).
struct DriverFigure {
  std::string source;  // "vulkan heapBudget[0]", "amdgpu mem_info_vram_used", "simulate ..."
  uint64_t raw_bytes = 0;
  uint64_t total_bytes = 0;  // the total it was checked against, as the driver stated it
  uint64_t used_bytes = 0;   // the figure after the clamp
  std::string note;          // what was wrong with it
};

// Which memory a plan on the device draws on (absent before schema 1.7). A discrete card: its
// own memory for the GPU side, host memory apart for the host side. A device whose memory is the
// host's: one pool for both sides, the GPU side further bounded by GTT, ttm.pages_limit or the
// host memory itself.
struct MemoryPool {
  bool shared = false;
  std::string bound;  // the GPU side's bound: "VRAM", "GTT", "ttm.pages_limit", "host memory"
  uint64_t bound_bytes = 0;  // its size, after any clamp
  uint64_t pool_bytes = 0;   // shared: the host memory both sides draw on; 0 otherwise
  // Memory other processes hold, where the driver says it: on the GPU side, and (shared) in the
  // pool. The source names the counter ("amdgpu mem_info_vram_used", "MemTotal - MemAvailable").
  uint64_t device_held_bytes = 0;
  std::string device_held_source;
  uint64_t pool_held_bytes = 0;
  std::string pool_held_source;
  // What the driver claimed and the stress could not allocate, where the stress reached the
  // device's limit rather than the level's cap.
  std::optional<uint64_t> driver_overhead_bytes;
  std::vector<DriverFigure> clamped;
  std::vector<std::string> notes;
};

// A device held busy (run --level soak, --soak SECONDS; harness/soak.h): its heaviest safe
// profile decoded over and over, the speed cold and steady and the decline, and what the
// machine's signals saw meanwhile (absent before schema 1.9).
struct SoakResult {
  std::string profile;
  double seconds = 0;                              // the hold asked for
  double cold_tok_s = 0;                           // the mean of the hold's first tenth
  double steady_tok_s = 0;                         // the mean of its last quarter
  double decline = 0;                              // 1 - steady / cold (negative: it got faster)
  std::vector<std::pair<double, double>> samples;  // (seconds into the hold, tok/s), at most 120
  std::optional<double> max_temperature_c;         // the hottest of the device's sensors
  std::string signals;  // a throttle note or a cause the signals gave; empty when clean
  std::string error;    // why the hold did not run (no safe profile, a crash); empty when it ran
};

// Speculative decoding checked on the device (run -md DRAFT; harness/speculation.h; schema 1.10):
// a safe profile's greedy tokens generated plainly and again with the draft proposing. The
// tokens must be the same: when they are not, that profile is unsafe.
struct SpeculationResult {
  std::string draft;    // the draft model's file
  std::string profile;  // the safe profile it ran with
  uint32_t tokens = 0;  // greedy tokens generated each way
  bool tokens_match = false;
  uint64_t first_difference = 0;  // where the tokens part, when they do
  uint64_t drafted = 0;           // tokens the draft proposed
  uint64_t accepted = 0;          // of them, the target's own picks
  double plain_tok_s = 0;         // the generated tokens over each decode's time
  double speculative_tok_s = 0;
  std::string error;  // why it did not run (no safe profile, a recurrent model, a crash)
};

struct DeviceReport {
  std::string key;  // PCI bus id, UUID, or the device id when neither is known
  std::string name;
  Simulation simulation;
  std::vector<DeviceView> views;
  VerifiedCaps verified;
  std::vector<core::Row> conformance;
  std::optional<StressResult> stress;
  // Peak arithmetic throughput, beside the stress's copy bandwidth (absent before schema 1.3).
  std::optional<core::ComputePeak> compute_peak;
  std::vector<Profile> profiles;
  std::vector<LargestContext> largest_safe_context;
  std::optional<Recommendation> recommendation;
  std::vector<FitAnswer> fit;
  std::optional<MemoryPool> memory_pool;
  // The machine's own signals around each unit (absent before schema 1.6): which sources exist,
  // which do not, and each unit's evidence; a failed row for each unit whose signals gave a cause.
  core::Json telemetry;
  std::vector<core::Row> machine_rows;
  std::optional<SoakResult> soak;
  std::optional<SpeculationResult> speculation;
};

struct Summary {
  int devices = 0;
  int profiles_safe = 0;
  int profiles_unsafe = 0;
  int profiles_untested = 0;
  int profiles_derived = 0;
  std::map<std::string, int> rows_by_status;  // every status present, zeros included
  int exit_code = 0;
};

struct Report {
  std::string schema_version = kSchemaVersion;
  ToolInfo tool;
  HostInfo host;
  std::string started;   // ISO 8601 UTC, "2024-05-01T12:00:00Z"
  std::string finished;  // empty while a run is in progress
  bool complete = false;
  std::string level = "quick";
  std::optional<ModelInfo> model;
  std::map<std::string, OptionValue> options;
  std::vector<core::Row> environment;  // doctor's checks
  std::vector<DeviceReport> devices;
  std::vector<core::Row> rows;  // rows that belong to no single device
  Summary summary;
};

// "Q4_0" + "f16" -> "q4f16_0"; "Q4_K_M" + "f32" -> "q4f32_k_m"; "F32" + "f32" -> "q0f32".
std::string familiar_name(const std::string& weight_format, const std::string& compute_precision);
// "q4_0/f16/kv-f16/wg64-tile-chunk1024/ctx2048/b1"
std::string profile_name(const Profile& profile);
// The current time as ISO 8601 UTC.
std::string now_iso8601();

// Every row of the report: environment, report-wide, conformance, stress and profile rows.
std::vector<const core::Row*> all_rows(const Report& report);
// Counts profiles and rows; exit code 3 when no view of any device is usable, 1 when a row
// failed, errored, crashed or timed out, 0 otherwise.
Summary compute_summary(const Report& report);

void to_json(Json& j, const ToolInfo& v);
void from_json(const Json& j, ToolInfo& v);
void to_json(Json& j, const HostInfo& v);
void from_json(const Json& j, HostInfo& v);
void to_json(Json& j, const OptionValue& v);
void from_json(const Json& j, OptionValue& v);
void to_json(Json& j, const TypeShare& v);
void from_json(const Json& j, TypeShare& v);
void to_json(Json& j, const ModelInfo& v);
void from_json(const Json& j, ModelInfo& v);
void to_json(Json& j, const Simulation& v);
void from_json(const Json& j, Simulation& v);
void to_json(Json& j, const DriverFigure& v);
void from_json(const Json& j, DriverFigure& v);
void to_json(Json& j, const SoakResult& v);
void from_json(const Json& j, SoakResult& v);
void to_json(Json& j, const MemoryPool& v);
void from_json(const Json& j, MemoryPool& v);
void to_json(Json& j, const DeviceView& v);
void from_json(const Json& j, DeviceView& v);
void to_json(Json& j, const VerifiedCaps& v);
void from_json(const Json& j, VerifiedCaps& v);
void to_json(Json& j, const KernelVariant& v);
void from_json(const Json& j, KernelVariant& v);
void to_json(Json& j, const ProfileFigures& v);
void from_json(const Json& j, ProfileFigures& v);
void to_json(Json& j, const Cause& v);
void from_json(const Json& j, Cause& v);
void to_json(Json& j, const Profile& v);
void from_json(const Json& j, Profile& v);
void to_json(Json& j, const FitAnswer& v);
void from_json(const Json& j, FitAnswer& v);
void to_json(Json& j, const LargestContext& v);
void from_json(const Json& j, LargestContext& v);
void to_json(Json& j, const Recommendation& v);
void from_json(const Json& j, Recommendation& v);
void to_json(Json& j, const DeviceReport& v);
void from_json(const Json& j, DeviceReport& v);
void to_json(Json& j, const Summary& v);
void from_json(const Json& j, Summary& v);
void to_json(Json& j, const Report& v);
void from_json(const Json& j, Report& v);

}  // namespace gauntlet::reports
