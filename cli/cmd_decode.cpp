// gauntlet decode: greedy decode on a device, with tok/s, peak memory and bandwidth; a thin shell
// over engine::run_decode, which the harness calls too.
#include <algorithm>
#include <charconv>
#include <fstream>
#include <iostream>
#include <sstream>

#include "cli/commands.h"
#include "cli/format.h"
#include "cli/kv_cache_flags.h"
#include "cli/model_flags.h"
#include "cli/placement_flags.h"
#include "core/json.h"
#include "core/options.h"
#include "engine/decode.h"
#include "stress/bandwidth.h"

namespace gauntlet::cli {

namespace {

struct DecodeArgs {
  ModelFlags source;
  PlacementFlags placement;
  std::string tokens = "1", dump, kv = "f32";
  KvCacheFlags kv_cache;
  uint32_t n = 32;
  uint32_t context = 0;
  unsigned threads = 0;
  uint64_t chunk_mib = 16;
  bool json = false;
  bool profile = false;
  std::string draft, draft_device;  // -md, -devd
  bool mtp = false;
  uint32_t draft_max = 16, draft_min = 0;
};

// The device's copy and read bandwidth, measured after the decode in the same run (the decode's
// figures compare with them): stress's kernels over 128 MiB, or the host's memcpy on the host.
struct MeasuredBandwidth {
  double copy_gbps = 0, read_gbps = 0;
  std::string error;
};

MeasuredBandwidth measure_bandwidth(backends::Device& device) {
  MeasuredBandwidth m;
  const uint64_t bytes = stress::kBandwidthBytes;
  if (device.info().id.api == core::Api::host) {
    m.copy_gbps = stress::measure_host_memcpy_gbps(bytes);
    return m;
  }
  const uint64_t size = std::min(bytes, device.info().max_mem_alloc_size);
  auto a = device.allocate(size);
  auto b = a ? device.allocate(size) : core::Result<std::unique_ptr<backends::Buffer>>(a.error());
  if (!b) {
    m.error = b.error().describe();
    return m;
  }
  auto bw = stress::measure_device_bandwidth(device, **a, **b);
  if (!bw) {
    m.error = bw.error().describe();
    return m;
  }
  if (bw->copy_gbps <= 0) {
    m.error = "the copy of " + std::to_string(bw->bytes) + " bytes took no measurable time";
    return m;
  }
  m.copy_gbps = bw->copy_gbps;
  m.read_gbps = bw->read_gbps;
  return m;
}

std::string bandwidth_line(const engine::DecodeReport& rep, const MeasuredBandwidth& bw) {
  char line[256];
  std::snprintf(line, sizeof line, "%.2f GB/s effective (%s read per token)", rep.effective_gbps,
                format_bytes(rep.bytes_read_per_token).c_str());
  std::string out = line;
  if (!bw.error.empty()) return out + "; copy bandwidth not measured: " + bw.error;
  std::snprintf(line, sizeof line, ", copy %.2f GB/s", bw.copy_gbps);
  out += line;
  if (bw.read_gbps > 0) {
    std::snprintf(line, sizeof line, ", read %.2f GB/s", bw.read_gbps);
    out += line;
  }
  std::snprintf(line, sizeof line, "; %.2f of copy", rep.effective_gbps / bw.copy_gbps);
  return out + line;
}

// Device time per generated token, by kernel, largest first.
void print_profile(const engine::DecodeReport& rep) {
  const double steps = rep.generated.size() > 1 ? rep.generated.size() - 1.0 : 1.0;
  auto times = rep.kernel_times;
  std::sort(times.begin(), times.end(),
            [](const auto& a, const auto& b) { return a.seconds > b.seconds; });
  double total = 0;
  for (const auto& t : times) total += t.seconds;
  std::cout << "profile device time per generated token (each dispatch waited for, so tok/s above "
               "has no overlap)\n";
  for (const auto& t : times) {
    char line[160];
    std::snprintf(line, sizeof line, "  %-12s %6.1f dispatches %9.3f ms %5.1f %%\n",
                  t.kernel.c_str(), static_cast<double>(t.dispatches) / steps,
                  t.seconds / steps * 1e3, total > 0 ? 100.0 * t.seconds / total : 0.0);
    std::cout << line;
  }
}

void print_speculative(const engine::SpeculativeReport& s) {
  char line[256];
  std::snprintf(line, sizeof line,
                "speculative  draft %s on %s: %llu of %llu drafted tokens accepted (%.0f %%), "
                "%.2f s against %.2f s plain (%.2fx)\n",
                s.draft.c_str(), s.device.c_str(),
                static_cast<unsigned long long>(s.stats.accepted),
                static_cast<unsigned long long>(s.stats.drafted), 100.0 * s.stats.acceptance(),
                s.seconds, s.plain_seconds, s.speedup());
  std::cout << line;
  std::cout << (s.tokens_match ? "             the same greedy tokens as without it\n"
                               : "             DIFFERENT greedy tokens from token " +
                                     std::to_string(s.first_difference) + "\n");
}

// Speculation that changed the greedy tokens is a failure: with greedy sampling they are the
// target's alone.
int speculative_verdict(const engine::DecodeReport& rep) {
  if (!rep.speculative || rep.speculative->tokens_match) return kExitOk;
  std::cerr << "gauntlet decode: speculative decoding changed the greedy tokens from token "
            << rep.speculative->first_difference << "\n";
  return kExitFailures;
}

std::optional<std::vector<int32_t>> parse_tokens(const std::string& text) {
  std::vector<int32_t> out;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    int32_t v = 0;
    auto [p, ec] = std::from_chars(item.data(), item.data() + item.size(), v);
    if (ec != std::errc() || p != item.data() + item.size() || v < 0) return std::nullopt;
    out.push_back(v);
  }
  if (out.empty()) return std::nullopt;
  return out;
}

int decode(const DecodeArgs& a) {
  if (a.profile && (a.placement.devices == "host" || a.placement.devices == "cpu")) {
    return fail("--profile times OpenCL and Vulkan kernels; host and cpu run in this process",
                kExitUsage);
  }
  const auto source = model_source_from_flags(a.source);
  if (!source) return fail(source.error().message, kExitUsage);
  engine::DecodeRequest r;
  r.model_path = source->path;
  r.shape = source->shape;
  r.format = source->format;
  r.time_kernels = a.profile;
  if (a.kv != "f32" && a.kv != "f16") return fail("--kv must be f32 or f16", kExitUsage);
  const auto cache = engine_kv_cache(a.kv_cache, a.kv == "f16" ? engine::planner::KvPrecision::f16
                                                               : engine::planner::KvPrecision::f32);
  if (!cache) return fail(cache.error().message, kExitUsage);
  r.kv = cache->kv;
  r.flash_attention = cache->flash_attention;
  auto tokens = parse_tokens(a.tokens);
  if (!tokens) return fail("--tokens must be comma-separated token ids, e.g. 1,2,3", kExitUsage);
  r.prompt = *tokens;
  r.n_tokens = a.n;
  r.threads = a.threads;
  r.seed = a.source.seed;
  r.context = a.context;
  r.chunk_bytes = a.chunk_mib << 20;
  r.placement = a.placement.request();
  if (r.chunk_bytes == 0) return fail("--chunk-mib must be at least 1", kExitUsage);
  r.draft_path = a.draft;
  r.mtp = a.mtp;
  r.speculative = {a.draft_max, a.draft_min};
  if (a.mtp && !a.draft.empty()) {
    return fail("--mtp and --model-draft are two drafters; give one", kExitUsage);
  }
  if ((!a.draft.empty() || a.mtp) && (a.draft_max == 0 || a.draft_min > a.draft_max)) {
    return fail("--draft-max must be at least 1 and --draft-min at most --draft-max", kExitUsage);
  }
  if (a.draft.empty() && !a.draft_device.empty()) {
    return fail("--device-draft needs a draft model (-md)", kExitUsage);
  }

  std::ofstream dump;
  if (!a.dump.empty()) {
    dump.open(a.dump, std::ios::trunc);
    if (!dump) return fail("cannot write '" + a.dump + "'", kExitUsage);
    r.on_step = [&dump](uint32_t step, int32_t token, std::span<const float> logits) {
      core::OrderedJson line{{"step", step}, {"token", token}, {"logits", logits}};
      dump << line.dump() << "\n";
    };
  }
  auto options = core::Options::from_environment();
  if (!options) return fail(options.error().message, kExitUsage);
  auto opened = open_devices(a.placement.devices, *options);
  if (!opened) {
    const auto kind = opened.error().kind;
    return fail(opened.error().message, kind == core::ErrorKind::invalid_argument
                                            ? kExitUsage
                                            : exit_code_for_open(opened.error()));
  }
  std::optional<OpenedDevices> draft_device;
  if (!a.draft_device.empty()) {
    auto d = open_devices(a.draft_device, *options);
    if (!d) return fail("--device-draft: " + d.error().message, kExitUsage);
    if (d->devices.size() != 1) return fail("--device-draft names one device", kExitUsage);
    draft_device = std::move(*d);
    r.draft_device = draft_device->devices.front();
  }
  auto rep = engine::run_decode(r, opened->devices, opened->host);
  if (!rep) {
    return fail(rep.error().message, rep.error().kind == core::ErrorKind::invalid_argument ||
                                             rep.error().kind == core::ErrorKind::not_found
                                         ? kExitUsage
                                         : kExitFailures);
  }
  if (dump.is_open() && !dump.flush())
    return fail("writing '" + a.dump + "' failed", kExitFailures);
  for (const auto& note : rep->placement_notes) std::cerr << "gauntlet decode: " << note << "\n";
  const MeasuredBandwidth bw = measure_bandwidth(*opened->devices.front());
  if (a.json) {
    auto j = rep->to_json();
    if (bw.error.empty()) {
      j["bandwidth"]["copy_gbps"] = bw.copy_gbps;
      if (bw.read_gbps > 0) j["bandwidth"]["read_gbps"] = bw.read_gbps;
      j["bandwidth"]["ratio_to_copy"] = rep->effective_gbps / bw.copy_gbps;
    } else {
      j["bandwidth"]["copy_error"] = bw.error;
    }
    std::cout << j.dump(2) << "\n";
    return speculative_verdict(*rep);
  }
  std::cout << "model   " << rep->shape.name << " " << engine::model::to_string(rep->format) << " ("
            << format_bytes(rep->plan.weights) << " of weights) on " << rep->device << ", context "
            << rep->context << "\n";
  std::cout << "tokens ";
  for (int32_t t : rep->generated) std::cout << " " << t;
  std::cout << "\n";
  char speed[64];
  std::snprintf(speed, sizeof speed, "%.2f", rep->tokens_per_second);
  std::cout << "speed   " << speed << " tok/s (" << rep->generated.size() << " tokens after a "
            << rep->prompt.size() << "-token prompt; load " << rep->load_seconds << " s)\n";
  std::cout << "memory  device peak " << format_bytes(rep->device_peak_bytes) << " (planned "
            << format_bytes(rep->plan.steady_state) << "), process peak RSS "
            << format_bytes(rep->rss_peak_bytes) << "\n";
  std::cout << "bandwidth " << bandwidth_line(*rep, bw) << "\n";
  if (a.profile) print_profile(*rep);
  if (rep->speculative) print_speculative(*rep->speculative);
  return speculative_verdict(*rep);
}

}  // namespace

