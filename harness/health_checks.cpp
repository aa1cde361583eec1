#include "harness/health_checks.h"

#include <unistd.h>

#include <algorithm>
#include <thread>

#include "backends/catalog.h"
#include "backends/saxpy.h"
#include "conformance/conformance.h"
#include "core/isolate.h"
#include "engine/device/profile_check.h"
#include "engine/loader/loader.h"
#include "engine/make_decoder.h"
#include "engine/model/gguf.h"
#include "engine/model/synthetic.h"
#include "stress/host_limits.h"
#include "stress/steps.h"

namespace gauntlet::harness {

namespace {

using reports::HealthCheck;
using reports::HealthStatus;
using std::chrono::milliseconds;

// A small llama: a decode of 8 tokens takes well under a second on every device here.
constexpr const char* kHealthShape =
    "n_embd=128,n_layer=2,n_head=2,n_ff=256,n_vocab=256,context=64";
constexpr uint64_t kSeed = 20261128;
constexpr uint32_t kPromptTokens = 3;
constexpr uint32_t kSteps = 8;
// Kept back from the child's limit: the verdict still has to be written after it.
constexpr milliseconds kGrace{500};

HealthCheck deadline_check(const std::string& id, const std::string& why) {
  HealthCheck c;
  c.id = id;
  c.status = HealthStatus::warning;
  c.not_run = true;
  c.reason = "not run: deadline" + why;
  return c;
}

// Runs `unit` in an isolated child limited to what the deadline leaves. A child that ran out of
// time is the check cut at the deadline; one that crashed or failed otherwise is critical.
template <typename Unit>
HealthCheck isolated_check(const std::string& id, const core::DeviceInfo& device,
                           const core::Options& options, const Deadline& deadline,
                           milliseconds minimum, Unit unit,
                           const std::function<void(const core::Json&, HealthCheck&)>& judge) {
  if (!deadline.allows(minimum)) return deadline_check(id, "");
  core::IsolationLimits limits;
  limits.timeout = deadline.left();
  limits.grace = kGrace;
  const std::string slow = options.fault_for("health.slow").value_or("");
  auto run = core::run_isolated("health." + id, device.id.to_string(), limits, [&]() {
    if (slow == id) std::this_thread::sleep_for(std::chrono::minutes(10));
    return unit();
  });
  HealthCheck c;
  c.id = id;
  c.seconds = run.duration_s;
  if (!run.completed) {
    if (run.failure.status == core::RowStatus::timeout) {
      return deadline_check(
          id, " (cut after " + std::to_string(static_cast<int>(run.duration_s)) + " s)");
    }
    c.status = HealthStatus::critical;
    c.reason = id + " " + core::to_string(run.failure.status) + ": " + run.failure.reason;
    return c;
  }
  judge(run.payload, c);
  return c;
}

core::Json probe_unit(const core::DeviceInfo& info, const core::Options& options) {
  auto device = backends::open(info.id, options);
  if (!device) return {{"error", device.error().describe()}};
  std::vector<float> x(1024), y(1024, 1.0f);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i);
  auto out = backends::run_saxpy(**device, 2.0f, x, y);
  if (!out) return {{"error", out.error().describe()}};
  for (size_t i = 0; i < x.size(); ++i) {
    if ((*out)[i] != 2.0f * x[i] + 1.0f) {
      return {{"error", "saxpy index " + std::to_string(i) + ": expected " +
                            std::to_string(2.0f * x[i] + 1.0f) + ", got " +
                            std::to_string((*out)[i])}};
    }
  }
  return {{"ok", true}};
}

core::Json decode_unit(const core::DeviceInfo& info, const core::Options& options,
                       const HealthModels& models) {
  auto device = backends::open(info.id, options);
  if (!device) return {{"error", device.error().describe()}};
  auto tested = engine::model::GgufFile::open(models.tested);
  if (!tested) return {{"error", tested.error().describe()}};
  auto reference = engine::model::GgufFile::open(models.reference);
  if (!reference) return {{"error", reference.error().describe()}};
  auto loaded = engine::loader::load_to_device(**tested, **device, {});
  if (!loaded) return {{"error", loaded.error().describe()}};
  const uint32_t context = kPromptTokens + kSteps;
  auto decoder = engine::make_decoder(**device, *loaded,
                                      {0, engine::planner::KvPrecision::f32, context, 1, 1});
  if (!decoder) return {{"error", decoder.error().describe()}};
  engine::device::PassSpec spec;
  spec.context = context;
  spec.prompt_tokens = kPromptTokens;
  spec.steps = kSteps;
  spec.q8_activations = info.products == core::Products::int8_simd;
  auto r = engine::device::compare_with_reference(**decoder, **reference, spec);
  if (!r) return {{"error", r.error().describe()}};
  return {{"tokens_match", r->tokens_match},
          {"logits_nmse", r->logits_nmse},
          {"nmse_bound", r->nmse_bound},
          {"device_tokens", r->device_tokens},
          {"host_tokens", r->host_tokens},
          {"tok_s", r->tokens_per_second},
          {"reason", r->reason}};
}

void judge_error(const core::Json& payload, HealthCheck& c) {
  if (payload.contains("error")) {
    c.status = HealthStatus::critical;
    c.reason = c.id + ": " + payload["error"].get<std::string>();
  }
}

HealthCheck conform_check(const core::DeviceInfo& device, const core::Options& options,
                          const std::vector<std::string>& globs, const Deadline& deadline) {
  HealthCheck c;
  c.id = "conform";
  c.metrics["globs"] = globs;
  int rows = 0;
  const auto started = Deadline::Clock::now();
  for (const auto& glob : globs) {
    if (!deadline.allows(milliseconds{1500})) return deadline_check("conform", "");
    conformance::ConformanceOptions conf;
    conf.filter = glob;
    conf.limits.timeout = deadline.left();
    conf.limits.grace = kGrace;
    auto result = conformance::run_conformance(device, options, conf);
    for (const auto& row : result.rows) {
      ++rows;
      if (row.status == core::RowStatus::timeout) {
        return deadline_check("conform", " (cut in " + row.id + ")");
      }
      if (row.status == core::RowStatus::pass || row.status == core::RowStatus::unsupported ||
          row.status == core::RowStatus::skipped) {
        continue;
      }
      c.status = HealthStatus::critical;
      c.reason = row.id + " " + core::to_string(row.status) + ": " + row.reason;
      break;
    }
    if (c.status == HealthStatus::critical) break;
  }
  c.metrics["rows"] = rows;
  c.seconds = std::chrono::duration<double>(Deadline::Clock::now() - started).count();
  return c;
}

}  // namespace

