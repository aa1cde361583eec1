// gauntlet bench: prompt processing (pp<N>) and generation (tg<N>) speed on one device as
// llama-bench measures them, one row per test, mean ± stddev over repetitions; a thin shell over
// engine/bench.
#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <optional>

#include "cli/bench_output.h"
#include "cli/commands.h"
#include "cli/format.h"
#include "cli/kv_cache_flags.h"
#include "cli/model_flags.h"
#include "cli/placement_flags.h"
#include "core/options.h"
#include "engine/bench.h"
#include "engine/cpu/fast_products.h"
#include "engine/loader/loader.h"
#include "engine/make_decoder.h"
#include "engine/model/loaded_model.h"
#include "engine/model_source.h"
#include "engine/speed.h"
#include "harness/unit_signals.h"

namespace gauntlet::cli {

namespace {

int bench_fail(const std::string& message, int code) {
  return fail(message, code, "gauntlet bench");
}

struct BenchArgs {
  ModelFlags source;
  PlacementFlags placement;
  std::string output = "md";
  std::vector<std::string> n_prompt = {"512"}, n_gen = {"128"};
  uint32_t repetitions = 5;
  uint32_t micro_batch = 512;
  unsigned threads = 0;
  KvCacheFlags kv_cache;
  double hold_s = 0;  // --hold
  std::string draft;  // -md: tg tests with a draft proposing
  bool mtp = false;   // --mtp: with the model file's MTP head proposing
  uint32_t draft_max = 16, draft_min = 0;
};

// What the machine's signals said while the tests ran: a cause, throttling, or nothing; with the
// hottest temperature where a sensor reads one.
std::string signals_summary(const harness::UnitEvidence& evidence) {
  std::string text = "signals during the tests: ";
  if (const auto cause = evidence.cause()) {
    text += harness::describe(*cause);
  } else if (const auto note = evidence.throttle_note(); !note.empty()) {
    text += note;
  } else {
    text += "no throttling, error counter or kernel line";
  }
  const auto hottest = evidence.hottest_c();
  char degrees[48] = "; no temperature sensor";
  if (hottest) std::snprintf(degrees, sizeof degrees, "; hottest %.0f °C", *hottest);
  return text + degrees;
}

// An error from the model or the device: the user's input (a bad file, a shape that does not
// fit) is exit 2, anything else exit 1.
int fail_with(const std::string& what, const core::Error& error) {
  const bool input =
      error.kind == core::ErrorKind::invalid_argument || error.kind == core::ErrorKind::not_found;
  return bench_fail(what + error.describe(), input ? kExitUsage : kExitFailures);
}

// "512" or "64,512" (CLI11 splits at the commas; a flag may also repeat): whole numbers >= 0.
std::optional<std::vector<uint32_t>> parse_counts(const std::vector<std::string>& items) {
  std::vector<uint32_t> out;
  for (const auto& item : items) {
    uint32_t v = 0;
    auto [p, ec] = std::from_chars(item.data(), item.data() + item.size(), v);
    if (item.empty() || ec != std::errc() || p != item.data() + item.size()) return std::nullopt;
    out.push_back(v);
  }
  return out;
}

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& i : items) out += (out.empty() ? "" : ",") + i;
  return out;
}

const char* backend_name(core::Api api) {
  switch (api) {
    case core::Api::opencl:
      return "OpenCL";
    case core::Api::vulkan:
      return "Vulkan";
    default:
      return "host";
  }
}

