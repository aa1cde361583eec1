#include "engine/decode.h"

#include <algorithm>
#include <chrono>

#include "engine/cpu/fast_products.h"
#include "engine/device/profile_check.h"
#include "engine/loader/loader.h"
#include "engine/model_source.h"

namespace gauntlet::engine {

namespace {

double since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

// A draft model that speculative decoding can use: it must take back rejected drafts, which a
// recurrent state cannot (the target saves and restores its state instead).
core::Status check_draft_model(const model::ModelShape& s) {
  if (s.recurrent_layers() == 0) return core::Status::ok();
  return core::make_error(core::ErrorKind::invalid_argument,
                          "speculative decoding takes back rejected drafts, which the draft "
                          "model's recurrent layers (" +
                              std::string(s.traits().name) + ") cannot; use a model without them");
}

// The speculative run's tokens against the plain decode's.
void compare_tokens(SpeculativeReport& rep, std::vector<int32_t> tokens,
                    const DecodeReport& plain) {
  rep.tokens = std::move(tokens);
  rep.tokens_match = rep.tokens == plain.generated;
  const auto parted = std::mismatch(rep.tokens.begin(), rep.tokens.end(), plain.generated.begin(),
                                    plain.generated.end());
  rep.first_difference = static_cast<size_t>(parted.first - rep.tokens.begin());
}

SpeculativeReport report_for(const DecodeRequest& r, const DecodeReport& plain) {
  SpeculativeReport rep;
  rep.options = r.speculative;
  rep.plain_seconds = plain.prompt_seconds + plain.generate_seconds;
  return rep;
}

// The draft model on its device proposing, the target checking: the tokens against the plain
// decode's, the acceptance and the time.
core::Result<SpeculativeReport> run_speculative(const DecodeRequest& r, Decoder& target,
                                                const model::ModelShape& shape,
                                                const DecodeReport& plain,
                                                backends::Device& draft_device,
                                                const DecoderSettings& options) {
  auto file = open_model({r.draft_path, std::nullopt, r.format, r.seed});
  if (!file) return file.error();
  auto draft_shape = model::read_model_shape((*file)->info());
  if (!draft_shape) return draft_shape.error();
  if (draft_shape->n_vocab != shape.n_vocab) {
    return core::make_error(core::ErrorKind::invalid_argument,
                            "the draft model's vocabulary (" +
                                std::to_string(draft_shape->n_vocab) +
                                " tokens) is not the target's (" + std::to_string(shape.n_vocab) +
                                " tokens): a draft proposes the target's token ids");
  }
  GAUNTLET_TRY(check_draft_model(*draft_shape));
  auto loaded = loader::load_to_device(**file, draft_device, {r.chunk_bytes});
  if (!loaded) return loaded.error();
  DecoderSettings draft_options = options;
  draft_options.micro_batch = 1;
  auto draft = make_decoder(draft_device, *loaded, draft_options);
  if (!draft) return draft.error();
  SpeculativeReport rep = report_for(r, plain);
  rep.draft = r.draft_path.string();
  rep.device = draft_device.name();
  target.reset();
  const auto start = std::chrono::steady_clock::now();
  auto tokens = speculative_greedy(target, **draft, r.prompt, r.n_tokens, shape.n_vocab,
                                   r.speculative, rep.stats);
  if (!tokens) return tokens.error();
  rep.seconds = since(start);
  compare_tokens(rep, std::move(*tokens), plain);
  return rep;
}

// The model file's own MTP head drafting on the host, the target checking.
core::Result<SpeculativeReport> run_mtp(const DecodeRequest& r, Decoder& target,
                                        const model::GgufFile& file,
                                        const model::LoadedModel& host_view,
                                        const DecodeReport& plain) {
  // The head runs with the cpu device's products, as llama.cpp's CPU backend would run it.
  auto head = MtpHead::create(file.info(), file.bytes(), host_view, plain.context, r.threads,
                              cpu::make_fast_products());
  if (!head) return head.error();
  SpeculativeReport rep = report_for(r, plain);
  rep.draft =
      "MTP head (" + std::string(r.model_path.empty() ? "synthetic model" : "model file") + ")";
  rep.device = "host";
  target.reset();
  const auto start = std::chrono::steady_clock::now();
  auto tokens = speculative_mtp(target, **head, r.prompt, r.n_tokens, host_view.shape.n_vocab,
                                r.speculative, rep.stats);
  if (!tokens) return tokens.error();
  rep.seconds = since(start);
  compare_tokens(rep, std::move(*tokens), plain);
  return rep;
}

}  // namespace

core::Result<DecodeReport> run_decode(const DecodeRequest& r,
                                      std::span<backends::Device* const> devices,
                                      backends::Device* host) {
  if (r.prompt.empty()) {
    return core::make_error(core::ErrorKind::invalid_argument, "the prompt needs a token");
  }
  DecodeReport rep;
  rep.prompt = r.prompt;
  rep.rss_before_bytes = loader::rss_bytes();
  loader::reset_rss_peak();
  for (auto* d : devices) d->reset_peak();
  if (host != nullptr) host->reset_peak();

  auto file = open_model({r.model_path, r.shape, r.format, r.seed});
  if (!file) return file.error();
  // The file's metadata is read and its tensors bound once: the loader takes this binding.
  auto host_view = model::load_model((*file)->info(), (*file)->bytes());
  if (!host_view) return host_view.error();
  const model::ModelShape* shape = &host_view->shape;
  auto placed = place(*shape, r.placement, devices, host);
  if (!placed) return placed.error();
  rep.placement = placed->placement.label;
  rep.kv = r.kv;
  rep.flash_attention = r.flash_attention;
  rep.placement_notes = placed->placement.notes;
  const bool whole = placed->placement.whole();
  backends::Device& first = *placed->devices[placed->placement.slot_device.front()];
  rep.device = whole ? first.name() : placed->placement.describe();
  if (r.time_kernels && (!whole || first.info().id.api == core::Api::host)) {
    return core::make_error(core::ErrorKind::invalid_argument,
                            "kernel times are for one OpenCL or Vulkan device holding the model");
  }

  const uint64_t needed = r.prompt.size() + r.n_tokens;
  rep.context = r.context != 0 ? r.context
                               : static_cast<uint32_t>(std::min<uint64_t>(needed, shape->context));
  if (needed > rep.context) {
    return core::make_error(core::ErrorKind::invalid_argument,
                            std::to_string(r.prompt.size()) + " prompt tokens and " +
                                std::to_string(r.n_tokens) + " new ones need " +
                                std::to_string(needed) + " positions, over the context of " +
                                std::to_string(rep.context));
  }
  if (r.mtp && !r.draft_path.empty()) {
    return core::make_error(core::ErrorKind::invalid_argument,
                            "one drafter at a time: a draft model (-md) or the file's MTP head");
  }
  const bool speculate = !r.draft_path.empty() || r.mtp;
  // Speculation checks a draft of up to draft_max tokens, after the newest, in one pass.
  const uint32_t micro_batch = speculate ? r.speculative.draft_max + 1 : 1;
  const DecoderSettings options{r.threads, r.kv,          rep.context,      micro_batch,
                                1,         r.chunk_bytes, r.flash_attention};
  auto t0 = std::chrono::steady_clock::now();
  std::optional<loader::DeviceModel> loaded;
  core::Result<std::unique_ptr<Decoder>> decoder = core::make_error(core::ErrorKind::internal, "");
  if (whole) {
    auto m = loader::load_to_device(**file, first,
                                    {r.chunk_bytes, planner::LayerRange::whole(), &*host_view});
    if (!m) return m.error();
    loaded = std::move(*m);
    decoder = make_decoder(first, *loaded, options);
  } else {
    decoder = make_decoder(placed->placement, placed->devices, **file, options);
  }
  if (!decoder) return decoder.error();
  rep.load_seconds = since(t0);
  rep.shape = host_view->shape;
  rep.format = host_view->file_type;
  rep.mix = host_view->tensors;
  auto step_fn = [&](int32_t token) { return (*decoder)->step(token); };

  // Time the prompt and the generated tokens apart: tok/s counts generated tokens only.
  auto start = std::chrono::steady_clock::now();
  auto gen_start = start;
  const size_t prompt_steps = r.prompt.size();
  auto on_step = [&](uint32_t step, int32_t token, std::span<const float> logits) {
    if (step + 1 == prompt_steps) {
      rep.prompt_seconds = since(start);
      if (r.time_kernels) (*decoder)->time_dispatches(&rep.kernel_times);
      gen_start = std::chrono::steady_clock::now();
    }
    if (r.on_step) r.on_step(step, token, logits);
  };
  auto generated = reference::greedy_decode(step_fn, r.prompt, r.n_tokens, on_step);
  if (!generated) return generated.error();
  rep.generate_seconds = since(gen_start);
  rep.generated = std::move(*generated);
  // The last generated token is not fed back, so n tokens cost n - 1 steps after the prompt.
  const double steps = r.n_tokens > 1 ? r.n_tokens - 1 : 0;
  rep.tokens_per_second = rep.generate_seconds > 0 ? steps / rep.generate_seconds : 0;
  const auto middle = static_cast<uint32_t>(r.prompt.size() + r.n_tokens / 2);
  rep.bytes_read_per_token = device::bytes_read_per_token(rep.shape, rep.mix, r.kv, middle);
  rep.effective_gbps = static_cast<double>(rep.bytes_read_per_token) * rep.tokens_per_second / 1e9;
  for (auto* d : placed->devices) {
    if (d != nullptr) rep.device_peak_bytes += d->peak_bytes();
  }
  rep.rss_peak_bytes = loader::rss_peak_bytes();
  planner::PlanOptions plan;
  plan.format = rep.format;
  plan.context = rep.context;
  plan.kv = r.kv;
  plan.chunk_bytes = r.chunk_bytes;
  plan.tensors = rep.mix;
  rep.plan = planner::plan_memory(rep.shape, plan);
  if (speculate) {
    backends::Device& draft_device = r.draft_device != nullptr ? *r.draft_device : first;
    auto spec = r.mtp ? run_mtp(r, **decoder, **file, *host_view, rep)
                      : run_speculative(r, **decoder, rep.shape, rep, draft_device, options);
    if (!spec) return spec.error();
    rep.speculative = std::move(*spec);
  }
  return rep;
}

core::OrderedJson DecodeReport::to_json() const {
  core::OrderedJson j;
  j["model"] = {{"name", shape.name},
                {"architecture", shape.traits().name},
                {"format", model::to_string(format)},
                {"head_dim", shape.head_dim()},
                {"n_embd", shape.n_embd},
                {"n_layer", shape.n_layer},
                {"n_head", shape.n_head},
                {"n_head_kv", shape.n_head_kv},
                {"n_ff", shape.n_ff},
                {"n_vocab", shape.n_vocab},
                {"context", shape.context}};
  j["device"] = device;
  j["placement"] = placement;
  if (!placement_notes.empty()) j["placement_notes"] = placement_notes;
  j["context"] = context;
  j["kv_cache"] = {{"type_k", model::to_string(kv.k)},
                   {"type_v", model::to_string(kv.v)},
                   {"flash_attention", flash_attention}};
  j["prompt"] = prompt;
  j["tokens"] = generated;
  j["tokens_per_second"] = tokens_per_second;
  j["bandwidth"] = {{"bytes_read_per_token", bytes_read_per_token},
                    {"effective_gbps", effective_gbps}};
  j["seconds"] = {
      {"load", load_seconds}, {"prompt", prompt_seconds}, {"generate", generate_seconds}};
  j["memory"] = {{"device_peak_bytes", device_peak_bytes},
                 {"process_peak_rss_bytes", rss_peak_bytes},
                 {"process_rss_before_bytes", rss_before_bytes},
                 {"planned",
                  {{"weights", plan.weights},
                   {"kv_cache", plan.kv_cache},
                   {"activations", plan.activations},
                   {"staging", plan.staging},
                   {"steady_state", plan.steady_state},
                   {"load_peak", plan.load_peak},
                   {"peak", plan.peak}}}};
  if (!kernel_times.empty()) {
    core::OrderedJson times = core::OrderedJson::array();
    for (const auto& t : kernel_times) {
      times.push_back({{"kernel", t.kernel}, {"dispatches", t.dispatches}, {"seconds", t.seconds}});
    }
    j["kernel_times"] = times;
  }
  if (speculative) {
    const auto& s = *speculative;
    j["speculative"] = {{"draft", s.draft},
                        {"device", s.device},
                        {"draft_max", s.options.draft_max},
                        {"draft_min", s.options.draft_min},
                        {"tokens", s.tokens},
                        {"tokens_match", s.tokens_match},
                        {"drafted", s.stats.drafted},
                        {"accepted", s.stats.accepted},
                        {"checks", s.stats.checks},
                        {"acceptance_rate", s.stats.acceptance()},
                        {"seconds", s.seconds},
                        {"tokens_per_second", s.tokens_per_second()},
                        {"plain_seconds", s.plain_seconds},
                        {"speedup", s.speedup()}};
    if (!s.tokens_match) j["speculative"]["first_difference"] = s.first_difference;
  }
  return j;
}

}  // namespace gauntlet::engine