core::Result<HealthModels> write_health_models(const std::filesystem::path& dir,
                                               const core::Options& options) {
  auto shape = engine::model::parse_shape(kHealthShape);
  if (!shape) return shape.error();
  shape->name = "gauntlet-health";
  HealthModels models;
  models.reference = dir / "health-q8_0.gguf";
  GAUNTLET_TRY(engine::model::write_synthetic_model(*shape, engine::model::FileType::q8_0, kSeed,
                                                    models.reference, true));
  models.tested = models.reference;
  if (options.fault_for("health.decode").value_or("") == "wrong") {
    models.tested = dir / "health-q8_0-wrong.gguf";
    GAUNTLET_TRY(engine::model::write_synthetic_model(*shape, engine::model::FileType::q8_0,
                                                      kSeed + 1, models.tested, true));
  }
  return models;
}

uint64_t sentinel_bytes(const core::DeviceInfo& device) {
  uint64_t free_bytes = stress::device_memory(device);
  if (stress::shares_host_memory(device) || device.id.api == core::Api::host) {
    const auto host = stress::read_host_memory();
    if (host.mem_available) free_bytes = std::min(free_bytes, *host.mem_available);
  }
  uint64_t bytes = std::min<uint64_t>(free_bytes / 64, 64 * stress::kMiB);
  if (device.max_mem_alloc_size > 0) bytes = std::min(bytes, device.max_mem_alloc_size);
  return std::max<uint64_t>(stress::round_mib(bytes), stress::kMiB);
}

std::vector<HealthCheck> run_device_checks(const core::DeviceInfo& device,
                                           const core::Options& options,
                                           const std::vector<std::string>& conform_globs,
                                           const HealthModels& models, const Deadline& deadline) {
  std::vector<HealthCheck> checks;
  checks.push_back(isolated_check(
      "probe", device, options, deadline, milliseconds{500},
      [&] { return probe_unit(device, options); }, judge_error));
  if (checks.back().status == HealthStatus::critical) return checks;

  checks.push_back(conform_check(device, options, conform_globs, deadline));

  const uint64_t bytes = sentinel_bytes(device);
  checks.push_back(isolated_check(
      "memory", device, options, deadline, milliseconds{1000},
      [&] {
        return stress::run_patterns_unit(device, options, bytes, 1,
                                         static_cast<uint32_t>(::getpid()));
      },
      [bytes](const core::Json& payload, HealthCheck& c) {
        c.metrics["bytes"] = bytes;
        if (payload.value("status", "") != "pass") {
          c.status = HealthStatus::critical;
          c.reason = "memory: " + payload.value("reason", payload.dump());
          return;
        }
        for (const auto& j : payload["rows"]) {
          core::Row row = j.get<core::Row>();
          if (row.status == core::RowStatus::pass) continue;
          c.status = HealthStatus::critical;
          c.reason = row.id + " " + core::to_string(row.status) + ": " + row.reason;
          return;
        }
      }));

  checks.push_back(isolated_check(
      "decode", device, options, deadline, milliseconds{1500},
      [&] { return decode_unit(device, options, models); },
      [](const core::Json& payload, HealthCheck& c) {
        judge_error(payload, c);
        if (c.status == HealthStatus::critical) return;
        c.metrics = payload;
        if (!payload.value("tokens_match", false) || !payload.value("reason", "").empty()) {
          c.status = HealthStatus::critical;
          c.reason = "decode wrong: " + payload.value("reason", "");
        }
      }));
  return checks;
}

}  // namespace gauntlet::harness
