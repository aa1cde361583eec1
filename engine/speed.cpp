#include "engine/speed.h"

#include <chrono>

#include "engine/reference/decoder.h"

namespace gauntlet::engine {

namespace {
using Clock = std::chrono::steady_clock;
double since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}
}  // namespace

std::vector<int32_t> bench_tokens(uint32_t n, uint32_t n_vocab, uint32_t seed) {
  std::vector<int32_t> tokens(n);
  uint64_t z = seed;
  for (auto& t : tokens) {
    z = z * 6364136223846793005ull + 1442695040888963407ull;
    t = static_cast<int32_t>((z >> 33) % n_vocab);
  }
  return tokens;
}

core::Result<SpeedSample> time_prompt(Decoder& decoder, uint32_t n_vocab, uint32_t n_prompt) {
  std::vector<BatchToken> batch;
  for (int32_t t : bench_tokens(n_prompt, n_vocab)) batch.push_back({t, 0, false});
  if (batch.empty()) {
    return core::make_error(core::ErrorKind::invalid_argument, "a prompt of 0 tokens");
  }
  batch.back().logits = true;
  decoder.reset();
  const auto start = Clock::now();
  auto logits = decoder.forward(batch);
  if (!logits) return logits.error();
  return SpeedSample{n_prompt, since(start)};
}

core::Result<SpeedSample> time_generation(Decoder& decoder, uint32_t n_vocab, uint32_t n_gen) {
  decoder.reset();
  int32_t token = bench_tokens(1, n_vocab).front();
  const auto start = Clock::now();
  for (uint32_t i = 0; i < n_gen; ++i) {
    const BatchToken one{token, 0, true};
    auto logits = decoder.forward(std::span<const BatchToken>(&one, 1));
    if (!logits) return logits.error();
    token = reference::argmax(*logits);
  }
  return SpeedSample{n_gen, since(start)};
}

double flops_per_token(const model::ModelShape& shape, std::span<const model::TensorDesc> weights) {
  double flops = 0;
  for (const auto& t : weights) {
    if (t.name == "token_embd.weight" && !shape.tied_output) continue;
    // A token multiplies only the experts it picks: n_expert_used of each stack's n_expert.
    const double used = t.name.find("_exps.") != std::string::npos
                            ? static_cast<double>(shape.n_expert_used) / shape.n_expert
                            : 1.0;
    flops += 2.0 * static_cast<double>(t.n_elements()) * used;
  }
  return flops;
}

}  // namespace gauntlet::engine
