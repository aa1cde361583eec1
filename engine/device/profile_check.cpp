// check_decode and check_context: device decode against the CPU reference.
#include "engine/device/profile_check.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>

#include "core/half.h"
#include "engine/device/device_decoder.h"
#include "engine/device/reference_memo.h"
#include "engine/loader/loader.h"
#include "engine/reference/decoder.h"
#include "engine/reference/kv_rows.h"
#include "engine/speed.h"

namespace gauntlet::engine::device {

namespace {

using Clock = std::chrono::steady_clock;

struct Steps {
  std::vector<int32_t> fed;
  std::vector<std::vector<float>> logits;
};

struct Loaded {
  model::LoadedModel host;
  loader::DeviceModel device;
  uint32_t context = 0;
  DecodeConfig config;  // the configuration with that context
};

core::Result<Loaded> load_both(backends::Device& device, const model::GgufFile& file,
                               const DecodeConfig& config, uint32_t context) {
  auto host = model::load_model(file.info(), file.bytes());
  if (!host) return host.error();
  if (host->file_type != config.weights) {
    return core::make_error(core::ErrorKind::invalid_argument,
                            std::string("the model's weights are ") +
                                model::to_string(host->file_type) + ", the configuration says " +
                                model::to_string(config.weights));
  }
  DecodeConfig c = config;
  c.context = context;
  GAUNTLET_TRY(check_config(device.info(), device.info().local_mem_size, host->shape, c));
  device.reset_peak();
  auto loaded = loader::load_to_device(file, device, {});
  if (!loaded) return loaded.error();
  return Loaded{std::move(*host), std::move(*loaded), context, c};
}

std::string scientific(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2e", value);
  return text;
}

void finish_result(CheckResult& r, const DecodeConfig& config, uint32_t positions) {
  r.nmse_bound = logits_nmse_bound(config, positions);
  r.tokens_match = r.device_tokens == r.host_tokens;
  if (!r.tokens_match && r.note.empty()) {
    r.reason = "greedy tokens differ from the host reference";
    for (size_t i = 0; i < std::min(r.device_tokens.size(), r.host_tokens.size()); ++i) {
      if (r.device_tokens[i] != r.host_tokens[i]) {
        r.reason += " at token " + std::to_string(i) + " (device " +
                    std::to_string(r.device_tokens[i]) + ", host " +
                    std::to_string(r.host_tokens[i]) + ")";
        break;
      }
    }
  }
  if (!(r.logits_nmse <= r.nmse_bound)) {
    if (!r.reason.empty()) r.reason += "; ";
    r.reason += "logits NMSE " + scientific(r.logits_nmse) + " > bound " + scientific(r.nmse_bound);
  }
}

// Where the tested decoder's greedy token (`got`) first parts from the reference's (`want`) at
// `step`: a note when the reference's logits of the two differ by no more than the error scale
// (the square root of the NMSE bound, times the RMS of the logits), a near tie that an error within
// the bound may part; empty otherwise (the parting fails the check).
std::string near_tie_note(std::span<const float> host, int32_t want, int32_t got, size_t step,
                          double error_scale) {
  double sum = 0;
  for (float x : host) sum += static_cast<double>(x) * x;
  const double rms = std::sqrt(sum / static_cast<double>(host.size()));
  const double gap = host[static_cast<size_t>(want)] - host[static_cast<size_t>(got)];
  if (gap > error_scale * rms) return {};
  return "greedy tokens part at step " + std::to_string(step) + " on a near tie: host logits " +
         scientific(host[static_cast<size_t>(want)]) + " (token " + std::to_string(want) +
         ") and " + scientific(host[static_cast<size_t>(got)]) + " (token " + std::to_string(got) +
         ") differ by less than the error scale " + scientific(error_scale * rms);
}

}  // namespace

core::Result<CheckResult> compare_greedy(Decoder& tested, Decoder& reference,
                                         std::span<const int32_t> prompt, uint32_t steps,
                                         const DecodeConfig& c) {
  CheckResult r;
  Steps dev, host;
  Clock::time_point gen_start = Clock::now();
  auto record = [&](Steps& into, bool time_it) {
    return [&into, &gen_start, time_it, n = prompt.size()](uint32_t step, int32_t token,
                                                           std::span<const float> logits) {
      into.fed.push_back(token);
      into.logits.emplace_back(logits.begin(), logits.end());
      if (time_it && step + 1 == n) gen_start = Clock::now();
    };
  };
  tested.reset();
  auto dev_tokens = reference::greedy_decode([&](int32_t t) { return tested.step(t); }, prompt,
                                             steps, record(dev, true));
  if (!dev_tokens) return dev_tokens.error();
  const double seconds = std::chrono::duration<double>(Clock::now() - gen_start).count();
  r.device_tokens = *dev_tokens;
  if (steps > 1 && seconds > 0) r.tokens_per_second = (steps - 1) / seconds;
  reference.reset();
  auto host_tokens = reference::greedy_decode([&](int32_t t) { return reference.step(t); }, prompt,
                                              steps, record(host, false));
  if (!host_tokens) return host_tokens.error();
  r.host_tokens = *host_tokens;
  const double error_scale =
      std::sqrt(logits_nmse_bound(c, static_cast<uint32_t>(prompt.size() + steps)));
  for (size_t i = 0; i < std::min(dev.fed.size(), host.fed.size()); ++i) {
    if (dev.fed[i] != host.fed[i]) break;
    r.logits_nmse = std::max(r.logits_nmse, nmse(dev.logits[i], host.logits[i]));
    const int32_t want = reference::argmax(host.logits[i]);
    const int32_t got = reference::argmax(dev.logits[i]);
    if (want != got && i + 1 >= prompt.size()) {
      r.note = near_tie_note(host.logits[i], want, got, i, error_scale);
      break;
    }
  }
  finish_result(r, c, static_cast<uint32_t>(prompt.size() + steps));
  return r;
}

core::Result<CheckResult> check_decode(backends::Device& device, const model::GgufFile& file,
                                       const DecodeConfig& config, std::vector<int32_t> prompt,
                                       uint32_t steps, KernelCache* kernels) {
  if (prompt.empty()) {
    return core::make_error(core::ErrorKind::invalid_argument, "the prompt needs a token");
  }
  auto shape = model::read_model_shape(file.info());
  if (!shape) return shape.error();
  const uint64_t needed = prompt.size() + steps;
  const uint32_t context = config.context != 0
                               ? config.context
                               : static_cast<uint32_t>(std::min<uint64_t>(needed, shape->context));
  if (needed > context) {
    return core::make_error(
        core::ErrorKind::invalid_argument,
        std::to_string(needed) + " positions are over the context of " + std::to_string(context));
  }
  auto both = load_both(device, file, config, context);
  if (!both) return both.error();
  const DecodeConfig& c = both->config;
  auto decoder = DeviceDecoder::create(device, both->device, c, kernels);
  if (!decoder) return decoder.error();
  auto ref = reference::Decoder::create(both->host, {{.kv = config.kv, .context = context}});
  if (!ref) return ref.error();
  auto r = compare_greedy(**decoder, **ref, prompt, steps, c);
  if (!r) return r.error();
  r->device_peak_bytes = device.peak_bytes();
  r->planned_peak_bytes =
      planner::plan_memory(both->host.shape, {config.weights, context, config.sequences, config.kv,
                                              16ull << 20, both->host.tensors, config.micro_batch})
          .steady_state;
  const uint32_t mid = static_cast<uint32_t>(prompt.size() + steps / 2);
  r->effective_gbps = static_cast<double>(bytes_read_per_token(both->host.shape, both->host.tensors,
                                                               config.kv, mid)) *
                      r->tokens_per_second / 1e9;
  return r;
}

namespace {

// One sequence's tokens and the logits it produced (the prompt's last, then each step's).
struct SequenceRun {
  std::vector<int32_t> prompt, generated;
  std::vector<std::vector<float>> logits;
};

// Feeds every sequence's prompt in one forward (logits of each last token), then `steps` passes
// of one token per sequence, each the argmax of its last logits. The prompts go position by
// position (each sequence's first token, then each one's second, ...), as a server batches them:
// a pass then holds one token of every sequence. Sequence by sequence, a micro-batch of 1 split
// the prompts into passes of one token, and the passes of several sequences went untested.
core::Result<double> run_sequences(Decoder& decoder, std::vector<SequenceRun>& seqs,
                                   uint32_t n_vocab, uint32_t steps, double* prompt_seconds) {
  auto fwd = [&decoder](std::span<const BatchToken> b) { return decoder.forward(b); };
  std::vector<BatchToken> batch;
  std::vector<uint32_t> logits_order;  // the sequence of each prompt logits row, in batch order
  size_t longest = 0;
  for (const auto& q : seqs) longest = std::max(longest, q.prompt.size());
  for (size_t i = 0; i < longest; ++i) {
    for (uint32_t s = 0; s < seqs.size(); ++s) {
      if (i >= seqs[s].prompt.size()) continue;
      const bool last = i + 1 == seqs[s].prompt.size();
      batch.push_back({seqs[s].prompt[i], s, last});
      if (last) logits_order.push_back(s);
    }
  }
  auto start = Clock::now();
  auto logits = fwd(batch);
  if (!logits) return logits.error();
  if (prompt_seconds) *prompt_seconds = std::chrono::duration<double>(Clock::now() - start).count();
  auto take_one = [&](uint32_t s, std::span<const float> one) {
    seqs[s].logits.emplace_back(one.begin(), one.end());
    seqs[s].generated.push_back(reference::argmax(one));
  };
  for (size_t row = 0; row < logits_order.size(); ++row) {
    take_one(logits_order[row], logits->subspan(row * n_vocab, n_vocab));
  }
  auto take = [&](std::span<const float> all) {
    for (uint32_t s = 0; s < seqs.size(); ++s) take_one(s, all.subspan(s * n_vocab, n_vocab));
  };
  start = Clock::now();
  for (uint32_t i = 0; i + 1 < steps; ++i) {
    batch.clear();
    for (uint32_t s = 0; s < seqs.size(); ++s) batch.push_back({seqs[s].generated.back(), s, true});
    auto next = fwd(batch);
    if (!next) return next.error();
    take(*next);
  }
  return std::chrono::duration<double>(Clock::now() - start).count();
}

}  // namespace

namespace {

// Every 32nd prompt token and the last: logits that cover every token tile of a pass and its far
// end, without downloading the logits of the whole prompt.
bool compared_in_prompt(size_t i, size_t n) { return i % 32 == 31 || i + 1 == n; }

constexpr uint64_t kPromptRun = 1, kSequenceRun = 2;  // which kind of run a memo key names

// The reference fed the prompt in one pass (the compared positions' logits), then each of the
// tested decoder's generated tokens but its last: the logits to compare, and the argmax of the
// prompt's last and of each step.
core::Result<ReferenceRun> reference_prompt_then_steps(Decoder& ref,
                                                       std::span<const BatchToken> prompt,
                                                       std::span<const int32_t> generated,
                                                       uint32_t n_vocab) {
  ReferenceRun run;
  auto want = ref.forward(prompt);
  if (!want) return want.error();
  for (size_t at = 0; at < want->size(); at += n_vocab) {
    const auto one = want->subspan(at, n_vocab);
    run.logits.emplace_back(one.begin(), one.end());
  }
  run.tokens.push_back(reference::argmax(run.logits.back()));
  for (size_t i = 0; i + 1 < generated.size(); ++i) {
    const BatchToken next{generated[i], 0, true};
    auto step = ref.forward(std::span(&next, 1));
    if (!step) return step.error();
    run.logits.emplace_back(step->begin(), step->end());
    run.tokens.push_back(reference::argmax(*step));
  }
  return run;
}

// Untimed, before a timed run: a pass of two tokens (of one sequence, or one each of two) and a
// step of one build the kernels both kinds of forward use (on a GPU driver a pipeline's first use
// compiles it: an H200's first steps after a pass ran at 20 tok/s against 991 warm), then the
// decoder starts over.
core::Status build_kernels(Decoder& decoder, int32_t token, bool two_sequences) {
  const uint32_t second = two_sequences ? 1 : 0;
  const BatchToken two[] = {{token, 0, two_sequences}, {token, second, true}};
  GAUNTLET_TRY(decoder.forward(two));
  decoder.reset();
  GAUNTLET_TRY(decoder.step(token));
  decoder.reset();
  return core::Status::ok();
}

// One sequence: the prompt in passes of the micro-batch (timed), then `steps` greedy tokens
// (timed); the host reference fed the same tokens (the prompt in one pass, which is bit for bit
// its token-by-token decode) gives the logits to compare. The device's own token-by-token decode
// would serve too (the EngineBatch tests compare with it), but on a CPU driver its 512 steps took
// twice the reference's time.
core::Status prompt_against_reference(Decoder& tested, const model::GgufFile& file,
                                      const model::LoadedModel& host, const PassSpec& c,
                                      double error_scale, CheckResult& r, double& prompt_seconds,
                                      double& gen_seconds) {
  const uint32_t n_vocab = host.shape.n_vocab, prompt_tokens = c.prompt_tokens, steps = c.steps;
  Decoder* batched = &tested;
  const auto prompt = bench_tokens(prompt_tokens, n_vocab, 1);
  std::vector<BatchToken> batch;
  for (size_t i = 0; i < prompt.size(); ++i) {
    batch.push_back({prompt[i], 0, compared_in_prompt(i, prompt.size())});
  }
  GAUNTLET_TRY(build_kernels(*batched, prompt[0], false));
  std::vector<std::vector<float>> got;
  auto start = Clock::now();
  auto logits = batched->forward(batch);
  if (!logits) return logits.error();
  prompt_seconds = std::chrono::duration<double>(Clock::now() - start).count();
  for (size_t at = 0; at < logits->size(); at += n_vocab) {
    got.emplace_back(logits->begin() + at, logits->begin() + at + n_vocab);
  }
  start = Clock::now();
  for (uint32_t i = 0; i < steps; ++i) {
    const int32_t next = reference::argmax(got.back());
    r.device_tokens.push_back(next);
    if (i + 1 == steps) break;
    auto step = batched->step(next);
    if (!step) return step.error();
    got.emplace_back(step->begin(), step->end());
  }
  gen_seconds = std::chrono::duration<double>(Clock::now() - start).count();

  std::vector<uint64_t> parts = {kPromptRun, uint64_t(c.kv.k), uint64_t(c.kv.v),
                                 c.context,  prompt_tokens,    steps};
  parts.insert(parts.end(), r.device_tokens.begin(), r.device_tokens.end());
  const auto key = reference_key(file, parts);
  auto want = find_reference_run(key);
  if (!want) {
    auto ref = reference::Decoder::create(
        host, {{.kv = c.kv, .context = c.context, .micro_batch = prompt_tokens}});
    if (!ref) return ref.error();
    auto run = reference_prompt_then_steps(**ref, batch, r.device_tokens, n_vocab);
    if (!run) return run.error();
    keep_reference_run(key, *run);
    want = std::move(*run);
  }
  for (size_t i = 0; i < got.size() && i < want->logits.size(); ++i) {
    r.logits_nmse = std::max(r.logits_nmse, nmse(got[i], want->logits[i]));
  }
  r.host_tokens = want->tokens;
  // The reference was fed the tested decoder's tokens: logits row first_step + k gave token k.
  const size_t first_step = want->logits.size() - want->tokens.size();
  for (size_t k = 0; k < r.device_tokens.size() && k < want->tokens.size(); ++k) {
    if (r.device_tokens[k] == want->tokens[k]) continue;
    r.note = near_tie_note(want->logits[first_step + k], want->tokens[k], r.device_tokens[k], k,
                           error_scale);
    break;
  }
  return core::Status::ok();
}

}  // namespace

core::Result<CheckResult> compare_with_reference(Decoder& tested, const model::GgufFile& file,
                                                 const PassSpec& spec) {
  auto host = model::load_model(file.info(), file.bytes());
  if (!host) return host.error();
  const auto& s = host->shape;
  const uint32_t n_seq = std::max(spec.sequences, 1u);
  const uint32_t prompt_tokens = spec.prompt_tokens, steps = spec.steps, context = spec.context;
  CheckResult r;
  DecodeConfig bound;
  bound.kv = spec.kv;
  bound.compute = spec.compute;
  bound.q8_activations = spec.q8_activations;
  const double error_scale = std::sqrt(logits_nmse_bound(bound, prompt_tokens + steps));
  double prompt_seconds = 0, gen_seconds = 0;
  if (n_seq == 1) {
    GAUNTLET_TRY(prompt_against_reference(tested, file, *host, spec, error_scale, r, prompt_seconds,
                                          gen_seconds));
  } else {
    // A parting in any sequence that is not a near tie fails the check, whatever the others'.
    bool every_part_near_tie = true;
    // Sequences together: each against its own decode on the host reference (short prompts).
    std::vector<SequenceRun> dev(n_seq);
    for (uint32_t q = 0; q < n_seq; ++q) {
      dev[q].prompt = bench_tokens(prompt_tokens, s.n_vocab, q + 1);
    }
    GAUNTLET_TRY(build_kernels(tested, dev[0].prompt[0], true));
    auto gen = run_sequences(tested, dev, s.n_vocab, steps, &prompt_seconds);
    if (!gen) return gen.error();
    gen_seconds = *gen;
    for (uint32_t q = 0; q < n_seq; ++q) {
      const uint64_t parts[] = {
          kSequenceRun, uint64_t(spec.kv.k), uint64_t(spec.kv.v), context, prompt_tokens, steps, q};
      const auto key = reference_key(file, parts);
      auto host_run = find_reference_run(key);
      if (!host_run) {
        auto ref = reference::Decoder::create(
            *host, {{.kv = spec.kv, .context = context, .micro_batch = prompt_tokens}});
        if (!ref) return ref.error();
        std::vector<SequenceRun> one(1);
        one[0].prompt = dev[q].prompt;
        auto hs = run_sequences(**ref, one, s.n_vocab, steps, nullptr);
        if (!hs) return hs.error();
        host_run = ReferenceRun{std::move(one[0].logits), std::move(one[0].generated)};
        keep_reference_run(key, *host_run);
      }
      r.device_tokens.insert(r.device_tokens.end(), dev[q].generated.begin(),
                             dev[q].generated.end());
      r.host_tokens.insert(r.host_tokens.end(), host_run->tokens.begin(), host_run->tokens.end());
      for (size_t i = 0; i < std::min(dev[q].logits.size(), host_run->logits.size()); ++i) {
        r.logits_nmse = std::max(r.logits_nmse, nmse(dev[q].logits[i], host_run->logits[i]));
        if (dev[q].generated[i] == host_run->tokens[i]) continue;
        auto note = near_tie_note(host_run->logits[i], host_run->tokens[i], dev[q].generated[i], i,
                                  error_scale);
        every_part_near_tie = every_part_near_tie && !note.empty();
        if (r.note.empty() && !note.empty()) r.note = "sequence " + std::to_string(q) + ": " + note;
        break;
      }
    }
    if (!every_part_near_tie) r.note.clear();
  }
  if (prompt_seconds > 0) {
    r.prompt_tokens_per_second = static_cast<double>(prompt_tokens) * n_seq / prompt_seconds;
    r.prompt_gflops = flops_per_token(s, host->tensors) * r.prompt_tokens_per_second / 1e9;
  }
  if (steps > 1 && gen_seconds > 0) {
    r.tokens_per_second = static_cast<double>(steps - 1) * n_seq / gen_seconds;
  }
  finish_result(r, bound, prompt_tokens + steps);
  return r;
}

core::Result<CheckResult> check_pass(backends::Device& device, const model::GgufFile& file,
                                     const DecodeConfig& config, uint32_t prompt_tokens,
                                     uint32_t steps, KernelCache* kernels) {
  auto shape = model::read_model_shape(file.info());
  if (!shape) return shape.error();
  const uint32_t n_seq = std::max(config.sequences, 1u);
  const uint64_t needed = uint64_t{prompt_tokens} + steps;
  const uint32_t context = config.context != 0 ? config.context : shape->context;
  if (prompt_tokens == 0 || steps == 0 || needed > context) {
    return core::make_error(core::ErrorKind::invalid_argument,
                            "a pass check of " + std::to_string(prompt_tokens) + " + " +
                                std::to_string(steps) + " positions in a context of " +
                                std::to_string(context));
  }
  auto both = load_both(device, file, config, context);
  if (!both) return both.error();
  const DecodeConfig& c = both->config;
  auto decoder = DeviceDecoder::create(device, both->device, c, kernels);
  if (!decoder) return decoder.error();
  auto r = compare_with_reference(
      **decoder, file, {c.kv, c.compute, context, c.micro_batch, n_seq, prompt_tokens, steps});
  if (!r) return r.error();
  r->device_peak_bytes = device.peak_bytes();
  r->planned_peak_bytes =
      planner::plan_memory(both->host.shape, {config.weights, context, n_seq, config.kv,
                                              16ull << 20, both->host.tensors, config.micro_batch})
          .steady_state;
  return r;
}

core::Result<CheckResult> check_context(backends::Device& device, const model::GgufFile& file,
                                        const DecodeConfig& config, uint32_t context,
                                        KernelCache* kernels) {
  auto shape = model::read_model_shape(file.info());
  if (!shape) return shape.error();
  if (context == 0 || context > shape->context) {
    return core::make_error(
        core::ErrorKind::invalid_argument,
        "context " + std::to_string(context) + " is outside 1.." + std::to_string(shape->context));
  }
  DecodeConfig one = config;
  one.micro_batch = 1;
  one.sequences = 1;
  auto both = load_both(device, file, one, context);
  if (!both) return both.error();
  DecodeConfig c = one;
  c.context = context;
  c.micro_batch = 1;  // one decode step into a cache laid out as the reference's
  c.sequences = 1;
  const auto& s = both->host.shape;

  // Deterministic K and V in [-1, 1) for every layer and position before the last, each layer's
  // rows as wide as its own K and V (gemma4's differ by layer).
  const auto cache = planner::kv_layout(s, context);
  uint64_t k_bytes = 0, v_bytes = 0;
  for (uint32_t l = 0; l < s.n_layer; ++l) {
    k_bytes += cache.slots[l] * planner::kv_row_bytes(config.kv.k, s.n_embd_kv(l));
    v_bytes += cache.slots[l] * planner::kv_row_bytes(config.kv.v, s.n_embd_kv(l));
  }
  std::vector<std::byte> k(k_bytes), v(v_bytes);
  auto value = [](uint64_t i, uint64_t salt) {
    uint64_t z = (i + salt) * 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return static_cast<float>(static_cast<double>(z >> 11) / 9007199254740992.0 * 2.0 - 1.0);
  };
  uint64_t row = 0, k_at = 0, v_at = 0;
  for (uint32_t l = 0; l < s.n_layer; ++l) {
    const uint64_t n_kv = s.n_embd_kv(l);
    std::vector<float> kf(n_kv), vf(n_kv);
    for (uint32_t slot = 0; slot < cache.slots[l]; ++slot, ++row) {
      const uint64_t pos = row % context;
      for (uint64_t j = 0; j < n_kv; ++j) {
        const uint64_t i = row * n_kv + j;
        kf[j] = pos + 1 < context ? value(i, 1) : 0.0f;
        vf[j] = pos + 1 < context ? value(i, 2) : 0.0f;
      }
      reference::store_kv_row(config.kv.k, kf.data(), k.data() + k_at, static_cast<uint32_t>(n_kv));
      reference::store_kv_row(config.kv.v, vf.data(), v.data() + v_at, static_cast<uint32_t>(n_kv));
      k_at += planner::kv_row_bytes(config.kv.k, n_kv);
      v_at += planner::kv_row_bytes(config.kv.v, n_kv);
    }
  }
  const int32_t token = static_cast<int32_t>(1 % s.n_vocab);

  CheckResult r;
  auto decoder = DeviceDecoder::create(device, both->device, c, kernels);
  if (!decoder) return decoder.error();
  // Untimed, a step at position 0 builds the step's kernels (a GPU driver compiles a pipeline at
  // its first use: an H200's first step at 8192 positions took 95 ms); the fill then overwrites
  // what it stored and starts the position over.
  GAUNTLET_TRY((*decoder)->step(token));
  GAUNTLET_TRY((*decoder)->fill_kv(k, v, context - 1));
  const auto start = Clock::now();
  auto dev_logits = (*decoder)->step(token);
  if (!dev_logits) return dev_logits.error();
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  r.device_tokens = {reference::argmax(*dev_logits)};
  r.device_peak_bytes = device.peak_bytes();
  r.planned_peak_bytes = planner::plan_memory(s, {config.weights, context, 1, config.kv,
                                                  16ull << 20, both->host.tensors})
                             .steady_state;
  if (seconds > 0) {
    r.tokens_per_second = 1.0 / seconds;
    r.effective_gbps =
        static_cast<double>(bytes_read_per_token(s, both->host.tensors, config.kv, context)) /
        seconds / 1e9;
  }

  reference::ThreadPool pool(0);
  std::vector<float> act(planner::activation_layout(s, context).total);
  reference::KvCacheView view{k.data(), v.data(), config.kv, context};
  // A hybrid's recurrent state starts from zero on both sides (DeviceDecoder::fill_kv).
  std::vector<float> state(planner::state_layout(s).per_sequence);
  if (!state.empty()) view.state = state.data();
  GAUNTLET_TRY(
      reference::forward_token(s, both->host.weights, view, act.data(), token, context - 1, pool));
  std::span<const float> host_logits(act.data() + planner::activation_layout(s, context).logits,
                                     s.n_vocab);
  r.host_tokens = {reference::argmax(host_logits)};
  r.logits_nmse = nmse(*dev_logits, host_logits);
  finish_result(r, c, context);
  return r;
}

}  // namespace gauntlet::engine::device
