#pragma once
// `gauntlet run`: doctor → enumerate → probe → conform → stress → plan profiles → run the engine
// per profile → report. Every unit that touches a driver runs in an isolated child; every
// finished unit is journaled, so that an interrupted run can be resumed.
#include <atomic>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/options.h"
#include "harness/device_stage.h"
#include "harness/fit.h"
#include "reports/render.h"
#include "reports/report.h"

namespace gauntlet::harness {

struct RunConfig {
  core::Options options;  // device, fallback, level, faults
  std::filesystem::path out = "report.json";
  reports::Format format = reports::Format::json;
  std::filesystem::path model_path;  // a GGUF file; empty: a synthetic model of `shape`
  std::string shape;                 // a preset name; empty: the built-in quick model
  std::string simulate;              // a clamp file or preset; empty: none
  bool resume = false;
  // llama.cpp's -ngl, -ts, --cpu-moe (n_cpu_moe UINT32_MAX), --n-cpu-moe and -ot for the placed
  // and expert-placed profiles. Unasked, -ngl lets a format that does not fit whole take its fit
  // answer's layer slots, and one that does take half of the layers on the host; -ts shares the
  // offloaded slots between the selected OpenCL/Vulkan devices, in their order; unasked expert
  // flags check all experts on the host, and the first N on the host (N from the fit answer, else
  // half of the layers).
  engine::placement::PlacementRequest placement;
  // The KV cache the fit answer counts (-ctk, -ctv, -fa). The profiles check f32, f16 and this
  // cache when it is quantized (else q8_0), through flash attention.
  FitCache fit_cache;
  // A draft model (-md) the fit answer plans beside the model, at fit_cache.sequences slots (-np);
  // empty: none.
  std::filesystem::path draft_path;
  // A vision projector (--mmproj) the fit answer plans beside the model; empty: none.
  std::filesystem::path projector_path;
  // The model's own MTP head in use (--spec-type draft-mtp) in the fit answer.
  bool plan_mtp = false;
  // Called with a line as each stage of each device starts and ends, and with details between
  // (device_stage.h's Progress).
  std::function<void(ProgressKind, const std::string&)> progress;
  // Set by SIGINT/SIGTERM: the run stops after the unit in progress and writes what it has.
  const std::atomic<bool>* interrupted = nullptr;
};

struct RunOutcome {
  reports::Report report;
  int exit_code = 0;
  std::filesystem::path json_path;      // the JSON report
  std::filesystem::path rendered_path;  // the --format rendering, when not JSON
  // A complete run's report, copied as the baseline `gauntlet health` reads (health_state.h);
  // empty with `baseline_note` saying why when it could not be written.
  std::filesystem::path baseline_path;
  std::string baseline_note;
};

// Errors are usage or input errors (a bad model, a bad simulate file, an existing journal
// without --resume, an unknown device): the CLI exits 2 on them.
core::Result<RunOutcome> run(const RunConfig& config);

}  // namespace gauntlet::harness