int bench(const BenchArgs& a) {
  const uint32_t micro_batch = a.micro_batch;
  const auto source = model_source_from_flags(a.source);
  if (!source) return bench_fail(source.error().message, kExitUsage);
  if (a.output != "md" && a.output != "json" && a.output != "csv") {
    return bench_fail("-o must be md, json or csv, not '" + a.output + "'", kExitUsage);
  }
  const auto n_prompt = parse_counts(a.n_prompt);
  if (!n_prompt) {
    return bench_fail(
        "-p must be prompt sizes >= 0, e.g. 512 or 64,512, not '" + joined(a.n_prompt) + "'",
        kExitUsage);
  }
  const auto n_gen = parse_counts(a.n_gen);
  if (!n_gen) {
    return bench_fail(
        "-n must be generation lengths >= 0, e.g. 128 or 16,128, not '" + joined(a.n_gen) + "'",
        kExitUsage);
  }
  if (a.repetitions == 0) return bench_fail("-r must be at least 1", kExitUsage);
  if (a.mtp && !a.draft.empty()) {
    return bench_fail("--mtp and --model-draft are two drafters; give one", kExitUsage);
  }
  if (micro_batch == 0) return bench_fail("the micro-batch (-ub) must be at least 1", kExitUsage);
  const auto tests = engine::bench_tests(*n_prompt, *n_gen);
  if (tests.empty()) return bench_fail("nothing to run: every -p and -n is 0", kExitUsage);

  auto options = core::Options::from_environment();
  if (!options) return bench_fail(options.error().message, kExitUsage);
  auto opened = open_devices(a.placement.devices, *options);
  if (!opened) {
    const auto& e = opened.error();  // its message names the devices there are
    return bench_fail(e.message, e.kind == core::ErrorKind::invalid_argument
                                     ? kExitUsage
                                     : exit_code_for_open(e));
  }
  auto file = engine::open_model(*source);
  if (!file) return fail_with("", file.error());
  auto host_view = engine::model::load_model((*file)->info(), (*file)->bytes());
  if (!host_view) return fail_with("", host_view.error());
  const auto& shape = host_view->shape;
  auto placed = engine::place(shape, a.placement.request(), opened->devices, opened->host);
  if (!placed) return fail_with("", placed.error());
  for (const auto& note : placed->placement.notes) std::cerr << "gauntlet bench: " << note << "\n";
  const std::string model_name = shape.name + " " + engine::model::to_string(host_view->file_type);

  // Each test starts from position 0: the KV cache holds the longest; a pass holds at most the
  // micro-batch, and never more than the longest prompt.
  uint32_t context = 0, longest_prompt = 1;
  for (const auto& t : tests) {
    context = std::max(context, t.tokens());
    longest_prompt = std::max(longest_prompt, t.n_prompt);
  }
  if (context > shape.context) {
    return bench_fail("a test of " + std::to_string(context) +
                          " tokens is over the model's context of " + std::to_string(shape.context),
                      kExitUsage);
  }
  const auto start = std::chrono::steady_clock::now();
  const auto cache = engine_kv_cache(a.kv_cache, engine::planner::KvPrecision::f32);
  if (!cache) return bench_fail(cache.error().message, kExitUsage);
  // Speculation checks up to draft_max drafted tokens and the newest in one pass.
  const bool speculate = !a.draft.empty() || a.mtp;
  const uint32_t pass = speculate ? std::max(std::min(micro_batch, longest_prompt), a.draft_max + 1)
                                  : std::min(micro_batch, longest_prompt);
  engine::DecoderSettings decoder_options{a.threads, cache->kv, context, pass};
  decoder_options.flash_attention = cache->flash_attention;
  auto decoder = engine::make_decoder(placed->placement, placed->devices, **file, decoder_options);
  if (!decoder) return fail_with("", decoder.error());
  const std::string where =
      placed->placement.whole() ? placed->devices.front()->name() : placed->placement.describe();
  std::fprintf(stderr, "gauntlet bench: %s loaded onto %s in %.2f s\n", model_name.c_str(),
               where.c_str(),
               std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());

  uint64_t params = 0;
  for (const auto& t : host_view->tensors) params += t.n_elements();
  uint64_t bytes = 0;
  for (const auto& t : host_view->tensors) bytes += t.bytes();
  const core::Api api = opened->devices.front()->info().id.api;
  const std::string device_name = placed->placement.whole()
                                      ? opened->devices.front()->name()
                                      : a.placement.devices + " " + placed->placement.label;
  // A draft model on the target's first device, proposing for the tg tests.
  std::unique_ptr<engine::model::GgufFile> draft_file;
  std::optional<engine::loader::DeviceModel> draft_model;
  std::unique_ptr<engine::Decoder> draft;
  if (!a.draft.empty()) {
    auto opened_draft = engine::open_model({a.draft, std::nullopt});
    if (!opened_draft) return fail_with("-md: ", opened_draft.error());
    draft_file = std::move(*opened_draft);
    auto draft_shape = engine::model::read_model_shape(draft_file->info());
    if (!draft_shape) return fail_with("-md: ", draft_shape.error());
    if (draft_shape->n_vocab != shape.n_vocab) {
      return bench_fail("the draft model's vocabulary (" + std::to_string(draft_shape->n_vocab) +
                            " tokens) is not the target's (" + std::to_string(shape.n_vocab) +
                            " tokens): a draft proposes the target's token ids",
                        kExitUsage);
    }
    auto loaded = engine::loader::load_to_device(*draft_file, *opened->devices.front(), {});
    if (!loaded) return fail_with("-md: ", loaded.error());
    draft_model = std::move(*loaded);
    engine::DecoderSettings draft_options = decoder_options;
    draft_options.micro_batch = 1;
    auto made = engine::make_decoder(*opened->devices.front(), *draft_model, draft_options);
    if (!made) return fail_with("-md: ", made.error());
    draft = std::move(*made);
  }
  std::unique_ptr<engine::MtpHead> head;
  if (a.mtp) {
    auto made = engine::MtpHead::create((*file)->info(), (*file)->bytes(), *host_view, context,
                                        a.threads, engine::cpu::make_fast_products());
    if (!made) return fail_with("--mtp: ", made.error());
    head = std::move(*made);
  }
  const engine::SpeculativeOptions speculative{a.draft_max, a.draft_min};

  // The machine's signals while the tests run (harness/unit_signals.h), said on stderr at the end.
  harness::DeviceWatch watch(opened->devices.front()->info(), *options);
  watch.begin("bench:" + opened->devices.front()->info().id.to_string());
  std::vector<BenchRow> rows;
  auto progress = [&](const engine::BenchTest& test, uint32_t rep, double ts) {
    if (rep == 0) {
      std::cerr << "gauntlet bench: " << test.name() << " warm-up\n";
    } else {
      std::fprintf(stderr, "gauntlet bench: %s %u/%u: %.2f t/s\n", test.name().c_str(), rep,
                   a.repetitions, ts);
    }
  };
  // A tgN test with a drafter is speculative decoding; every other test the plain one.
  auto run_test = [&](const engine::BenchTest& test, engine::SpeculativeStats& stats) {
    if (!speculate || test.n_gen == 0) {
      return engine::run_bench_test(**decoder, shape.n_vocab, test, a.repetitions, progress);
    }
    return engine::run_bench_test(
        draft ? engine::speculative_generation(**decoder, *draft, shape.n_vocab, test.n_gen,
                                               speculative, stats)
              : engine::mtp_generation(**decoder, *head, shape.n_vocab, test.n_gen, speculative,
                                       stats),
        test, a.repetitions, progress);
  };
  for (const auto& test : tests) {
    engine::SpeculativeStats stats;
    const bool drafted = speculate && test.n_gen != 0;
    auto result = run_test(test, stats);
    if (!result) return bench_fail(test.name() + ": " + result.error().describe(), kExitFailures);
    rows.push_back({model_name, bytes, params, backend_name(api), device_name,
                    opened->devices.front()->info().name, micro_batch,
                    engine::model::to_string(cache->kv.k), engine::model::to_string(cache->kv.v),
                    cache->flash_attention, *result, std::nullopt,
                    drafted ? std::optional{stats.acceptance()} : std::nullopt});
  }
  if (a.hold_s > 0) {
    // Held busy (the tests' own work, over and over), then every test again: a device that
    // throttles as it heats shows it in the second figure.
    std::fprintf(stderr, "gauntlet bench: holding the device busy for %.0f s\n", a.hold_s);
    const auto held_from = std::chrono::steady_clock::now();
    while (std::chrono::duration<double>(std::chrono::steady_clock::now() - held_from).count() <
           a.hold_s) {
      for (const auto& test : tests) {
        auto sample = test.n_prompt != 0
                          ? engine::time_prompt(**decoder, shape.n_vocab, test.n_prompt)
                          : engine::time_generation(**decoder, shape.n_vocab, test.n_gen);
        if (!sample) return bench_fail("hold: " + sample.error().describe(), kExitFailures);
      }
    }
    for (auto& row : rows) {
      engine::SpeculativeStats stats;
      auto result = run_test(row.result.test, stats);
      if (!result) {
        return bench_fail(row.result.test.name() + " held: " + result.error().describe(),
                          kExitFailures);
      }
      row.steady = *result;
    }
  }
  const auto evidence = watch.end();
  std::cerr << "gauntlet bench: " << signals_summary(evidence) << "\n";
  std::cout << (a.output == "json"  ? bench_json(rows)
                : a.output == "csv" ? bench_csv(rows)
                                    : bench_markdown(rows));
  return kExitOk;
}

}  // namespace

