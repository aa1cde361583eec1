#include "harness/run.h"

#include <unistd.h>

#include <algorithm>
#include <fstream>

#include "engine/placement/placement.h"
#include "harness/device_stage.h"
#include "harness/fit.h"
#include "harness/health_state.h"
#include "harness/journal.h"
#include "harness/memory_pool.h"
#include "harness/profile_runs.h"
#include "harness/quick_model.h"
#include "harness/report_summary.h"
#include "harness/simulate.h"
#include "harness/soak.h"
#include "harness/speculation.h"
#include "harness/stale_temps.h"
#include "probes/doctor.h"
#include "probes/inventory.h"
#include "probes/merge.h"
#include "probes/select.h"
#include "reports/host.h"
#include "reports/io.h"
#include "version.h"

namespace gauntlet::harness {

namespace {

// Synthetic models up to this size are written and decoded; larger shapes are planned only.
constexpr uint64_t kMaxSyntheticBytes = 512ull << 20;

bool stop_requested(const RunConfig& config) {
  return config.interrupted != nullptr && config.interrupted->load();
}

void record_options(reports::Report& report, const RunConfig& config) {
  const auto& o = config.options;
  auto source = [&](const std::string& name) {
    auto it = o.sources.find(name);
    return it == o.sources.end() ? std::string("default") : it->second;
  };
  report.options["device"] = {o.device, source("device")};
  report.options["fallback"] = {core::to_string(o.fallback), source("fallback")};
  report.options["level"] = {core::to_string(o.level), source("level")};
  report.options["format"] = {reports::to_string(config.format), "flag --format"};
  if (!config.model_path.empty())
    report.options["model"] = {config.model_path.string(), "flag --model"};
  if (!config.shape.empty()) report.options["shape"] = {config.shape, "flag --shape"};
  if (!config.simulate.empty()) report.options["simulate"] = {config.simulate, "flag --simulate"};
  if (config.resume) report.options["resume"] = {"true", "flag --resume"};
  for (const auto& [name, value] : core::driver_environment()) {
    report.options[name] = {value, "environment " + name};
  }
  for (const auto& [name, from] : o.sources) {
    if (!report.options.count(name)) report.options[name] = {"set", from};
  }
}

reports::Simulation simulation_of(const std::optional<SimulateClamps>& clamps) {
  reports::Simulation s;
  if (!clamps) return s;
  s.simulated = true;
  s.preset = clamps->name;
  s.local_mem_bytes = clamps->local_mem_size;
  s.global_mem_bytes = clamps->global_mem_size;
  s.max_alloc_bytes = clamps->max_mem_alloc_size;
  s.features_off = clamps->features_off;
  return s;
}

// The views of the physical device that `id` belongs to, for the report.
std::pair<std::string, std::vector<reports::DeviceView>> views_of(
    const probes::Inventory& inventory, const core::DeviceId& id) {
  for (const auto& physical : probes::merge_views(inventory.devices())) {
    for (const auto& view : physical.views) {
      if (view.id != id) continue;
      std::vector<reports::DeviceView> views;
      for (const auto& v : physical.views) {
        views.push_back({core::to_string(v.id.api), v.usable, v.unusable_reason, v});
      }
      return {physical.key, views};
    }
  }
  return {id.to_string(), {}};
}

// The JSON report's path: --out itself, or beside the --format rendering.
std::filesystem::path json_report_path(const RunConfig& config) {
  if (config.format == reports::Format::json) return config.out;
  auto path = config.out;
  path.replace_extension(".json");
  if (path == config.out) path += ".report.json";
  return path;
}

core::Status write_outputs(const reports::Report& report, const RunConfig& config,
                           RunOutcome& outcome) {
  outcome.json_path = json_report_path(config);
  if (config.format != reports::Format::json) {
    outcome.rendered_path = config.out;
    GAUNTLET_TRY(reports::write_rendered(config.out, report, config.format));
  }
  return reports::write_report(outcome.json_path, report);
}

}  // namespace

namespace {

// The placed profiles' request: the user's -ngl/-ts, and each format's fit-answer slots.
PlacedRequest placed_request(const RunConfig& config, const probes::Selection& selection,
                             const std::vector<reports::FitAnswer>& fit) {
  PlacedRequest r;
  r.user = config.placement;
  for (const auto& id : selection.devices) {
    if (id.api == core::Api::opencl || id.api == core::Api::vulkan)
      r.gpus.push_back(id.to_string());
  }
  for (const auto& answer : fit) {
    auto format = engine::model::parse_file_type(answer.weight_format);
    if (!answer.placement || !format) continue;
    r.fit_slots[*format] = answer.placement->device_slots;
    if (answer.placement->expert_layers_on_host > 0)
      r.fit_expert_layers[*format] = answer.placement->expert_layers_on_host;
  }
  return r;
}

// A fit answer's placement gets the tok/s of a safe placed profile of its format, layer slots and
// expert layers on the host.
// Which memory the fit plans against: the device's views (drm's counters among them), the
// host's memory, and what the stress could allocate of what the driver claimed.
reports::MemoryPool plan_memory_pool(const core::DeviceInfo& claimed,
                                     const std::vector<reports::DeviceView>& views,
                                     const std::optional<SimulateClamps>& clamps,
                                     const core::Options& options, const DeviceStage& stage) {
  PoolInputs in;
  in.claimed = claimed;
  for (const auto& v : views) in.views.push_back(v.info);
  in.clamps = clamps;
  in.host = stress::read_host_memory();
  in.ttm_pages_limit_bytes = read_ttm_pages_limit(options.sysfs_root);
  // NVIDIA's driver says which processes hold its memory (NVML); a machine without it, nothing.
  if (claimed.pci_bus_id) {
    if (auto nvml = signals::Nvml::load()) {
      in.nvml_held = read_nvml_held(**nvml, *claimed.pci_bus_id, static_cast<unsigned>(::getpid()));
    }
  }
  auto pool = memory_pool(in);
  const bool simulated = clamps && clamps->global_mem_size;
  if (!simulated && stage.stress) {
    add_driver_overhead(pool, stress::device_memory(claimed), *stage.stress,
                        stage.facts.budget_capped_by_level);
  }
  return pool;
}

void attach_measured_placements(reports::DeviceReport& device, uint32_t n_layer) {
  for (auto& answer : device.fit) {
    if (!answer.placement) continue;
    std::string label = "ngl=" + std::to_string(answer.placement->device_slots);
    if (const uint32_t experts = answer.placement->expert_layers_on_host; experts > 0) {
      label += experts >= n_layer ? " cpu-moe" : " n-cpu-moe=" + std::to_string(experts);
    }
    for (const auto& p : device.profiles) {
      const bool same = p.placement == label || p.placement.rfind(label + " ts=", 0) == 0;
      if (p.weight_format != answer.weight_format || !same ||
          p.verdict != reports::ProfileVerdict::safe || !p.figures.tok_s) {
        continue;
      }
      // Held busy, the device's steady figure; cold where no soak ran.
      answer.placement->tokens_per_second = p.figures.steady_tok_s.value_or(*p.figures.tok_s);
      answer.placement->measured_profile = p.name;
      break;
    }
  }
}

}  // namespace

core::Result<RunOutcome> run(const RunConfig& config) {
  const auto& options = config.options;
  const Progress progress = [&](ProgressKind kind, const std::string& line) {
    if (config.progress) config.progress(kind, line);
  };

  const auto out_dir =
      config.out.has_parent_path() ? config.out.parent_path() : std::filesystem::path(".");
  std::error_code ec;
  if (!std::filesystem::is_directory(out_dir, ec)) {
    return core::make_error(core::ErrorKind::invalid_argument,
                            "the folder of --out, " + out_dir.string() + ", does not exist");
  }
  std::optional<SimulateClamps> clamps;
  if (!config.simulate.empty()) {
    auto loaded = load_simulate(config.simulate);
    if (!loaded) return loaded.error();
    clamps = *loaded;
  }
  const std::filesystem::path cache_dir =
      options.cache_dir.empty() ? "/tmp/gauntlet-cache" : options.cache_dir;
  for (const auto& p :
       remove_stale_temporaries({config.out, json_report_path(config)}, cache_dir)) {
    progress(ProgressKind::stage, "removed " + p.string() + ", left by an interrupted run");
  }
  auto models = prepare_models(config.model_path, config.shape, cache_dir, kMaxSyntheticBytes);
  if (!models) return models.error();
  FitCompanions companions;
  if (!config.draft_path.empty()) {
    auto read = read_fit_draft(config.draft_path, models->shape);
    if (!read) return read.error();
    companions.draft = std::move(*read);
  }
  if (!config.projector_path.empty()) {
    auto read = read_fit_projector(config.projector_path, models->shape);
    if (!read) return read.error();
    companions.projector = std::move(*read);
  }
  if (config.plan_mtp) {
    if (models->shape.n_layer_nextn == 0) {
      return core::make_error(core::ErrorKind::invalid_argument,
                              "--spec-type draft-mtp: the model has no MTP block "
                              "(nextn_predict_layers is 0 or absent)");
    }
    companions.mtp = true;
  }

  std::filesystem::path journal_path = config.out;
  journal_path += ".journal";
  auto journal = Journal::open(journal_path, config.resume);
  if (!journal) return journal.error();

  reports::Report report;
  report.tool.version = kVersion;
  report.tool.git_revision = kGitRevision;
  report.host = reports::detect_host();
  report.started = reports::now_iso8601();
  report.level = core::to_string(options.level);
  report.model = models->info;
  record_options(report, config);

  progress(ProgressKind::detail, "environment checks ...");
  report.environment = probes::run_doctor(options);

  progress(ProgressKind::detail, "enumerating devices ...");
  auto inventory = probes::enumerate_all(options);
  for (const auto& row : inventory.rows()) report.rows.push_back(row);
  auto selection = probes::select_devices(options.device, options.fallback, inventory);
  if (!selection) return selection.error();
  // -ngl and -ts are checked against the selected devices before any device is touched: a split
  // whose shares do not match the devices is a usage error, not a run without placed profiles.
  if (config.placement.splits_layers()) {
    const PlacedRequest request = placed_request(config, *selection, {});
    auto checked = engine::placement::from_gpu_layers(
        1, {config.placement.n_gpu_layers, request.gpus, config.placement.tensor_split,
            engine::placement::kHost});
    if (!checked) return checked.error();
  }
  // So are --cpu-moe, --n-cpu-moe and -ot: on a dense model, or with a rule that moves nothing
  // or something other than expert stacks, they are usage errors.
  if (config.placement.places_experts()) {
    const PlacedRequest request = placed_request(config, *selection, {});
    if (!models->shape.moe()) {
      return core::make_error(core::ErrorKind::invalid_argument,
                              "--cpu-moe, --n-cpu-moe and --override-tensor place a mixture's "
                              "experts; this model has none");
    }
    const std::string device = request.gpus.empty() ? "opencl:0" : request.gpus.front();
    auto checked = expert_profile_placements(models->shape, device, {}, request);
    if (!checked) return checked.error();
  }
  for (const auto& note : selection->notes) {
    report.rows.push_back(core::make_row("select", "", core::RowStatus::skipped, note));
    progress(ProgressKind::stage, note);
  }

  bool stopped = false;
  for (const auto& id : selection->devices) {
    if (stop_requested(config)) {
      stopped = true;
      break;
    }
    const core::DeviceInfo* found = inventory.find(id);
    if (found == nullptr) continue;
    core::DeviceInfo claimed = clamps ? apply_clamps(*found, *clamps) : *found;

    reports::DeviceReport device;
    std::tie(device.key, device.views) = views_of(inventory, id);
    device.name = found->name;
    device.simulation = simulation_of(clamps);

    DeviceWatch watch(claimed, options);
    const DeviceClock clock(level_budget_s(options));
    auto stage = measure_device(claimed, options, clamps, *journal, progress, watch, clock);
    if (!stage) return stage.error();
    device.verified = stage->verified;
    device.conformance = stage->conformance;
    device.stress = stage->stress;
    device.compute_peak = stage->compute_peak;

    device.memory_pool = plan_memory_pool(claimed, device.views, clamps, options, *stage);
    device.fit =
        fit_answers(*models, fit_budget(claimed, stage->facts, clamps, *device.memory_pool),
                    config.fit_cache, companions);
    auto candidates = plan_profiles(models->shape, models->mixes, stage->facts, device.key,
                                    options.level, placed_request(config, *selection, device.fit),
                                    {config.fit_cache.type_k, config.fit_cache.type_v});
    GAUNTLET_TRY(run_profiles(claimed, *models, candidates, options, *journal, progress,
                              config.interrupted, watch, clock));
    const bool stopped = config.interrupted != nullptr && config.interrupted->load();
    if (const double hold = hold_seconds(options, clock.left_s()); hold > 0 && !stopped) {
      device.soak = run_soak(claimed, *models, candidates, options, hold, watch, progress);
    }
    // A draft model is checked where one is given, else the model's MTP head in use.
    if ((!config.draft_path.empty() || config.plan_mtp) && !stopped) {
      device.speculation = run_speculation(claimed, *models, candidates, config.draft_path, options,
                                           watch, progress);
      apply_speculation(*device.speculation, candidates);
    }
    device.telemetry = watch.telemetry();
    device.machine_rows = watch.rows();
    for (auto& c : candidates) {
      auto& f = c.profile.figures;
      if (f.achieved_gflops && device.compute_peak) {
        f.fraction_of_f32_peak = core::ratio_to_peak(*f.achieved_gflops, *device.compute_peak);
      }
      device.profiles.push_back(std::move(c.profile));
    }
    apply_steady(device);
    summarize_device(device);
    attach_measured_placements(device, models->shape.n_layer);
    report.devices.push_back(std::move(device));
  }
  stopped = stopped || stop_requested(config);

  report.complete = !stopped;
  report.finished = reports::now_iso8601();
  report.summary = reports::compute_summary(report);
  RunOutcome outcome;
  outcome.exit_code = report.summary.exit_code;
  outcome.report = report;
  GAUNTLET_TRY(write_outputs(report, config, outcome));
  if (report.complete) GAUNTLET_TRY(journal->remove());
  // The gate's baseline, only ever in the state folder: a user's file is never overwritten. A
  // simulated run describes another device, so it is no baseline of this one.
  if (report.complete && clamps) {
    outcome.baseline_note = "baseline not written: a --simulate run describes another device";
  } else if (report.complete) {
    if (auto saved = write_baseline(options, reports::report_json_text(report)); saved) {
      outcome.baseline_path = baseline_path(options);
    } else {
      outcome.baseline_note = "baseline not written: " + saved.error().message;
    }
  }
  return outcome;
}

}  // namespace gauntlet::harness
