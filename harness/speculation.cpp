#include "harness/speculation.h"

#include <chrono>

#include "backends/catalog.h"
#include "core/isolate.h"
#include "engine/decode.h"
#include "harness/soak.h"

namespace gauntlet::harness {

namespace {

// The child: the plain greedy decode and the speculative one, as `gauntlet decode -md` (or
// `--mtp`) runs them.
core::Json speculate(const core::DeviceInfo& device, const std::filesystem::path& file,
                     const Candidate& c, const std::filesystem::path& draft,
                     const core::Options& options) {
  auto opened = backends::open(device.id, options);
  if (!opened) return {{"error", opened.error().describe()}};
  engine::DecodeRequest request;
  request.model_path = file;
  request.prompt = {1, 7, 42, 3};
  request.n_tokens = kSpeculationTokens;
  request.kv = c.setup.config.kv;
  request.flash_attention = c.setup.config.flash_attention;
  request.draft_path = draft;
  request.mtp = draft.empty();
  auto report = engine::run_decode(request, **opened);
  if (!report) return {{"error", report.error().describe()}};
  if (!report->speculative) return {{"error", "the decode ran without its draft"}};
  const auto& s = *report->speculative;
  const double tokens = static_cast<double>(s.tokens.size());
  return {{"tokens_match", s.tokens_match},
          {"first_difference", s.first_difference},
          {"drafted", s.stats.drafted},
          {"accepted", s.stats.accepted},
          {"plain_tok_s", s.plain_seconds > 0 ? tokens / s.plain_seconds : 0.0},
          {"speculative_tok_s", s.tokens_per_second()}};
}

}  // namespace

reports::SpeculationResult run_speculation(const core::DeviceInfo& device, const ModelSet& models,
                                           const std::vector<Candidate>& candidates,
                                           const std::filesystem::path& draft,
                                           const core::Options& options, DeviceWatch& watch,
                                           const Progress& progress) {
  reports::SpeculationResult result;
  result.draft = draft.empty() ? std::string(kMtpDrafter) : draft.string();
  result.tokens = kSpeculationTokens;
  const auto chosen = heaviest_safe(candidates, models);
  if (!chosen) {
    result.error = "no safe profile of the whole model on the device to decode with";
    return result;
  }
  const Candidate& c = candidates[*chosen];
  result.profile = c.profile.name;
  const std::string dev = device.id.to_string();
  progress(ProgressKind::detail, dev + ": speculative decoding with " +
                                     std::filesystem::path(result.draft).filename().string() +
                                     " on " + result.profile + " ...");
  core::IsolationLimits limits;
  limits.timeout = std::chrono::seconds(300);
  watch.begin("speculative:" + dev);
  auto run = core::run_isolated("speculative", dev, limits, [&] {
    return speculate(device, models.files.at(c.setup.config.weights), c, draft, options);
  });
  watch.end();
  if (!run.completed) {
    result.error = run.failure.reason;
    return result;
  }
  const auto& r = run.payload;
  result.error = r.value("error", std::string());
  if (!result.error.empty()) return result;
  result.tokens_match = r.at("tokens_match").get<bool>();
  result.first_difference = r.at("first_difference").get<uint64_t>();
  result.drafted = r.at("drafted").get<uint64_t>();
  result.accepted = r.at("accepted").get<uint64_t>();
  result.plain_tok_s = r.at("plain_tok_s").get<double>();
  result.speculative_tok_s = r.at("speculative_tok_s").get<double>();
  return result;
}

void apply_speculation(const reports::SpeculationResult& result,
                       std::vector<Candidate>& candidates) {
  if (!result.error.empty() || result.tokens_match) return;
  for (auto& c : candidates) {
    if (c.profile.name != result.profile) continue;
    auto& p = c.profile;
    p.verdict = reports::ProfileVerdict::unsafe;
    p.reason = "speculative decoding with the draft " +
               std::filesystem::path(result.draft).filename().string() +
               " changed the greedy tokens from token " + std::to_string(result.first_difference);
    p.cause = reports::Cause{"mismatch",
                             "speculative",
                             {{"first_difference", static_cast<double>(result.first_difference)}}};
  }
}

}  // namespace gauntlet::harness