void add_bench_command(CLI::App& app, CommandContext& context) {
  auto a = std::make_shared<BenchArgs>();
  auto* cmd = app.add_subcommand(
      "bench",
      "Prompt processing (ppN) and generation (tgN) speed on one device as llama-bench measures "
      "them: one untimed warm-up, then -r repetitions from an empty KV cache; one row per test "
      "with tok/s as mean ± stddev. Results on stdout, progress on stderr");
  add_model_flags(*cmd, a->source);
  add_placement_flags(*cmd, a->placement);
  cmd->add_option("-p,--n-prompt", a->n_prompt,
                  "prompt sizes, comma-separated: a ppN row each; 0 skips (default 512)")
      ->delimiter(',');
  cmd->add_option("-n,--n-gen", a->n_gen,
                  "generation lengths, comma-separated: a tgN row each; 0 skips (default 128)")
      ->delimiter(',');
  cmd->add_option("-r,--repetitions", a->repetitions, "timed repetitions per test (default 5)");
  cmd->add_option("--micro-batch,--ubatch-size", a->micro_batch,
                  "-ub: the most prompt tokens in one pass, as llama-bench's (default 512)");
  cmd->add_option("-t,--threads", a->threads, "host: CPU threads (default: all)");
  add_engine_kv_cache_flags(*cmd, a->kv_cache);
  cmd->add_option("--hold", a->hold_s,
                  "after the tests, hold the device busy for this many seconds (generating from "
                  "an empty cache over and over), then run every test again: a 't/s held' column "
                  "(held_avg_ts in JSON) beside the cold one")
      ->check(CLI::Range(1.0, 86400.0));
  cmd->add_option("--model-draft", a->draft,
                  "-md: a draft model (a GGUF of the model's vocabulary) on the same device: each "
                  "tgN row is speculative decoding, the draft proposing and the model checking, "
                  "with the share of drafted tokens accepted (a draft with recurrent layers "
                  "cannot rewind and is refused; such a model saves and restores its state)");
  cmd->add_flag("--mtp", a->mtp,
                "each tgN row is speculative decoding with the model file's own MTP head "
                "(qwen35's nextn block) drafting on the host");
  cmd->add_option("--draft-max", a->draft_max,
                  "-md or --mtp: the most tokens drafted for one check (16)")
      ->check(CLI::Range(1, 256));
  cmd->add_option("--draft-min", a->draft_min,
                  "-md or --mtp: fewer than this left to draft, the model steps alone (0)");
  cmd->add_option("-o,--output", a->output, "md, json or csv (default md)");
  cmd->callback([&context, a] { context.exit_code = bench(*a); });
}

}  // namespace gauntlet::cli
