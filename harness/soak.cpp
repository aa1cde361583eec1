#include "harness/soak.h"

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "backends/catalog.h"
#include "core/clock.h"
#include "core/isolate.h"
#include "engine/loader/loader.h"
#include "engine/make_decoder.h"
#include "engine/model/gguf.h"
#include "engine/planner/planner.h"
#include "engine/speed.h"

namespace gauntlet::harness {

namespace {

constexpr size_t kMaxSamples = 120;
constexpr uint32_t kTokensPerSample = 32;

bool is_decode_on_device(const Candidate& c) {
  return c.profile.verdict == reports::ProfileVerdict::safe && c.profile.placement.empty() &&
         c.profile.batch == 1 && c.profile.micro_batch == 1;
}

// The child: open the device, load the file, decode kTokensPerSample tokens from an empty cache
// again and again until `seconds` have passed; each sample (seconds since the start, tok/s).
core::Json hold(const core::DeviceInfo& device, const std::filesystem::path& file,
                const Candidate& c, const core::Options& options, double seconds) {
  auto opened = backends::open(device.id, options);
  if (!opened) return {{"error", opened.error().describe()}};
  auto model = engine::model::GgufFile::open(file);
  if (!model) return {{"error", model.error().describe()}};
  auto loaded = engine::loader::load_to_device(**model, **opened, {});
  if (!loaded) return {{"error", loaded.error().describe()}};
  const auto& config = c.setup.config;
  const uint32_t context = std::max<uint32_t>(config.context, kTokensPerSample + 1);
  auto decoder = engine::make_decoder(
      **opened, *loaded, {0, config.kv, context, 1, 1, 16ull << 20, config.flash_attention});
  if (!decoder) return {{"error", decoder.error().describe()}};
  core::Json samples = core::Json::array();
  const auto started = std::chrono::steady_clock::now();
  while (core::seconds_since(started) < seconds) {
    auto sample = engine::time_generation(**decoder, loaded->shape.n_vocab, kTokensPerSample);
    if (!sample) return {{"error", sample.error().describe()}, {"samples", samples}};
    options.slow_down_as_faulted(sample->seconds);
    samples.push_back({core::seconds_since(started), sample->tokens_per_second()});
  }
  return {{"samples", samples}};
}

// At most kMaxSamples, each bucket's mean at its last sample's time.
std::vector<std::pair<double, double>> downsample(std::vector<std::pair<double, double>> all) {
  if (all.size() <= kMaxSamples) return all;
  std::vector<std::pair<double, double>> out;
  const size_t per = (all.size() + kMaxSamples - 1) / kMaxSamples;
  for (size_t i = 0; i < all.size(); i += per) {
    const size_t end = std::min(all.size(), i + per);
    double sum = 0;
    for (size_t k = i; k < end; ++k) sum += all[k].second;
    out.emplace_back(all[end - 1].first, sum / static_cast<double>(end - i));
  }
  return out;
}

}  // namespace

std::optional<size_t> heaviest_safe(const std::vector<Candidate>& candidates,
                                    const ModelSet& models) {
  std::optional<size_t> best;
  auto weight = [&](const Candidate& c) {
    return engine::planner::weight_bytes(models.mixes.at(c.setup.config.weights));
  };
  for (size_t i = 0; i < candidates.size(); ++i) {
    const auto& c = candidates[i];
    if (!is_decode_on_device(c) || !models.files.contains(c.setup.config.weights)) continue;
    if (!best) {
      best = i;
      continue;
    }
    const auto& b = candidates[*best];
    if (std::pair{weight(c), c.profile.context} > std::pair{weight(b), b.profile.context}) best = i;
  }
  return best;
}

void settle_soak(reports::SoakResult& soak) {
  const auto& s = soak.samples;
  if (s.empty()) return;
  const double end = s.back().first;
  // The process's first decode pays for its kernels and first-touched buffers, not for heat: cold
  // starts at the second sample where there are enough.
  const size_t first = s.size() >= 3 ? 1 : 0;
  auto mean_where = [&](auto keep) {
    double sum = 0;
    int n = 0;
    for (size_t i = first; i < s.size(); ++i) {
      if (keep(s[i].first)) {
        sum += s[i].second;
        ++n;
      }
    }
    return n > 0 ? sum / n : 0.0;
  };
  soak.cold_tok_s = mean_where([&](double t) { return t <= std::max(0.1 * end, s[first].first); });
  soak.steady_tok_s =
      mean_where([&](double t) { return t >= std::min(0.75 * end, s.back().first); });
  soak.decline = soak.cold_tok_s > 0 ? 1.0 - soak.steady_tok_s / soak.cold_tok_s : 0.0;
}

reports::SoakResult run_soak(const core::DeviceInfo& device, const ModelSet& models,
                             const std::vector<Candidate>& candidates, const core::Options& options,
                             double seconds, DeviceWatch& watch, const Progress& progress) {
  reports::SoakResult soak;
  soak.seconds = seconds;
  const auto chosen = heaviest_safe(candidates, models);
  if (!chosen) {
    soak.error = "no safe profile of the whole model on the device to hold";
    return soak;
  }
  const Candidate& c = candidates[*chosen];
  soak.profile = c.profile.name;
  const std::string dev = device.id.to_string();
  char text[160];
  std::snprintf(text, sizeof text, "%s: holding %s for %.0f s ...", dev.c_str(),
                soak.profile.c_str(), seconds);
  progress(ProgressKind::detail, text);
  core::IsolationLimits limits;
  limits.timeout = std::chrono::seconds(static_cast<int64_t>(seconds) + 300);
  watch.begin("soak:" + dev);
  auto run = core::run_isolated("soak", dev, limits, [&] {
    return hold(device, models.files.at(c.setup.config.weights), c, options, seconds);
  });
  const auto evidence = watch.end();
  if (!run.completed) {
    soak.error = run.failure.reason;
  } else {
    soak.error = run.payload.value("error", std::string());
    std::vector<std::pair<double, double>> samples;
    for (const auto& s : run.payload.value("samples", core::Json::array())) {
      samples.emplace_back(s.at(0).get<double>(), s.at(1).get<double>());
    }
    soak.samples = std::move(samples);
    settle_soak(soak);
    soak.samples = downsample(std::move(soak.samples));
  }
  soak.max_temperature_c = evidence.hottest_c();
  if (const auto cause = evidence.cause()) {
    soak.signals = describe(*cause);
  } else {
    soak.signals = evidence.throttle_note();
  }
  return soak;
}

double hold_seconds(const core::Options& options, double budget_left_s) {
  if (options.soak_s > 0) return options.soak_s;
  if (options.level == core::Level::quick || budget_left_s < kMinHoldSeconds) return 0;
  return std::min(kSteadyHoldSeconds, budget_left_s);
}

void apply_steady(reports::DeviceReport& device) {
  if (!device.soak || device.soak->samples.empty() || device.soak->cold_tok_s <= 0) return;
  const double ratio = device.soak->steady_tok_s / device.soak->cold_tok_s;
  for (auto& p : device.profiles) {
    if (p.verdict == reports::ProfileVerdict::safe && p.figures.tok_s) {
      p.figures.steady_tok_s = *p.figures.tok_s * ratio;
    }
  }
}

}  // namespace gauntlet::harness
