#pragma once
// What the split tests check, for any placement: the placed decoder's logits for every token of
// a prompt (teacher-forced, fed in passes of the micro-batch) against the host reference's, and
// its greedy tokens; sequences decoded together against each sequence's own reference decode.
#include <gtest/gtest.h>

#include <set>
#include <span>
#include <string>
#include <vector>

#include "backends/device.h"
#include "engine/device/profile_check.h"
#include "engine/make_decoder.h"
#include "engine/model/gguf.h"
#include "engine/model/loaded_model.h"
#include "engine/reference/decoder.h"

namespace gauntlet::engine::test {

// 32 greedy steps after a short prompt: the device's tokens are the host reference's, its logits
// within the configuration's bound, and the tokens are not one repeated token.
// A decode check (device::check_decode of `prompt` and `steps` tokens) gave the host
// reference's greedy tokens and logits within its bound, and the tokens vary (else the comparison
// proves little).
inline void expect_decode_check_matches(backends::Device& dev, const model::GgufFile& file,
                                        const device::DecodeConfig& config,
                                        const std::vector<int32_t>& prompt, uint32_t steps) {
  auto r = device::check_decode(dev, file, config, prompt, steps);
  ASSERT_TRUE(r.is_ok()) << r.error().describe();
  EXPECT_EQ(r->device_tokens, r->host_tokens);
  EXPECT_LE(r->logits_nmse, r->nmse_bound);
  std::set<int32_t> distinct(r->host_tokens.begin(), r->host_tokens.end());
  EXPECT_GT(distinct.size(), 3u);
}

inline void expect_greedy_decode_matches(backends::Device& dev, const model::GgufFile& file,
                                         const model::ModelShape& shape, model::FileType format) {
  auto config = device::default_config(dev.info(), dev.info().local_mem_size, shape, format);
  config.weights = format;
  expect_decode_check_matches(dev, file, config, {1, 7, 42, 3}, 32);
}

// One step at position `positions - 1` over a KV cache filled directly (the harness's long-context
// check): the device's token and logits against the host reference's.
inline void expect_filled_cache_step_matches(backends::Device& dev, const model::GgufFile& file,
                                             const model::ModelShape& shape, model::FileType format,
                                             uint32_t positions) {
  auto c = device::default_config(dev.info(), dev.info().local_mem_size, shape, format);
  c.weights = format;
  auto r = device::check_context(dev, file, c, positions);
  ASSERT_TRUE(r.is_ok()) << r.error().describe();
  EXPECT_TRUE(r->tokens_match) << r->reason;
  EXPECT_LE(r->logits_nmse, r->nmse_bound);
}

struct SplitArchitecture {
  model::ModelShape shape;
  uint32_t device_slots = 0;  // -ngl that puts the boundary inside the model
};

// llama, qwen3 and gemma3 (window 16: layers 0-4 slide, 5 is global), rows of 256 so that every
// k-quant runs; -ngl puts some of each on both sides.
inline std::vector<SplitArchitecture> split_architectures() {
  std::vector<SplitArchitecture> out;
  const std::pair<const char*, uint32_t> dims[] = {
      {"arch=llama,n_embd=256,n_layer=3,n_head=4,n_head_kv=2,n_ff=512,n_vocab=256", 3},
      {"arch=qwen3,n_embd=256,n_layer=3,n_head=4,n_head_kv=2,head_dim=64,n_ff=512,n_vocab=256", 2},
      {"arch=gemma3,n_embd=256,n_layer=6,n_head=4,n_head_kv=2,head_dim=64,n_ff=512,n_vocab=256,"
       "window=16,tied=1",
       4}};
  for (const auto& [text, slots] : dims) {
    auto s = model::parse_dims(std::string(text) + ",context=640");
    EXPECT_TRUE(s.is_ok()) << s.error().describe();
    s->name = "split-" + std::string(s->traits().name);
    out.push_back({*s, slots});
  }
  return out;
}

// The (architecture, file type, micro-batch) cases a split runs: architecture i in the i-th file
// type at the i-th micro-batch of 1, 512 and 32, so that every architecture, every file type and
// every micro-batch is met once (the file types' kernels are the EngineDecode and EngineBatch
// tests'; what a split adds is the hand-over, which depends on the layers and the pass). The
// Latin square of all nine took 105 s on llvmpipe, the whole product 2 minutes.
struct SplitCase {
  size_t arch_index;
  model::FileType format;
  uint32_t micro_batch;
};
inline std::vector<SplitCase> split_cases() {
  return {{0, model::FileType::f32, 1},
          {1, model::FileType::q8_0, 512},
          {2, model::FileType::q4_K_M, 32}};
}

inline std::vector<int32_t> split_prompt(uint32_t n, uint32_t salt, uint32_t vocab) {
  std::vector<int32_t> p(n);
  for (uint32_t i = 0; i < n; ++i) p[i] = static_cast<int32_t>((i * 37 + salt * 11 + 1) % vocab);
  return p;
}

inline std::vector<float> all_logits(Decoder& d, std::span<const int32_t> prompt) {
  std::vector<BatchToken> batch;
  for (int32_t t : prompt) batch.push_back({t, 0, true});
  auto logits = d.forward(batch);
  EXPECT_TRUE(logits.is_ok()) << logits.error().describe();
  return logits.is_ok() ? std::vector<float>(logits->begin(), logits->end()) : std::vector<float>{};
}

inline std::vector<int32_t> greedy(Decoder& d, std::span<const int32_t> prompt, uint32_t n) {
  d.reset();
  auto tokens = reference::greedy_decode([&](int32_t t) { return d.step(t); }, prompt, n);
  EXPECT_TRUE(tokens.is_ok()) << tokens.error().describe();
  return tokens.is_ok() ? *tokens : std::vector<int32_t>{};
}

// A prompt longer than the micro-batch (two passes at least, 520 tokens at 512), every token's
// logits within the f32 bound of the reference's and the same argmax; then 8 greedy tokens.
inline void expect_split_matches_reference(const placement::Placement& placement,
                                           std::vector<backends::Device*> devices,
                                           const model::GgufFile& file, uint32_t micro_batch) {
  auto host = model::load_model(file.info(), file.bytes());
  ASSERT_TRUE(host.is_ok()) << host.error().describe();
  const auto& s = host->shape;
  const uint32_t n = micro_batch >= 512 ? 520 : 70;
  const auto prompt = split_prompt(n, micro_batch, s.n_vocab);
  const uint32_t context = n + 8;
  auto split = make_decoder(placement, devices, file,
                            {0, planner::KvPrecision::f32, context, micro_batch, 1});
  ASSERT_TRUE(split.is_ok()) << split.error().describe();
  auto ref = reference::Decoder::create(
      *host, {{.kv = planner::KvPrecision::f32, .context = context, .micro_batch = n}});
  ASSERT_TRUE(ref.is_ok()) << ref.error().describe();

  const auto got = all_logits(**split, prompt);
  const auto want = all_logits(**ref, prompt);
  ASSERT_EQ(got.size(), want.size());
  ASSERT_EQ(got.size(), size_t{n} * s.n_vocab);
  const double bound = device::logits_nmse_bound(device::DecodeConfig{});
  for (size_t t = 0; t < n; ++t) {
    const auto g = std::span(got).subspan(t * s.n_vocab, s.n_vocab);
    const auto w = std::span(want).subspan(t * s.n_vocab, s.n_vocab);
    ASSERT_LE(device::nmse(g, w), bound) << "token " << t;
    ASSERT_EQ(reference::argmax(g), reference::argmax(w)) << "token " << t;
  }
  const auto short_prompt = std::span(prompt).first(4);
  EXPECT_EQ(greedy(**split, short_prompt, 8), greedy(**ref, short_prompt, 8));
}

// Every token's logits in passes of 1, 32 and 512 tokens, the whole model on `device`.
inline void expect_passes_of_1_32_512_match_reference(backends::Device& device,
                                                      const model::GgufFile& file,
                                                      uint32_t n_layer) {
  for (uint32_t micro_batch : {1u, 32u, 512u}) {
    SCOPED_TRACE("ub " + std::to_string(micro_batch));
    expect_split_matches_reference(placement::whole(n_layer, device.name()), {&device}, file,
                                   micro_batch);
  }
}

// -ngl `gpu_layers`: the first layer slots on `host`, the others and the output on `device`, in
// passes of `micro_batch`.
inline void expect_host_then_device_split_matches(backends::Device& device, backends::Device& host,
                                                  const model::GgufFile& file, uint32_t n_layer,
                                                  int gpu_layers, uint32_t micro_batch = 32) {
  auto p = placement::from_gpu_layers(n_layer, {gpu_layers, {device.name()}, {}, placement::kHost});
  ASSERT_TRUE(p.is_ok()) << p.error().describe();
  ASSERT_FALSE(p->whole());
  expect_split_matches_reference(*p, {&device, &host}, file, micro_batch);
}

// `sequences` prompts of 5 tokens in one forward, then 6 steps of one token of every sequence,
// each sequence's logits against its own decode on the reference.
inline void expect_sequences_match_reference(const placement::Placement& placement,
                                             std::vector<backends::Device*> devices,
                                             const model::GgufFile& file, uint32_t sequences) {
  auto host = model::load_model(file.info(), file.bytes());
  ASSERT_TRUE(host.is_ok());
  const auto& s = host->shape;
  const uint32_t context = 16, prompt_tokens = 5, steps = 6;
  auto split = make_decoder(placement, devices, file,
                            {0, planner::KvPrecision::f32, context, prompt_tokens, sequences});
  ASSERT_TRUE(split.is_ok()) << split.error().describe();
  std::vector<BatchToken> batch;
  std::vector<std::vector<int32_t>> prompts;
  for (uint32_t q = 0; q < sequences; ++q) {
    prompts.push_back(split_prompt(prompt_tokens, q + 1, s.n_vocab));
    for (uint32_t i = 0; i < prompt_tokens; ++i) {
      batch.push_back({prompts[q][i], q, i + 1 == prompt_tokens});
    }
  }
  std::vector<std::vector<std::vector<float>>> got(sequences);
  auto logits = (*split)->forward(batch);
  ASSERT_TRUE(logits.is_ok()) << logits.error().describe();
  for (uint32_t step = 0;; ++step) {
    batch.clear();
    for (uint32_t q = 0; q < sequences; ++q) {
      const auto one = logits->subspan(size_t{q} * s.n_vocab, s.n_vocab);
      got[q].emplace_back(one.begin(), one.end());
      batch.push_back({reference::argmax(one), q, true});
    }
    if (step + 1 == steps) break;
    logits = (*split)->forward(batch);
    ASSERT_TRUE(logits.is_ok()) << logits.error().describe();
  }
  const double bound = device::logits_nmse_bound(device::DecodeConfig{});
  for (uint32_t q = 0; q < sequences; ++q) {
    auto ref = reference::Decoder::create(*host, {0, planner::KvPrecision::f32, context});
    ASSERT_TRUE(ref.is_ok());
    std::vector<std::vector<float>> want;
    std::vector<int32_t> fed = prompts[q];
    for (size_t i = 0; i < fed.size(); ++i) {
      auto l = (*ref)->step(fed[i]);
      ASSERT_TRUE(l.is_ok());
      if (i + 1 == fed.size()) want.emplace_back(l->begin(), l->end());
    }
    for (uint32_t step = 1; step < steps; ++step) {
      auto l = (*ref)->step(reference::argmax(want.back()));
      ASSERT_TRUE(l.is_ok());
      want.emplace_back(l->begin(), l->end());
    }
    for (uint32_t step = 0; step < steps; ++step) {
      EXPECT_LE(device::nmse(got[q][step], want[step]), bound)
          << "sequence " << q << " step " << step;
      EXPECT_EQ(reference::argmax(got[q][step]), reference::argmax(want[step]))
          << "sequence " << q << " step " << step;
    }
  }
}

}  // namespace gauntlet::engine::test
