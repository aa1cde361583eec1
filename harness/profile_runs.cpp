#include "harness/profile_runs.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <optional>

#include "backends/catalog.h"
#include "core/clock.h"
#include "core/isolate.h"
#include "engine/decode.h"
#include "engine/device/profile_check.h"
#include "engine/loader/loader.h"
#include "engine/make_decoder.h"
#include "engine/model/gguf.h"
#include "engine/placement_check.h"
#include "engine/speed.h"

namespace gauntlet::harness {

namespace {

using engine::model::FileType;

// decode: a greedy decode at the key's smallest context; context: attention over a full KV cache
// at its largest; pass: a prompt in passes of the micro-batch, or sequences decoded together.
// placed: a placement's split against the host reference.
enum class CheckKind { decode, context, pass, placed };

struct RunItem {
  size_t candidate = 0;  // index into the candidates
  CheckKind kind = CheckKind::decode;
};

// Candidates of one format that differ only in context: one "key" of the run plan.
std::string setup_key(const DecodeSetup& s) {
  const auto& c = s.config;
  return std::string(engine::planner::to_string(c.kv)) +
         (c.compute == engine::planner::ActivationType::f16 ? "/f16" : "/f32") +
         (s.tiled ? "/tiled" : "/whole") + "/b" + std::to_string(c.sequences) +
         (c.micro_batch > 1 ? "/mb" + std::to_string(c.micro_batch) : "") +
         (s.placement ? "/" + s.placement->label : "");
}

bool is_pass(const DecodeSetup& s) {
  return engine::planner::pass_tokens(s.config.micro_batch, s.config.sequences) > 1;
}

// The key of the one-token setup of the same family (what a pass key derives its contexts from).
std::string decode_key(const DecodeSetup& s) {
  DecodeSetup one = s;
  one.config.micro_batch = 1;
  one.config.sequences = 1;
  return setup_key(one);
}

// A pass check's prompt: the micro-batch, or a short prompt per sequence; and its generated
// tokens: llama-bench's tg128 from the standard level on, fewer at quick.
uint32_t pass_prompt(const DecodeSetup& s) {
  return s.config.micro_batch > 1 ? s.config.micro_batch : 8;
}
uint32_t pass_steps(core::Level level) { return level == core::Level::quick ? 8 : 128; }

uint32_t decode_steps(core::Level level) { return level == core::Level::quick ? 16 : 32; }

core::Json check_to_json(const engine::device::CheckResult& r) {
  return core::Json{{"tokens_match", r.tokens_match},
                    {"pp_tok_s", r.prompt_tokens_per_second},
                    {"prompt_gflops", r.prompt_gflops},
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

// The host backend runs the reference itself: a pass is timed (pp and tg, as llama-bench's), and
// its logits are the reference's by construction (ReferenceBatch tests).
core::Json host_pass(const core::DeviceInfo& device, const std::filesystem::path& file,
                     const DecodeSetup& setup, core::Level level, backends::Device& opened) {
  auto model = engine::model::GgufFile::open(file);
  if (!model) return {{"error", model.error().describe()}};
  auto loaded = engine::loader::load_to_device(**model, opened, {});
  if (!loaded) return {{"error", loaded.error().describe()}};
  const auto& c = setup.config;
  auto decoder = engine::make_decoder(
      opened, *loaded,
      {.kv = c.kv, .context = c.context, .micro_batch = c.micro_batch, .sequences = c.sequences});
  if (!decoder) return {{"error", decoder.error().describe()}};
  const uint32_t n_vocab = loaded->shape.n_vocab;
  auto pp = engine::time_prompt(**decoder, n_vocab, pass_prompt(setup));
  if (!pp) return {{"error", pp.error().describe()}};
  auto tg = engine::time_generation(**decoder, n_vocab, pass_steps(level));
  if (!tg) return {{"error", tg.error().describe()}};
  (void)device;
  return {{"tokens_match", true},
          {"reason", ""},
          {"tg_tokens", pass_steps(level)},
          {"pp_tok_s", pp->tokens_per_second()},
          {"prompt_gflops",
           engine::flops_per_token(loaded->shape, loaded->mix) * pp->tokens_per_second() / 1e9},
          {"tok_s", tg->tokens_per_second()},
          {"peak_bytes", opened.peak_bytes()},
          {"reference", true}};
}

// The cpu device: the reference's graph with its fast products, compared with the exact
// reference as any device is (a decode check: a 3-token prompt, then the level's steps; a pass
// check as check_pass runs it).
core::Json cpu_check(const engine::model::GgufFile& model, const DecodeSetup& setup, CheckKind kind,
                     core::Level level, backends::Device& opened) {
  auto loaded = engine::loader::load_to_device(model, opened, {});
  if (!loaded) return {{"error", loaded.error().describe()}};
  const auto& c = setup.config;
  const bool pass = kind == CheckKind::pass;
  const uint32_t prompt = pass ? pass_prompt(setup) : 3;
  const uint32_t steps = pass ? pass_steps(level) : decode_steps(level);
  const uint32_t context =
      c.context != 0 ? c.context : std::min(loaded->shape.context, prompt + steps);
  auto decoder = engine::make_decoder(opened, *loaded,
                                      {.kv = c.kv,
                                       .context = context,
                                       .micro_batch = pass ? c.micro_batch : 1,
                                       .sequences = c.sequences});
  if (!decoder) return {{"error", decoder.error().describe()}};
  engine::device::PassSpec spec{c.kv,        c.compute, context, pass ? c.micro_batch : 1,
                                c.sequences, prompt,    steps,   true};
  auto r = engine::device::compare_with_reference(**decoder, model, spec);
  if (!r) return {{"error", r.error().describe()}};
  auto j = check_to_json(*r);
  j["tg_tokens"] = steps;
  j["peak_bytes"] = opened.peak_bytes();
  return j;
}

// A placed profile: the split over this device and the host against the host reference.
core::Json placed_check(const engine::model::GgufFile& model, const DecodeSetup& setup,
                        core::Level level, backends::Device& opened, const core::Options& options) {
  // This device, and each other device the placement names (the host, other GPUs with -ts).
  std::vector<std::unique_ptr<backends::Device>> others;
  std::vector<backends::Device*> devices;
  for (const auto& name : setup.placement->devices) {
    if (name == opened.name()) {
      devices.push_back(&opened);
      continue;
    }
    auto other = backends::open(*core::DeviceId::parse(name), options);
    if (!other) return {{"error", other.error().describe()}};
    others.push_back(std::move(*other));
    devices.push_back(others.back().get());
  }
  const auto& c = setup.config;
  auto check = engine::check_placement(*setup.placement, devices, model,
                                       {c.kv, c.compute, c.context, c.micro_batch, c.sequences,
                                        pass_prompt(setup), pass_steps(level)});
  if (!check) return {{"error", check.error().describe()}};
  auto j = check_to_json(check->result);
  j["tg_tokens"] = pass_steps(level);
  core::Json devices_json = core::Json::array();
  for (size_t d = 0; d < check->planned.size(); ++d) {
    devices_json.push_back({{"device", check->planned[d].device},
                            {"planned_bytes", check->planned[d].total()},
                            {"peak_bytes", check->peak_bytes[d]}});
  }
  j["devices"] = devices_json;
  const size_t self =
      std::find(setup.placement->devices.begin(), setup.placement->devices.end(), opened.name()) -
      setup.placement->devices.begin();
  j["peak_bytes"] = check->peak_bytes.at(self);
  j["planned_peak_bytes"] = check->planned.at(self).total();
  return j;
}

std::string check_name(CheckKind kind) {
  return kind == CheckKind::decode   ? "decode"
         : kind == CheckKind::pass   ? "pass"
         : kind == CheckKind::placed ? "placed"
                                     : "context";
}

// One check of a child, its result appended to `results`.
void run_item(const core::DeviceInfo& device, const std::filesystem::path& file,
              const DecodeSetup& setup, CheckKind kind, core::Level level, backends::Device& opened,
              const engine::model::GgufFile& model, engine::device::KernelCache& kernels,
              const core::Options& options, core::Json& results) {
  if (kind == CheckKind::placed) {
    results.push_back(placed_check(model, setup, level, opened, options));
    return;
  }
  if (device.products == core::Products::int8_simd) {
    results.push_back(cpu_check(model, setup, kind, level, opened));
    return;
  }
  if (device.id.api == core::Api::host && kind == CheckKind::pass) {
    results.push_back(host_pass(device, file, setup, level, opened));
    return;
  }
  if (device.id.api == core::Api::host) {
    engine::DecodeRequest request;
    request.model_path = file;
    request.kv = setup.config.kv;
    request.n_tokens = decode_steps(level);
    request.context = setup.config.context;
    auto report = engine::run_decode(request, opened);
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
    return;
  }
  auto result = kind == CheckKind::decode
                    ? engine::device::check_decode(opened, model, setup.config, {1, 2, 3},
                                                   decode_steps(level), &kernels)
                : kind == CheckKind::pass
                    ? engine::device::check_pass(opened, model, setup.config, pass_prompt(setup),
                                                 pass_steps(level), &kernels)
                    : engine::device::check_context(opened, model, setup.config,
                                                    setup.config.context, &kernels);
  if (!result) {
    results.push_back({{"error", result.error().describe()}});
  } else {
    auto j = check_to_json(*result);
    if (kind != CheckKind::context) {
      j["tg_tokens"] = kind == CheckKind::pass ? pass_steps(level) : decode_steps(level);
    }
    results.push_back(std::move(j));
  }
}

// One child: open the device and the model, run the items in order.
core::Json run_items_in_child(const core::DeviceInfo& device, const std::filesystem::path& file,
                              const std::vector<Candidate>& candidates,
                              const std::vector<RunItem>& items, const core::Options& options,
                              core::Level level, double share_s) {
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
  CheckBudget budget(share_s);
  for (const auto& item : items) {
    const std::string kind = check_name(item.kind);
    if (!budget.fits(kind)) {
      results.push_back({{"not_run", "time_budget"}});
      continue;
    }
    const auto started = std::chrono::steady_clock::now();
    run_item(device, file, candidates[item.candidate].setup, item.kind, level, **opened, **model,
             kernels, options, results);
    options.slow_down_as_faulted(core::seconds_since(started));
    const double seconds = core::seconds_since(started);
    results.back()["seconds"] = seconds;
    budget.took(kind, seconds);
  }
  return results;
}

// The format whose passes the quick level runs (one per device: a 512-token pass costs more than
// a whole decode check).
bool runs_passes_at_quick_level(FileType format) { return format == FileType::q8_0; }

// The one-token key with a quantized KV cache and f32 activations, the whole vector when it fits.
std::optional<std::string> quantized_kv_decode_key(
    const std::map<std::string, std::vector<size_t>>& keys,
    const std::vector<Candidate>& candidates) {
  std::optional<std::string> found;
  for (const auto& [key, indices] : keys) {
    const auto& s = candidates[indices.front()].setup;
    if (!s.config.kv.quantized() || s.config.compute != engine::planner::ActivationType::f32 ||
        is_pass(s) || s.placement) {
      continue;
    }
    if (!found || !s.tiled) found = key;
    if (!s.tiled) break;
  }
  return found;
}

// The runs a level asks for, per format: the default key only at quick, every key otherwise;
// a decode check at each one-token key's smallest context and an attention check at its largest;
// a pass check at each pass key's smallest context that holds its prompt and generated tokens.
// The quick level runs the passes of one format, with the default key's family where it fits
// (else the tiled one).
std::map<FileType, std::vector<RunItem>> plan_runs(const std::vector<Candidate>& candidates,
                                                   const ModelSet& models, core::Level level,
                                                   bool host) {
  std::map<FileType, std::map<std::string, std::vector<size_t>>> by_key;
  std::vector<size_t> placed;
  for (size_t i = 0; i < candidates.size(); ++i) {
    const auto& c = candidates[i];
    if (!c.runnable) continue;
    if (!models.files.count(c.setup.config.weights)) continue;
    if (c.setup.placement) {
      // The quick level checks the placement's hand-over with one pass of 32 tokens.
      const bool quick = level == core::Level::quick;
      if (!quick || ((models.user_file || runs_passes_at_quick_level(c.setup.config.weights)) &&
                     c.setup.config.micro_batch == 32)) {
        placed.push_back(i);
      }
      continue;
    }
    if (level == core::Level::quick && !models.user_file &&
        !runs_at_quick_level(c.setup.config.weights)) {
      continue;
    }
    by_key[c.setup.config.weights][setup_key(c.setup)].push_back(i);
  }
  std::map<FileType, std::vector<RunItem>> plan;
  for (auto& [format, keys] : by_key) {
    // The quick level's choice for the format; the levels above run it first, then the rest,
    // so that a time budget that runs out leaves out the least telling checks.
    std::vector<std::string> chosen;
    // The default: f32 activations and KV cache, the whole vector when it fits (fewer passes).
    std::vector<std::string> suffixes{"/b1"};
    if (models.user_file || runs_passes_at_quick_level(format)) {
      for (const auto& pass : planned_passes(core::Level::quick, models.shape)) {
        if (pass.micro_batch == 1 && pass.sequences == 1) continue;
        suffixes.push_back("/b" + std::to_string(pass.sequences) +
                           (pass.micro_batch > 1 ? "/mb" + std::to_string(pass.micro_batch) : ""));
      }
    }
    for (const auto& suffix : suffixes) {
      for (const char* family : {"f32/f32/whole", "f32/f32/tiled"}) {
        if (keys.count(family + suffix)) {
          chosen.push_back(family + suffix);
          break;
        }
      }
    }
    // And one decode with the quantized KV cache, through flash attention.
    if (models.user_file || runs_passes_at_quick_level(format)) {
      if (auto key = quantized_kv_decode_key(keys, candidates)) chosen.push_back(*key);
    }
    if (level != core::Level::quick) {
      for (const auto& [key, indices] : keys) {
        if (std::find(chosen.begin(), chosen.end(), key) == chosen.end()) chosen.push_back(key);
      }
    }
    for (const auto& key : chosen) {
      auto& indices = keys[key];
      std::sort(indices.begin(), indices.end(), [&](size_t a, size_t b) {
        return candidates[a].setup.config.context < candidates[b].setup.config.context;
      });
      const auto& first = candidates[indices.front()].setup;
      if (is_pass(first)) {
        const uint32_t need = pass_prompt(first) + pass_steps(level);
        for (size_t i : indices) {
          if (candidates[i].setup.config.context >= need) {
            plan[format].push_back({i, CheckKind::pass});
            break;
          }
        }
        continue;
      }
      plan[format].push_back({indices.front(), CheckKind::decode});
      // The quick level checks the quantized cache's decode only; its attention over the
      // longest context (the slowest check on a CPU driver) from the standard level on.
      const bool quick_quantized = level == core::Level::quick && first.config.kv.quantized();
      if (!host && !quick_quantized && indices.size() > 1) {
        plan[format].push_back({indices.back(), CheckKind::context});
      }
    }
  }
  for (size_t i : placed) {
    plan[candidates[i].setup.config.weights].push_back({i, CheckKind::placed});
  }
  return plan;
}

void apply_result(Candidate& c, const core::Json& r, const std::string& device, CheckKind kind,
                  const core::Options& options) {
  auto& p = c.profile;
  if (r.contains("not_run")) {
    p.reason = left_out_by_budget(options);
    p.cause = reports::Cause{"not_run", "time_budget", {{"budget_s", level_budget_s(options)}}};
    return;
  }
  core::Row row = core::make_row(check_name(kind) + ":" + p.name, device, core::RowStatus::pass);
  row.duration_s = r.value("seconds", 0.0);
  if (r.contains("error")) {
    row.status = core::RowStatus::error;
    row.reason = r["error"].get<std::string>();
    if (r.contains("crash")) {
      row.status = core::row_status_from_string(r["crash"].get<std::string>())
                       .value_or(core::RowStatus::error);
    }
    p.verdict = reports::ProfileVerdict::unsafe;
    p.reason = row.reason;
    p.cause = reports::Cause{row.status == core::RowStatus::crash     ? "crash"
                             : row.status == core::RowStatus::timeout ? "timeout"
                                                                      : "error",
                             check_name(kind),
                             {}};
  } else {
    const std::string reason = r.value("reason", "");
    p.figures.tok_s = r.value("tok_s", 0.0);
    p.figures.peak_bytes = r.value("peak_bytes", uint64_t{0});
    if (r.contains("tg_tokens")) p.figures.tg_tokens = r["tg_tokens"].get<uint32_t>();
    if (r.contains("logits_nmse")) p.figures.logits_nmse = r["logits_nmse"].get<double>();
    if (r.contains("effective_gbps")) p.figures.effective_gbps = r["effective_gbps"].get<double>();
    if (kind == CheckKind::pass || kind == CheckKind::placed) {
      const auto& s = c.setup;
      p.figures.pp_tok_s = r.value("pp_tok_s", 0.0);
      p.figures.pp_tokens = pass_prompt(s) * s.config.sequences;
      if (r.value("prompt_gflops", 0.0) > 0)
        p.figures.achieved_gflops = r["prompt_gflops"].get<double>();
    }
    row.metrics = r;
    if (reason.empty()) {
      p.verdict = reports::ProfileVerdict::safe;
      const auto& cfg = c.setup.config;
      const std::string passes =
          cfg.micro_batch > 1
              ? "a prompt of " + std::to_string(cfg.micro_batch) + " tokens in one pass"
              : std::to_string(cfg.sequences) + " sequences decoded together";
      p.reason = kind == CheckKind::placed
                     ? p.placement_shares + ": " +
                           (cfg.sequences > 1 ? passes
                            : cfg.micro_batch > 1
                                ? "a prompt in passes of " + std::to_string(cfg.micro_batch)
                                : std::string("one token at a time")) +
                           ", matched the host reference"
                 : r.value("reference", false)
                     ? kind == CheckKind::pass
                           ? "host reference engine: ran " + passes + " and measured"
                           : "host reference engine: decoded and measured"
                 : kind == CheckKind::decode ? "decoded and matched the host reference"
                 : kind == CheckKind::pass   ? passes + ": matched the host reference"
                                             : "attention over a full KV cache matched the host "
                                               "reference";
      if (!r.value("note", "").empty()) p.reason += "; " + r.value("note", "");
    } else {
      row.status = core::RowStatus::fail;
      row.reason = reason;
      p.verdict = reports::ProfileVerdict::unsafe;
      p.reason = reason;
      p.cause = reports::Cause{"mismatch", check_name(kind), {}};
      if (r.contains("logits_nmse")) p.cause->figures["logits_nmse"] = *p.figures.logits_nmse;
    }
  }
  p.evidence.push_back(row.id);
  p.rows.push_back(row);
}

// What the machine's signals add to a check's verdict: a cause makes it unsafe whatever its
// logits did; throttling is said beside a safe verdict's figures.
void apply_evidence(Candidate& c, const core::Json& evidence) {
  auto& p = c.profile;
  if (const auto cause = evidence_cause(evidence)) {
    p.verdict = reports::ProfileVerdict::unsafe;
    p.reason = describe(*cause);
    p.cause = *cause;
    return;
  }
  const std::string note = evidence_throttle_note(evidence);
  if (!note.empty() && p.verdict == reports::ProfileVerdict::safe) p.reason += "; " + note;
}

// Profiles that were not run take their verdict from the runs of their key: a one-token key from
// its decode and attention checks, a pass key from its pass check and the attention checks of its
// family's one-token key.
void settle_unrun(std::vector<Candidate>& candidates, core::Level level, bool interrupted) {
  struct Ran {
    uint32_t first = 0, longest = 0;
    std::string failure;
  };
  std::map<std::string, Ran> ran;
  std::map<std::string, std::vector<Candidate*>> by_key;
  auto format_key = [](const Candidate& c, const std::string& key) {
    return std::string(engine::model::to_string(c.setup.config.weights)) + "/" + key;
  };
  for (auto& c : candidates) {
    const std::string key = format_key(c, setup_key(c.setup));
    by_key[key].push_back(&c);
    if (c.profile.rows.empty()) continue;
    auto& r = ran[key];
    if (c.profile.verdict == reports::ProfileVerdict::safe) {
      if (r.first == 0 || c.setup.config.context < r.first) r.first = c.setup.config.context;
      r.longest = std::max(r.longest, c.setup.config.context);
    } else {
      r.failure = c.profile.name + ": " + c.profile.reason;
    }
  }
  for (auto& [key, group] : by_key) {
    const Ran own = ran[key];
    const bool pass = is_pass(group.front()->setup);
    const uint32_t attention =
        pass ? std::max(own.longest,
                        ran[format_key(*group.front(), decode_key(group.front()->setup))].longest)
             : own.longest;
    for (auto* c : group) {
      auto& p = c->profile;
      if (!p.rows.empty() || p.verdict != reports::ProfileVerdict::untested || !c->runnable)
        continue;
      if (p.cause && p.cause->subject == "time_budget") continue;
      const uint32_t ctx = c->setup.config.context;
      auto not_run = [&p](const char* subject, std::string reason) {
        p.reason = std::move(reason);
        p.cause = reports::Cause{"not_run", subject, {}};
      };
      if (interrupted) {
        not_run("interrupted", "not run: the run was interrupted");
      } else if (!own.failure.empty()) {
        not_run("failed_check",
                "not run; a check of the same configuration failed: " + own.failure);
      } else if (own.first != 0 && ctx <= attention) {
        p.verdict = reports::ProfileVerdict::derived;
        p.reason = std::string("fits by the planner; ") +
                   (pass ? "passes verified at ctx " : "decode verified at ctx ") +
                   std::to_string(own.first) + " and attention at ctx " + std::to_string(attention);
      } else if (own.first != 0) {
        not_run("attention",
                "not run: attention was verified up to ctx " + std::to_string(attention));
        p.cause->figures["verified_context"] = attention;
      } else if (level == core::Level::quick && c->setup.placement) {
        not_run("level",
                "not run at the quick level, which checks a placement of Q8_0 with a pass of "
                "32 tokens (--level standard checks one token, 512 and 4 sequences)");
      } else if (level == core::Level::quick) {
        not_run("level",
                pass ? "not run at the quick level, which runs the passes of Q8_0's default "
                       "variant (--level standard runs every pass)"
                     : "not run at the quick level, which runs the default variant of F16, "
                       "Q8_0 and Q4_K_M (--level standard runs every variant of every format)");
      } else {
        not_run("no_model", "not run: no model file of this format");
      }
    }
  }
}

}  // namespace

core::Status run_profiles(const core::DeviceInfo& device, const ModelSet& models,
                          std::vector<Candidate>& candidates, const core::Options& options,
                          Journal& journal, const Progress& progress,
                          const std::atomic<bool>* interrupted, DeviceWatch& watch,
                          const DeviceClock& clock) {
  const std::string dev = device.id.to_string();
  const bool host = device.id.api == core::Api::host;
  auto plan = plan_runs(candidates, models, options.level, host);
  const StageProgress stage(progress, dev, "profiles");
  bool stopped = false;
  size_t formats_left = plan.size();
  for (const auto& [format, items] : plan) {
    // Each format gets a fair share of what is left: the ones after it are covered too.
    const double share_s = clock.left_s() / static_cast<double>(formats_left--);
    if (interrupted != nullptr && interrupted->load()) {
      stopped = true;
      break;
    }
    const std::string unit = "profiles:" + dev + ":" + engine::model::to_string(format);
    core::Json results;
    std::optional<core::Json> evidence;
    if (const auto* saved = journal.find(unit)) {
      results = *saved;
      if (const auto* kept = watch.restore(unit, journal)) evidence = *kept;
      progress(ProgressKind::detail,
               dev + ": " + engine::model::to_string(format) + " profiles (from the journal)");
    } else {
      progress(ProgressKind::detail, dev + ": decoding " + engine::model::to_string(format) + " (" +
                                         std::to_string(items.size()) + " checks) ...");
      // The share bounds the checks started; the limit, past it, only a check that hangs.
      core::IsolationLimits limits;
      limits.timeout = std::chrono::seconds(static_cast<int64_t>(share_s) +
                                            (options.level == core::Level::quick ? 180 : 600));
      const auto& file = models.files.at(format);
      watch.begin(unit);
      // A structured binding named in the lambda by a reference of its own (clang before 16 does
      // not capture bindings).
      const auto& format_items = items;
      auto run = core::run_isolated(unit, dev, limits, [&] {
        return run_items_in_child(device, file, candidates, format_items, options, options.level,
                                  share_s);
      });
      evidence = watch.end(&journal).to_json();
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
      if (run.completed) {
        std::string took;
        for (const auto& r : results) {
          char text[32];
          std::snprintf(text, sizeof text, "%s%.1f s", took.empty() ? "" : ", ",
                        r.value("seconds", 0.0));
          took += text;
        }
        progress(ProgressKind::detail,
                 dev + ": " + engine::model::to_string(format) + " checks took " + took);
      }
    }
    try {
      for (size_t i = 0; i < items.size() && i < results.size(); ++i) {
        apply_result(candidates[items[i].candidate], results.at(i), dev, items[i].kind, options);
        if (evidence) apply_evidence(candidates[items[i].candidate], *evidence);
      }
    } catch (const core::Json::exception& e) {
      return core::make_error(core::ErrorKind::invalid_argument,
                              "journal " + journal.path().string() + ": the entry of '" + unit +
                                  "' is damaged: " + e.what());
    }
  }
  settle_unrun(candidates, options.level, stopped);
  std::map<reports::ProfileVerdict, size_t> verdicts;
  for (const auto& c : candidates) ++verdicts[c.profile.verdict];
  stage.done(std::to_string(verdicts[reports::ProfileVerdict::safe]) + " safe, " +
             std::to_string(verdicts[reports::ProfileVerdict::unsafe]) + " unsafe, " +
             std::to_string(verdicts[reports::ProfileVerdict::derived]) + " derived, " +
             std::to_string(verdicts[reports::ProfileVerdict::untested]) + " untested of " +
             std::to_string(candidates.size()));
  return core::Status::ok();
}

}  // namespace gauntlet::harness
