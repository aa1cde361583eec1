#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "cli/data_files.h"
#include "cli/kv_cache_flags.h"
#include "cli/placement_flags.h"
#include "harness/run.h"
#include "reports/render.h"

namespace gauntlet::cli {

namespace {

std::atomic<bool> g_interrupted{false};

void on_stop_signal(int) { g_interrupted = true; }

// SIGINT and SIGTERM let the unit in progress finish, then the report is written with
// "complete": false and the journal kept for --resume.
void install_stop_handlers() {
  struct sigaction action {};
  action.sa_handler = on_stop_signal;
  sigemptyset(&action.sa_mask);
  ::sigaction(SIGINT, &action, nullptr);
  ::sigaction(SIGTERM, &action, nullptr);
}

// Progress on stderr. Without a terminal, each stage line as it is: one per stage of each device
// as it starts and one as it ends ("opencl:0 conform 31/31 rows pass 3.1 s"). On a terminal, one
// live line that every line, details included, rewrites; finish() clears it.
class ProgressPrinter {
 public:
  ProgressPrinter() : live_(::isatty(STDERR_FILENO) != 0) {}
  void operator()(harness::ProgressKind kind, const std::string& line) {
    if (live_) {
      std::string shown = "gauntlet: " + line;
      if (shown.size() > 160) shown = shown.substr(0, 157) + "...";
      std::cerr << "\r\033[K" << shown << std::flush;
      shown_ = true;
    } else if (kind == harness::ProgressKind::stage) {
      std::cerr << line << std::endl;
    }
  }
  void finish() {
    if (shown_) std::cerr << "\r\033[K" << std::flush;
    shown_ = false;
  }

