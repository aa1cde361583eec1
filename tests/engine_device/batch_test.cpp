// Passes of several tokens on the device: a prompt cut into micro-batches on both sides of the
// matmul's token tile gives the logits of token-by-token decoding (on the device and on the host
// reference) in every file type; sequences decoded together give each sequence's own result; a
// matmul tile over the local-memory limit is refused before dispatch and a smaller one runs.
#include <set>

#include "device_fixture.h"
#include "engine/device/device_decoder.h"
#include "engine/device/profile_check.h"
#include "engine/loader/loader.h"
#include "engine/reference/decoder.h"

namespace gauntlet::engine::test {
namespace {

using device::DecodeConfig;
using model::FileType;
using model::TensorType;

// Rows of 256 (every k-quant runs), two layers, a context past 512.
model::ModelShape batch_shape() {
  auto s = model::parse_dims(
      "n_embd=256,n_layer=2,n_head=4,n_head_kv=2,n_ff=256,n_vocab=256,context=600");
  EXPECT_TRUE(s.is_ok());
  s->name = "batch-test";
  return *s;
}

std::vector<int32_t> prompt_of(uint32_t n, uint32_t salt, uint32_t vocab) {
  std::vector<int32_t> p(n);
  for (uint32_t i = 0; i < n; ++i) p[i] = static_cast<int32_t>((i * 37 + salt * 11 + 1) % vocab);
  return p;
}

std::vector<BatchToken> as_batch(std::span<const int32_t> tokens, uint32_t seq = 0) {
  std::vector<BatchToken> b;
  for (int32_t t : tokens) b.push_back({t, seq, true});
  return b;
}

// The logits of every token of `prompt` from the host reference, in one pass (which gives the
// token-by-token logits bit for bit: ReferenceBatch.PassesGiveTokenByTokenLogitsBitForBit).
std::vector<float> host_logits(const model::GgufFile& file, std::span<const int32_t> prompt,
                               uint32_t context) {
  auto host = model::load_model(file.info(), file.bytes());
  EXPECT_TRUE(host.is_ok());
  const auto n = static_cast<uint32_t>(prompt.size());
  auto ref = reference::Decoder::create(
      *host, {{.kv = planner::KvPrecision::f32, .context = context, .micro_batch = n}});
  EXPECT_TRUE(ref.is_ok());
  auto logits = (*ref)->forward(as_batch(prompt));
  EXPECT_TRUE(logits.is_ok()) << logits.error().describe();
  return logits.is_ok() ? std::vector<float>(logits->begin(), logits->end()) : std::vector<float>{};
}

// The worst NMSE over the tokens, each token's n_vocab logits on their own.
double worst_nmse(std::span<const float> got, std::span<const float> want, uint32_t n_vocab) {
  EXPECT_EQ(got.size(), want.size());
  double worst = 0;
  for (size_t at = 0; at + n_vocab <= std::min(got.size(), want.size()); at += n_vocab) {
    worst = std::max(worst, device::nmse(got.subspan(at, n_vocab), want.subspan(at, n_vocab)));
  }
  return worst;
}

class EngineBatch : public DeviceTest {
 protected:
  // The device's logits for `prompt` fed in passes of `micro_batch` tokens.
  std::vector<float> device_logits(const loader::DeviceModel& model, DecodeConfig config,
                                   std::span<const int32_t> prompt) {
    auto decoder = device::DeviceDecoder::create(device(), model, config);
    EXPECT_TRUE(decoder.is_ok()) << decoder.error().describe();
    if (!decoder.is_ok()) return {};
    const auto batch = as_batch(prompt);
    auto logits = (*decoder)->forward(batch);
    EXPECT_TRUE(logits.is_ok()) << logits.error().describe();
    if (!logits.is_ok()) return {};
    return {logits->begin(), logits->end()};
  }
};

// 70 tokens in passes of 1, 31, 32, 33 and 65 (both sides of the token tiles of 16 and 32 and
// past two tiles) in F32, Q8_0 and Q4_K_M, each against the same device's token-by-token logits,
// and 512 tokens in one pass in Q4_K_M; in passes of 33 in each other file type that writes a
// tensor type no earlier one wrote, so that every tensor type's matmul runs past a tile edge
// (with passes of 33 and 65 and the device's token-by-token decode of each too, the test took
// 140 s on llvmpipe). Each token's logits match the host reference's within the f32 bound.
TEST_F(EngineBatch, MicroBatchesGiveTokenByTokenLogitsInEveryFileType) {
  const auto shape = batch_shape();
  const auto prompt = prompt_of(512, 1, shape.n_vocab);
  const std::span<const int32_t> head(prompt.data(), 70);
  const std::set<FileType> at_every_micro_batch{FileType::f32, FileType::q8_0, FileType::q4_K_M};
  std::set<TensorType> tensor_types_run;
  for (FileType format : model::all_file_types()) {
    SCOPED_TRACE(model::to_string(format));
    auto file = synthetic_file(shape, format);
    ASSERT_NE(file, nullptr);
    bool writes_a_new_type = false;
    for (const auto& tensor : file->info().tensors) {
      writes_a_new_type |= tensor_types_run.insert(tensor.type).second;
    }
    const bool every = at_every_micro_batch.contains(format);
    if (!writes_a_new_type && !every) continue;
    auto loaded = loader::load_to_device(*file, device(), {});
    ASSERT_TRUE(loaded.is_ok()) << loaded.error().describe();
    const bool whole_prompt = format == FileType::q4_K_M;
    const auto host = host_logits(*file, whole_prompt ? std::span(prompt) : head, 512);
    DecodeConfig config =
        device::default_config(device().info(), device().info().local_mem_size, shape, format);
    config.context = 512;
    const double bound = device::logits_nmse_bound(config);
    std::vector<float> sequential;
    if (every) {
      sequential = device_logits(*loaded, config, head);
      EXPECT_LE(worst_nmse(sequential, std::span(host).first(sequential.size()), shape.n_vocab),
                bound);
    }
    auto micro_batches = every ? std::vector<uint32_t>{31, 32, 33, 65} : std::vector<uint32_t>{33};
    if (whole_prompt) micro_batches.push_back(512);
    for (uint32_t micro_batch : micro_batches) {
      SCOPED_TRACE("micro-batch " + std::to_string(micro_batch));
      config.micro_batch = micro_batch;
      ASSERT_TRUE(
          device::check_config(device().info(), device().info().local_mem_size, shape, config)
              .is_ok());
      const bool whole = micro_batch == 512;
      const auto batched = device_logits(*loaded, config, whole ? std::span(prompt) : head);
      ASSERT_EQ(batched.size(), (whole ? prompt.size() : head.size()) * shape.n_vocab);
      if (every) {
        EXPECT_LE(
            worst_nmse(std::span(batched).first(sequential.size()), sequential, shape.n_vocab),
            bound);
      }
      EXPECT_LE(worst_nmse(batched, std::span(host).first(batched.size()), shape.n_vocab), bound);
    }
  }
}

// Three sequences with prompts of different lengths, decoded together (their prompts in one
// forward, then one token of each per pass): each sequence's logits are its own single-sequence
// logits from the host reference.
TEST_F(EngineBatch, SequencesDecodedTogetherGiveEachItsOwnResult) {
  const auto shape = batch_shape();
  const std::vector<uint32_t> lengths{5, 12, 8};
  const uint32_t steps = 6;
  for (FileType format : {FileType::f32, FileType::q8_0, FileType::q4_K_M}) {
    SCOPED_TRACE(model::to_string(format));
    auto file = synthetic_file(shape, format);
    ASSERT_NE(file, nullptr);
    auto loaded = loader::load_to_device(*file, device(), {});
    ASSERT_TRUE(loaded.is_ok()) << loaded.error().describe();
    DecodeConfig config =
        device::default_config(device().info(), device().info().local_mem_size, shape, format);
    config.context = 64;
    config.sequences = 3;
    config.micro_batch = 16;
    auto decoder = device::DeviceDecoder::create(device(), *loaded, config);
    ASSERT_TRUE(decoder.is_ok()) << decoder.error().describe();
    // Each sequence's whole token stream: its prompt, then tokens of its own.
    std::vector<std::vector<int32_t>> streams;
    for (uint32_t s = 0; s < 3; ++s) {
      auto p = prompt_of(lengths[s] + steps, s + 2, shape.n_vocab);
      streams.push_back(p);
    }
    std::vector<std::vector<float>> got(3);
    std::vector<BatchToken> prompts;
    for (uint32_t s = 0; s < 3; ++s) {
      for (uint32_t i = 0; i < lengths[s]; ++i) prompts.push_back({streams[s][i], s, true});
    }
    auto first = (*decoder)->forward(prompts);
    ASSERT_TRUE(first.is_ok()) << first.error().describe();
    size_t at = 0;
    for (uint32_t s = 0; s < 3; ++s) {
      for (uint32_t i = 0; i < lengths[s]; ++i, at += shape.n_vocab) {
        got[s].insert(got[s].end(), first->begin() + at, first->begin() + at + shape.n_vocab);
      }
    }
    for (uint32_t step = 0; step < steps; ++step) {
      std::vector<BatchToken> together;
      for (uint32_t s = 0; s < 3; ++s) together.push_back({streams[s][lengths[s] + step], s, true});
      auto logits = (*decoder)->forward(together);
      ASSERT_TRUE(logits.is_ok()) << logits.error().describe();
      for (uint32_t s = 0; s < 3; ++s) {
        got[s].insert(got[s].end(), logits->begin() + s * shape.n_vocab,
                      logits->begin() + (s + 1) * shape.n_vocab);
      }
    }
    for (uint32_t s = 0; s < 3; ++s) {
      SCOPED_TRACE("sequence " + std::to_string(s));
      EXPECT_EQ((*decoder)->position(s), lengths[s] + steps);
      const auto want = host_logits(*file, streams[s], 64);
      EXPECT_LE(worst_nmse(got[s], want, shape.n_vocab), device::logits_nmse_bound(config));
    }
  }
}

// llvmpipe's 32 KiB (PoCL's limit is larger: there the same tile is asked against 32 KiB): 32
// tokens of 512 f32 elements (the feed-forward width) need 65536 bytes, refused before dispatch
// with both numbers; the default matmul fits and runs a pass of 40 tokens.
TEST_F(EngineBatch, MatmulTileOverTheLimitIsRefusedAndASmallerOneRuns) {
  auto shape = batch_shape();
  shape.n_ff = 512;
  const uint64_t limit = std::min<uint64_t>(device().info().local_mem_size, 32768);
  DecodeConfig config;
  config.weights = FileType::q8_0;
  config.context = 64;
  config.micro_batch = 40;
  config.matmul.tokens = 32;
  config.matmul.activation_tile = 512;
  auto refused = device::check_config(device().info(), limit, shape, config);
  ASSERT_FALSE(refused.is_ok());
  EXPECT_NE(refused.error().message.find("local memory 65536 > 32768 (matmul.wg64.n32.t512.f32, "
                                         "n_in 512)"),
            std::string::npos)
      << refused.error().message;
  config.matmul = device::default_matmul(limit, shape, FileType::q8_0);
  const uint64_t need = planner::local_mem_bytes(device::effective_matmul(config), {512, 0, 0});
  EXPECT_LE(need, limit);
  EXPECT_GE(config.matmul.tokens, 8u);
  ASSERT_TRUE(device::check_config(device().info(), limit, shape, config).is_ok());
  auto file = synthetic_file(shape, FileType::q8_0);
  ASSERT_NE(file, nullptr);
  auto loaded = loader::load_to_device(*file, device(), {});
  ASSERT_TRUE(loaded.is_ok());
  const auto prompt = prompt_of(40, 3, shape.n_vocab);
  const auto batched = device_logits(*loaded, config, prompt);
  EXPECT_LE(worst_nmse(batched, host_logits(*file, prompt, 64), shape.n_vocab),
            device::logits_nmse_bound(config));
}

}  // namespace
}  // namespace gauntlet::engine::test
