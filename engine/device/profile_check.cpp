// check_decode and check_context: device decode against the CPU reference.
#include "engine/device/profile_check.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "core/half.h"
#include "engine/device/device_decoder.h"
#include "engine/loader/loader.h"
#include "engine/reference/decoder.h"

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
  return Loaded{std::move(*host), std::move(*loaded), context};
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

}  // namespace

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
  DecodeConfig c = config;
  c.context = context;

  CheckResult r;
  Steps dev, host;
  auto decoder = DeviceDecoder::create(device, both->device, c, kernels);
  if (!decoder) return decoder.error();
  Clock::time_point gen_start = Clock::now();
  auto record = [&](Steps& into, bool time_it) {
    return [&into, &gen_start, time_it, n = prompt.size()](uint32_t step, int32_t token,
                                                           std::span<const float> logits) {
      into.fed.push_back(token);
      into.logits.emplace_back(logits.begin(), logits.end());
      if (time_it && step + 1 == n) gen_start = Clock::now();
    };
  };
  auto dev_tokens = reference::greedy_decode([&](int32_t t) { return (*decoder)->step(t); }, prompt,
                                             steps, record(dev, true));
  if (!dev_tokens) return dev_tokens.error();
  const double seconds = std::chrono::duration<double>(Clock::now() - gen_start).count();
  r.device_tokens = *dev_tokens;
  r.device_peak_bytes = device.peak_bytes();
  r.planned_peak_bytes =
      planner::plan_memory(both->host.shape, {config.weights, context, config.sequences, config.kv,
                                              16ull << 20, both->host.tensors, config.micro_batch})
          .steady_state;
  if (steps > 1 && seconds > 0) {
    r.tokens_per_second = (steps - 1) / seconds;
    const uint32_t mid = static_cast<uint32_t>(prompt.size() + steps / 2);
    r.effective_gbps = static_cast<double>(bytes_read_per_token(
                           both->host.shape, both->host.tensors, config.kv, mid)) *
                       r.tokens_per_second / 1e9;
  }

  auto ref = reference::Decoder::create(both->host, {0, config.kv, context});
  if (!ref) return ref.error();
  auto host_tokens = reference::greedy_decode([&](int32_t t) { return (*ref)->step(t); }, prompt,
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
      double sum = 0;
      for (float x : host.logits[i]) sum += static_cast<double>(x) * x;
      const double rms = std::sqrt(sum / static_cast<double>(host.logits[i].size()));
      const double gap = host.logits[i][want] - host.logits[i][got];
      if (gap <= error_scale * rms) {
        r.note = "greedy tokens part at step " + std::to_string(i) +
                 " on a near tie: host logits " + scientific(host.logits[i][want]) + " (token " +
                 std::to_string(want) + ") and " + scientific(host.logits[i][got]) + " (token " +
                 std::to_string(got) + ") differ by less than the error scale " +
                 scientific(error_scale * rms);
      }
      break;
    }
  }
  finish_result(r, c, static_cast<uint32_t>(prompt.size() + steps));
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

  // Deterministic K and V in [-1, 1) for every layer and position before the last.
  const uint64_t per_cache = planner::kv_cache_bytes(s, context, 1, config.kv) / 2;
  std::vector<std::byte> k(per_cache), v(per_cache);
  const uint64_t n_kv = s.n_embd_kv();
  const uint64_t elems = per_cache / planner::kv_element_bytes(config.kv);
  auto value = [](uint64_t i, uint64_t salt) {
    uint64_t z = (i + salt) * 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return static_cast<float>(static_cast<double>(z >> 11) / 9007199254740992.0 * 2.0 - 1.0);
  };
  for (uint64_t i = 0; i < elems; ++i) {
    const uint64_t pos = (i / n_kv) % context;
    const float kf = pos + 1 < context ? value(i, 1) : 0.0f;
    const float vf = pos + 1 < context ? value(i, 2) : 0.0f;
    if (config.kv == planner::KvPrecision::f16) {
      const uint16_t kh = core::f32_to_f16(kf), vh = core::f32_to_f16(vf);
      std::memcpy(k.data() + i * 2, &kh, 2);
      std::memcpy(v.data() + i * 2, &vh, 2);
    } else {
      std::memcpy(k.data() + i * 4, &kf, 4);
      std::memcpy(v.data() + i * 4, &vf, 4);
    }
  }
  const int32_t token = static_cast<int32_t>(1 % s.n_vocab);

  CheckResult r;
  auto decoder = DeviceDecoder::create(device, both->device, c, kernels);
  if (!decoder) return decoder.error();
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
