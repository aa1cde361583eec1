#include "harness/profile_runs.h"

#include <algorithm>
#include <map>

#include "backends/catalog.h"
#include "core/isolate.h"
#include "engine/decode.h"
#include "engine/device/profile_check.h"
#include "engine/model/gguf.h"

namespace gauntlet::harness {

namespace {

using engine::model::FileType;

enum class CheckKind { decode, context };

struct RunItem {
  size_t candidate = 0;  // index into the candidates
  CheckKind kind = CheckKind::decode;
};

// Candidates of one format that differ only in context: one "key" of the run plan.
std::string setup_key(const DecodeSetup& s) {
  const auto& c = s.config;
  return std::string(engine::planner::to_string(c.kv)) +
         (c.compute == engine::planner::ActivationType::f16 ? "/f16" : "/f32") +
         (s.tiled ? "/tiled" : "/whole") + "/b" + std::to_string(c.sequences);
}

uint32_t decode_steps(core::Level level) { return level == core::Level::quick ? 16 : 32; }

core::Json check_to_json(const engine::device::CheckResult& r) {
  return core::Json{{"tokens_match", r.tokens_match},
                    {"device_tokens", r.device_tokens},
                    {"host_tokens", r.host_tokens},
                    {"logits_nmse", r.logits_nmse},
                    {"nmse_bound", r.nmse_bound},
                    {"tok_s", r.tokens_per_second},
                    {"effective_gbps", r.effective_gbps},
                    {"peak_bytes", r.device_peak_bytes},
                    {"planned_peak_bytes", r.planned_peak_bytes},
                    {"reason", r.reason},
                    {"note", r.note}};
}

// One child: open the device and the model, run the items in order.
core::Json run_items_in_child(const core::DeviceInfo& device, const std::filesystem::path& file,
                              const std::vector<Candidate>& candidates,
                              const std::vector<RunItem>& items, const core::Options& options,
                              core::Level level) {
  core::Json results = core::Json::array();
  auto fail_all = [&](const std::string& reason) {
    for (size_t i = 0; i < items.size(); ++i) results.push_back({{"error", reason}});
    return results;
  };
  auto opened = backends::open(device.id, options);
  if (!opened) return fail_all(opened.error().describe());
  auto model = engine::model::GgufFile::open(file);
  if (!model) return fail_all(model.error().describe());
  // Each kernel is built once for all the checks of this child.
  engine::device::KernelCache kernels(**opened);
  for (const auto& item : items) {
    const auto& setup = candidates[item.candidate].setup;
    if (device.id.api == core::Api::host) {
      engine::DecodeRequest request;
      request.model_path = file;
      request.kv = setup.config.kv;
      request.n_tokens = decode_steps(level);
      request.context = setup.config.context;
      auto report = engine::run_decode(request, **opened);
      if (!report) {
        results.push_back({{"error", report.error().describe()}});
      } else {
        results.push_back({{"tokens_match", true},
                           {"reason", ""},
                           {"tok_s", report->tokens_per_second},
                           {"peak_bytes", report->device_peak_bytes},
                           {"planned_peak_bytes", report->plan.steady_state},
                           {"reference", true}});
      }
      continue;
    }
    auto result = item.kind == CheckKind::decode
                      ? engine::device::check_decode(**opened, **model, setup.config, {1, 2, 3},
                                                     decode_steps(level), &kernels)
                      : engine::device::check_context(**opened, **model, setup.config,
                                                      setup.config.context, &kernels);
    if (!result) {
      results.push_back({{"error", result.error().describe()}});
    } else {
      results.push_back(check_to_json(*result));
    }
  }
  return results;
}

// The runs a level asks for, per format: the default key only at quick, every key otherwise;
// a decode check at each key's smallest context and an attention check at its largest.
std::map<FileType, std::vector<RunItem>> plan_runs(const std::vector<Candidate>& candidates,
                                                   const ModelSet& models, core::Level level,
                                                   bool host) {
  std::map<FileType, std::map<std::string, std::vector<size_t>>> by_key;
  for (size_t i = 0; i < candidates.size(); ++i) {
    const auto& c = candidates[i];
    if (!c.runnable || c.setup.config.sequences != 1) continue;
    if (!models.files.count(c.setup.config.weights)) continue;
    if (level == core::Level::quick && !models.user_file &&
        !runs_at_quick_level(c.setup.config.weights)) {
      continue;
    }
    by_key[c.setup.config.weights][setup_key(c.setup)].push_back(i);
  }
  std::map<FileType, std::vector<RunItem>> plan;
  for (auto& [format, keys] : by_key) {
    std::vector<std::string> chosen;
    if (level == core::Level::quick) {
      // The default: f32 activations and KV cache, the whole vector when it fits (fewer passes).
      for (const char* key : {"f32/f32/whole/b1", "f32/f32/tiled/b1"}) {
        if (keys.count(key)) {
          chosen.push_back(key);
          break;
        }
      }
    } else {
      for (const auto& [key, indices] : keys) chosen.push_back(key);
    }
    for (const auto& key : chosen) {
      auto& indices = keys[key];
      std::sort(indices.begin(), indices.end(), [&](size_t a, size_t b) {
        return candidates[a].setup.config.context < candidates[b].setup.config.context;
      });
      plan[format].push_back({indices.front(), CheckKind::decode});
      if (!host && indices.size() > 1) plan[format].push_back({indices.back(), CheckKind::context});
    }
  }
  return plan;
}

void apply_result(Candidate& c, const core::Json& r, const std::string& device, CheckKind kind) {
  auto& p = c.profile;
  core::Row row =
      core::make_row(std::string(kind == CheckKind::decode ? "decode:" : "context:") + p.name,
                     device, core::RowStatus::pass);
  if (r.contains("error")) {
    row.status = core::RowStatus::error;
    row.reason = r["error"].get<std::string>();
    if (r.contains("crash")) {
      row.status = core::row_status_from_string(r["crash"].get<std::string>())
                       .value_or(core::RowStatus::error);
    }
    p.verdict = reports::ProfileVerdict::unsafe;
    p.reason = row.reason;
  } else {
    const std::string reason = r.value("reason", "");
    p.figures.tok_s = r.value("tok_s", 0.0);
    p.figures.peak_bytes = r.value("peak_bytes", uint64_t{0});
    if (r.contains("logits_nmse")) p.figures.logits_nmse = r["logits_nmse"].get<double>();
    if (r.contains("effective_gbps")) p.figures.effective_gbps = r["effective_gbps"].get<double>();
    row.metrics = r;
    if (reason.empty()) {
      p.verdict = reports::ProfileVerdict::safe;
      p.reason = r.value("reference", false)
                     ? "host reference engine: decoded " + std::string("and measured")
                 : kind == CheckKind::decode
                     ? "decoded and matched the host reference"
                     : "attention over a full KV cache matched the host reference";
      if (!r.value("note", "").empty()) p.reason += "; " + r.value("note", "");
    } else {
      row.status = core::RowStatus::fail;
      row.reason = reason;
      p.verdict = reports::ProfileVerdict::unsafe;
      p.reason = reason;
    }
  }
  p.evidence.push_back(row.id);
  p.rows.push_back(row);
}

// Profiles that were not run take their verdict from the runs of their key.
void settle_unrun(std::vector<Candidate>& candidates, core::Level level, bool interrupted) {
  std::map<std::string, std::vector<Candidate*>> by_key;
  for (auto& c : candidates) {
    by_key[std::string(engine::model::to_string(c.setup.config.weights)) + "/" + setup_key(c.setup)]
        .push_back(&c);
  }
  for (auto& [key, group] : by_key) {
    uint32_t decoded = 0, longest = 0;
    std::string failure;
    for (const auto* c : group) {
      if (c->profile.rows.empty()) continue;
      if (c->profile.verdict == reports::ProfileVerdict::safe) {
        if (decoded == 0 || c->setup.config.context < decoded) decoded = c->setup.config.context;
        longest = std::max(longest, c->setup.config.context);
      } else {
        failure = c->profile.name + ": " + c->profile.reason;
      }
    }
    for (auto* c : group) {
      auto& p = c->profile;
      if (!p.rows.empty() || p.verdict != reports::ProfileVerdict::untested || !c->runnable)
        continue;
      if (interrupted) {
        p.reason = "not run: the run was interrupted";
      } else if (!failure.empty()) {
        p.reason = "not run; a check of the same configuration failed: " + failure;
      } else if (decoded != 0 && c->setup.config.context <= longest) {
        p.verdict = reports::ProfileVerdict::derived;
        p.reason = "fits by the planner; decode verified at ctx " + std::to_string(decoded) +
                   " and attention at ctx " + std::to_string(longest);
      } else if (c->setup.config.sequences != 1) {
        p.reason = "batch > 1 is planned only: the engine decodes batch 1";
        p.verdict = reports::ProfileVerdict::derived;
      } else if (level == core::Level::quick) {
        p.reason =
            "not run at the quick level, which runs the default variant of F16, Q8_0 and Q4_K_M "
            "(--level standard runs every variant of every format)";
      } else {
        p.reason = "not run: no model file of this format";
      }
    }
  }
}

}  // namespace

core::Status run_profiles(const core::DeviceInfo& device, const ModelSet& models,
                          std::vector<Candidate>& candidates, const core::Options& options,
                          Journal& journal, const Progress& progress,
                          const std::atomic<bool>* interrupted) {
  const std::string dev = device.id.to_string();
  const bool host = device.id.api == core::Api::host;
  auto plan = plan_runs(candidates, models, options.level, host);
  bool stopped = false;
  for (const auto& [format, items] : plan) {
    if (interrupted != nullptr && interrupted->load()) {
      stopped = true;
      break;
    }
    const std::string unit = "profiles:" + dev + ":" + engine::model::to_string(format);
    core::Json results;
    if (const auto* saved = journal.find(unit)) {
      results = *saved;
      progress(dev + ": " + engine::model::to_string(format) + " profiles (from the journal)");
    } else {
      progress(dev + ": decoding " + engine::model::to_string(format) + " (" +
               std::to_string(items.size()) + " checks) ...");
      core::IsolationLimits limits;
      limits.timeout = std::chrono::seconds(options.level == core::Level::quick ? 180 : 600);
      const auto& file = models.files.at(format);
      auto run = core::run_isolated(unit, dev, limits, [&] {
        return run_items_in_child(device, file, candidates, items, options, options.level);
      });
      if (run.completed) {
        results = run.payload;
      } else {
        results = core::Json::array();
        for (size_t i = 0; i < items.size(); ++i) {
          results.push_back(
              {{"error", run.failure.reason}, {"crash", core::to_string(run.failure.status)}});
        }
      }
      GAUNTLET_TRY(journal.append(unit, results));
    }
    try {
      for (size_t i = 0; i < items.size() && i < results.size(); ++i) {
        apply_result(candidates[items[i].candidate], results.at(i), dev, items[i].kind);
      }
    } catch (const core::Json::exception& e) {
      return core::make_error(core::ErrorKind::invalid_argument,
                              "journal " + journal.path().string() + ": the entry of '" + unit +
                                  "' is damaged: " + e.what());
    }
  }
  settle_unrun(candidates, options.level, stopped);
  return core::Status::ok();
}

}  // namespace gauntlet::harness