 private:
  bool live_ = false;
  bool shown_ = false;
};

struct RunFlags {
  std::string out = "report.json";
  std::string format = "json";
  std::string model;
  std::string shape;
  std::string simulate;
  bool resume = false;
  bool quiet = false;
  bool verbose = false;
  LayerFlags layers;
  KvCacheFlags kv_cache;
  std::string draft;
  std::string projector;
  std::string spec_type;
  uint32_t parallel = 1;
};

}  // namespace

void add_run_command(CLI::App& app, CommandContext& context) {
  auto* command = app.add_subcommand(
      "run",
      "The whole pipeline: doctor, enumerate, probe, conform, stress, plan profiles, run the "
      "decode engine per profile, and write the report of safe and unsafe configurations");
  add_device_flags(*command, context);
  auto flags = std::make_shared<RunFlags>();
  add_level_flag(*command, context);
  command->add_option("--out", flags->out,
                      "the report file (default report.json); written "
                      "atomically, with a journal beside it while running");
  command
      ->add_option("--format", flags->format,
                   "json (default), text, md, html or junit; for other than json the JSON "
                   "report is written beside --out with a .json extension")
      ->check(CLI::IsMember({"json", "text", "md", "markdown", "html", "junit"}));
  auto* model = command->add_option("--model", flags->model, "a GGUF model to plan and decode");
  command
      ->add_option("--shape", flags->shape,
                   "a synthetic model of a preset shape, or dims such as "
                   "n_embd=128,n_layer=2,n_head=2,n_ff=11008,n_vocab=256,context=4096 (see "
                   "`gauntlet model make --help`); default: the built-in quick model")
      ->excludes(model);
  command->add_option("--model-draft", flags->draft,
                      "-md: a draft model (a GGUF of the model's vocabulary) the fit answer "
                      "plans beside the model, as llama.cpp's server holds it: its weights and "
                      "its own context (the model's context, --parallel slots and micro-batch), "
                      "every layer on the device; and on each device, speculative decoding is "
                      "checked by running it: the heaviest safe profile's 64 greedy tokens with "
                      "the draft proposing must be the plain ones (else that profile is unsafe), "
                      "with the draft's acceptance and the speed-up in the report");
  command->add_option("--mmproj", flags->projector,
                      "a vision projector (an mmproj GGUF of type qwen3vl_merger, its output the "
                      "model's width) the fit answer plans beside the model, as llama.cpp's mtmd "
                      "loads it: its weights and the compute buffer of its warmup image, on the "
                      "device");
  command
      ->add_option("--spec-type", flags->spec_type,
                   "draft-mtp: the fit answer plans the model's own MTP head in use, as "
                   "llama.cpp's --spec-type draft-mtp loads it: its MTP blocks' weights and an "
                   "MTP context of the model's context, slots and micro-batch (a qwen35 file "
                   "with nextn_predict_layers); and without -md, speculative decoding with that "
                   "head drafting (on the host) is checked on each device as -md's is")
      ->check(CLI::IsMember({"draft-mtp"}));
  command
      ->add_option("--parallel", flags->parallel,
                   "-np: the slots the fit answer's context is shared by (default 1); each holds "
                   "n_vocab floats of output, the draft's context as many")
      ->check(CLI::Range(1, 256));
  command->add_option("--simulate", flags->simulate,
                      "clamp device limits to a target device: a JSON file, or a preset: "
                      "m2-32k-local, mali-3g-no-bf16, arc-16g, arc-8g, rtx-24g, h100-80g, "
                      "h200-141g, and the shared-memory strix-halo-128g, gb10-128g (one pool "
                      "for the GPU side and the host side of a placement)");
  command
      ->add_option("--time-budget", context.options.time_budget_s,
                   "seconds each device may take (default: the level's, quick 120, standard "
                   "900, full 3600); the memory steps verify a sample of their chunks and the "
                   "profile checks run by priority to stay within it, and the report says what "
                   "it left out")
      ->check(CLI::Range(10.0, 86400.0));
  command
      ->add_option("--soak", context.options.soak_s,
                   "after each device's checks, hold its heaviest safe profile (the largest "
                   "weight format, then the longest context, decoded from an empty cache over "
                   "and over) for this many seconds, outside the time budget, and report its "
                   "speed cold and steady, the decline, the hottest temperature and what the "
                   "machine's signals saw (--level soak: 300)")
      ->check(CLI::Range(5.0, 86400.0));
  add_layer_flags(*command, flags->layers,
                  "-ngl: the placed profiles' layer slots on each device, the rest on the "
                  "host (default: the fit answer's for a format that does not fit whole, "
                  "else half)",
                  "-ts: the placed profiles share the offloaded slots between the selected "
                  "OpenCL/Vulkan devices by these shares, e.g. 1,1");
  add_kv_cache_flags(*command, flags->kv_cache);
  command->add_flag("--resume", flags->resume,
                    "continue an interrupted run from the journal beside --out");
  command->add_flag("--quiet", flags->quiet,
                    "no progress on stderr (by default a line as each stage of each device starts "
                    "and ends; on a terminal one live line)");
  command->add_flag("--verbose", flags->verbose,
                    "the summary lists every profile with its verdict and reason, beside the "
                    "causes; each OpenCL kernel's build log is printed on stderr");
  command->callback([&context, flags] {
    harness::RunConfig config;
    config.options = context.options;
    config.options.show_build_logs = flags->verbose;
    config.out = flags->out;
    config.format = reports::parse_format(flags->format).value();
    config.model_path = flags->model;
    config.shape = flags->shape;
    config.simulate = resolve_simulate(flags->simulate);
    config.placement = flags->layers.request();
    config.resume = flags->resume;
    auto cache = fit_cache(flags->kv_cache);
    if (!cache) {
      std::cerr << "gauntlet run: " << cache.error().message << "\n";
      context.exit_code = kExitUsage;
      return;
    }
    config.fit_cache = *cache;
    config.fit_cache.sequences = flags->parallel;
    config.draft_path = flags->draft;
    config.projector_path = flags->projector;
    config.plan_mtp = flags->spec_type == "draft-mtp";
    auto printer = std::make_shared<ProgressPrinter>();
    if (!flags->quiet) {
      config.progress = [printer](harness::ProgressKind kind, const std::string& line) {
        (*printer)(kind, line);
      };
    }
    install_stop_handlers();
    config.interrupted = &g_interrupted;
    auto outcome = harness::run(config);
    printer->finish();
    if (!outcome) {
      std::cerr << "gauntlet run: " << outcome.error().describe() << "\n";
      context.exit_code = kExitUsage;
      return;
    }
    reports::RenderOptions render_options;
    render_options.all = flags->verbose;
    std::cout << reports::render_text(outcome->report, render_options);
    std::cout << "report: " << outcome->json_path.string();
    if (!outcome->rendered_path.empty()) std::cout << ", " << outcome->rendered_path.string();
    std::cout << (outcome->report.complete ? "" : " (incomplete: interrupted; --resume continues)")
              << "\n";
    if (!outcome->baseline_path.empty()) {
      std::cout << "baseline for `gauntlet health`: " << outcome->baseline_path.string() << "\n";
    } else if (!outcome->baseline_note.empty()) {
      std::cerr << "gauntlet run: " << outcome->baseline_note << "\n";
    }
    context.exit_code = outcome->report.complete ? outcome->exit_code : kExitInterrupted;
  });
}

}  // namespace gauntlet::cli