void add_decode_command(CLI::App& app, CommandContext& context) {
  auto a = std::make_shared<DecodeArgs>();
  auto* cmd = app.add_subcommand("decode",
                                 "Greedy decode of a model on a device: tokens, "
                                 "tok/s, peak memory, and the decode's effective bandwidth "
                                 "beside the device's copy bandwidth");
  add_model_flags(*cmd, a->source);
  add_placement_flags(*cmd, a->placement);
  cmd->add_option("--tokens", a->tokens, "the prompt's token ids, e.g. 1,2,3 (default 1)");
  cmd->add_option("-n", a->n, "tokens to generate (default 32)");
  cmd->add_option("--context", a->context, "KV cache positions (default prompt + n)");
  cmd->add_option("--kv", a->kv, "KV cache precision: f32 or f16 (default f32)");
  add_engine_kv_cache_flags(*cmd, a->kv_cache);
  cmd->add_option("--threads", a->threads, "CPU threads (default: all)");
  cmd->add_option("--chunk-mib", a->chunk_mib, "load chunk in MiB (default 16)");
  cmd->add_option("--dump-logits", a->dump, "write each step's logits as JSON lines");
  cmd->add_flag("--json", a->json, "print JSON");
  cmd->add_flag("--profile", a->profile,
                "device time per kernel (OpenCL, Vulkan); waits for each dispatch, so tok/s drops");
  cmd->add_option("--model-draft", a->draft,
                  "-md: a draft model (same vocabulary) for speculative decoding: after the plain "
                  "decode the same tokens again with it proposing; different greedy tokens are a "
                  "failure (exit 1); a draft with recurrent layers is refused (a hybrid target "
                  "saves and restores its state around each check)");
  cmd->add_flag("--mtp", a->mtp,
                "speculative decoding with the model file's own MTP head (qwen35's nextn block) "
                "drafting on the host, checked as -md is");
  cmd->add_option("--draft-max", a->draft_max,
                  "the most tokens drafted for one check by the target (default 16)");
  cmd->add_option("--draft-min", a->draft_min,
                  "fewer tokens than this left to draft, the target steps alone (default 0)");
  cmd->add_option(
      "--device-draft", a->draft_device,
      "-devd: the draft's device: host, cpu, opencl:N or vulkan:N (default the target's)");
  cmd->callback([&context, a] { context.exit_code = decode(*a); });
}

}  // namespace gauntlet::cli
