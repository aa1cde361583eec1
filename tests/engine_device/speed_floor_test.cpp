// The speed floor: on each device, a decode's and a prompt pass's speed as a share of the
// roofline, the longer of moving a pass's bytes and of its operations at the f32 compute peak.
// A device decoder moves its bytes in a copy chain (stress/copy_chain.h): the same bytes cut into
// as many dispatches as the pass makes, so that the launch and join each dispatch costs (llvmpipe
// wakes and joins its threads for every one) is on both sides; the host, which runs a pass as one
// program on one thread, against its memcpy. Each round times one pass, then the chain and a peak
// whose runs last as long as that pass, so that a busy core or another processor moves both sides
// of the ratio alike; the fastest pass counts against the fastest chain and the highest peak. A
// path bound by memory on one processor and by arithmetic on another is compared with whichever
// binds there, so one floor serves every processor. The floors sit below the shares seen with a
// spinner on every core and above half of the highest quiet share, so that a path made 2x slower
// falls below. ctest runs them beside other tests, one at a time.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "backends/catalog.h"
#include "backends/host/host_device.h"
#include "core/options.h"
#include "engine/device/profile_check.h"
#include "engine/make_decoder.h"
#include "engine/speed.h"
#include "stress/bandwidth.h"
#include "stress/compute_peak.h"
#include "stress/copy_chain.h"
#include "tests/engine_device/device_fixture.h"

namespace gauntlet::engine::test {
namespace {

constexpr int kRounds = 8;  // a round is one pass of the path, its copy chain and a peak
constexpr uint32_t kPromptTokens = 64;
constexpr uint32_t kWarmUpTokens = 8;  // a shorter pass builds the same kernels

struct Floor {
  double decode;  // share of the roofline
  double prompt;
};

// Set on the 2-core AMD EPYC VM (Zen 5, AVX-512) from two runs of the twelve tests quiet and two
// with a spinner on every core (and, for the chain, three more of each while its rounds were
// being settled), each floor above half of the highest quiet share (a path made 2x slower falls
// below) and below the lowest share seen. Shares, quiet / busy:
//   PoCL      decode Q8_0 0.46-0.47 / 0.58-0.72, Q4_K_M 0.44-0.55 / 0.57-0.76;
//             prompt Q8_0 0.79-1.08 / 0.89-1.07, Q4_K_M 0.78-1.04 / 0.87-1.03;
//   llvmpipe  decode Q8_0 0.65-0.86 / 0.76-1.30, Q4_K_M 0.35-0.37 / 0.34-0.46;
//             prompt Q8_0 0.28-0.33 / 0.33-0.35, Q4_K_M 0.35-0.44 / 0.39-0.42;
//   host      decode Q8_0 0.21 / 0.18-0.25, Q4_K_M 0.15 / 0.18-0.19;
//             prompt Q8_0 5.4-6.3 / 5.2-6.2, Q4_K_M 4.7-5.6 / 4.4 (its peak is a plain C++ loop,
//             its pass's products are vectorised).
// Against one copy of 128 MiB in one dispatch, llvmpipe's decode lost more than half its quiet
// share beside a spinner per core (Q8_0 0.35-0.46 quiet, 0.22-0.33 busy), as its many short
// dispatches each waited for both threads; against the chain, which waits the same, it keeps it.
const std::map<std::string, std::map<model::FileType, Floor>>& floors() {
  static const std::map<std::string, std::map<model::FileType, Floor>> f = {
      {"opencl", {{model::FileType::q8_0, {0.33, 0.62}}, {model::FileType::q4_K_M, {0.32, 0.62}}}},
      {"vulkan", {{model::FileType::q8_0, {0.50, 0.21}}, {model::FileType::q4_K_M, {0.26, 0.24}}}},
      {"host", {{model::FileType::q8_0, {0.13, 3.4}}, {model::FileType::q4_K_M, {0.10, 3.2}}}},
  };
  return f;
}

// What one round measured of the device beside the path: the time its copy chain took (the pass's
// bytes in as many dispatches as the pass makes), or, where the decoder runs a pass as one program
// (the host), its copy bandwidth; and the f32 peak.
struct Bounds {
  double chain_seconds = 0;
  double copy_gbps = 0;
  double peak_gflops = 0;
};

// The round's share: the roofline's time for a token (its bytes moved, or its `flops` at the
// peak, whichever is longer) over the measured time. A chain moves a pass of `tokens` tokens.
double roofline_share(double bytes, double flops, uint32_t tokens, double tok_s, const Bounds& b) {
  const double moved_s =
      b.chain_seconds > 0 ? b.chain_seconds / tokens : bytes / (b.copy_gbps * 1e9);
  return std::max(moved_s, flops / (b.peak_gflops * 1e9)) * tok_s;
}

// A model of about 40 MB in Q8_0: large against the caches, small enough to write in seconds.
model::ModelShape floor_shape() {
  auto shape = model::parse_dims(
      "arch=llama,n_embd=768,n_layer=4,n_head=12,n_head_kv=12,n_ff=2048,n_vocab=8000,"
      "context=256");
  EXPECT_TRUE(shape.is_ok()) << shape.error().describe();
  shape->name = "speed-floor";
  return *shape;
}

class SpeedFloor : public ::testing::TestWithParam<model::FileType> {
 protected:
  static void SetUpTestSuite() {
    auto env = core::Options::from_environment();
    ASSERT_TRUE(env.is_ok()) << env.error().describe();
    auto d = backends::open(test_device_id(), *env);
    ASSERT_TRUE(d.is_ok()) << "no " << test_api()
                           << ":0 (is the driver installed?): " << d.error().describe();
    device_ = std::move(*d);
  }
  static void TearDownTestSuite() {
    models_.clear();
    files_.clear();
    device_.reset();
  }

  // The format's model, written and loaded once for both tests.
  const loader::DeviceModel& model() {
    auto it = models_.find(GetParam());
    if (it != models_.end()) return it->second;
    files_[GetParam()] = synthetic_file(floor_shape(), GetParam());
    EXPECT_NE(files_[GetParam()], nullptr);
    auto loaded = loader::load_to_device(*files_[GetParam()], *device_, {});
    EXPECT_TRUE(loaded.is_ok()) << loaded.error().describe();
    return models_.emplace(GetParam(), std::move(*loaded)).first->second;
  }

  // The chain (or, without one, the host's memcpy), then the f32 peak in runs as long as the
  // pass that `pass_seconds` timed: a window as long as the path's, so that a shared core, which
  // leaves a short window whole more often than a long one, slows both alike (a peak in 20 ms runs
  // read twice what a 170 ms prompt pass got beside a spinner).
  Bounds measure_bounds(stress::CopyChain* chain, double pass_seconds) {
    Bounds b;
    if (chain) {
      auto t = chain->seconds();
      EXPECT_TRUE(t.is_ok()) << t.error().describe();
      if (t) b.chain_seconds = *t;
    } else {
      b.copy_gbps = stress::measure_host_memcpy_gbps(stress::kBandwidthBytes, 1);
    }
    stress::PeakOptions as_long;
    as_long.target_seconds = std::clamp(pass_seconds, 0.005, 0.2);
    as_long.reps = 0;  // its one run as long as the target: one sample, as the pass is
    auto peak = stress::measure_compute_peak(*device_, as_long);
    EXPECT_TRUE(peak.is_ok() && peak->f32_gflops.has_value());
    if (peak && peak->f32_gflops) b.peak_gflops = *peak->f32_gflops;
    return b;
  }

  // The host on one thread, as its peak and its copy run.
  DecoderSettings options(uint32_t context, uint32_t micro_batch) const {
    DecoderSettings o;
    o.context = context;
    o.micro_batch = micro_batch;
    if (device_->info().id.api == core::Api::host) o.threads = 1;
    return o;
  }

  // Counts the dispatches of one pass (`run` of `pass_tokens`) and builds its chain, then times a
  // pass and the bounds in turn, and prints and checks the share of the fastest pass in the
  // roofline of the best bounds. `bytes` and `flops` are a token's.
  template <typename Run>
  void expect_share(const char* what, Decoder& decoder, uint32_t pass_tokens, double bytes,
                    double flops, double floor, Run run) {
    KernelTimes pass;
    std::unique_ptr<stress::CopyChain> chain;
    if (decoder.time_dispatches(&pass)) {
      ASSERT_TRUE(run(pass_tokens).is_ok());
      decoder.time_dispatches(nullptr);
      uint64_t dispatches = 0;
      for (const auto& kernel : pass) dispatches += kernel.dispatches;
      ASSERT_GT(dispatches, 0u);
      auto made = stress::CopyChain::allocate(*device_, static_cast<uint64_t>(bytes * pass_tokens),
                                              static_cast<uint32_t>(dispatches));
      ASSERT_TRUE(made.is_ok()) << made.error().describe();
      chain = std::make_unique<stress::CopyChain>(std::move(*made));
    } else {
      ASSERT_EQ(device_->info().id.api, core::Api::host)
          << "a device decoder counts its dispatches";
    }
    double best_tok_s = 0;
    Bounds best;  // each bound's best over the rounds
    std::string rounds;
    for (int round = 0; round < kRounds; ++round) {
      auto timed = run(pass_tokens);
      ASSERT_TRUE(timed.is_ok()) << timed.error().describe();
      const double tok_s = timed->tokens_per_second();
      const Bounds b = measure_bounds(chain.get(), timed->seconds);
      ASSERT_GT(b.chain_seconds + b.copy_gbps, 0);
      ASSERT_GT(b.peak_gflops, 0);
      best_tok_s = std::max(best_tok_s, tok_s);
      best.chain_seconds =
          round == 0 ? b.chain_seconds : std::min(best.chain_seconds, b.chain_seconds);
      best.copy_gbps = std::max(best.copy_gbps, b.copy_gbps);
      best.peak_gflops = std::max(best.peak_gflops, b.peak_gflops);
      char line[200];
      if (chain) {
        std::snprintf(line, sizeof line,
                      "\n  %.1f tok/s, chain of %u copies %.2f ms, peak %.2f GFLOP/s", tok_s,
                      chain->dispatches(), b.chain_seconds * 1e3, b.peak_gflops);
      } else {
        std::snprintf(line, sizeof line, "\n  %.1f tok/s, copy %.2f GB/s, peak %.2f GFLOP/s", tok_s,
                      b.copy_gbps, b.peak_gflops);
      }
      rounds += line;
    }
    const double share = roofline_share(bytes, flops, pass_tokens, best_tok_s, best);
    std::printf(
        "%s %s %s (%.1f MB, %.1f MFLOP a token): share of the roofline %.4f (floor %.4f)%s\n",
        test_api(), model::to_string(GetParam()), what, bytes / 1e6, flops / 1e6, share, floor,
        rounds.c_str());
    EXPECT_GE(share, floor);
  }

  Floor floor() const { return floors().at(test_api()).at(GetParam()); }

  static inline std::unique_ptr<backends::Device> device_;
  static inline std::map<model::FileType, std::unique_ptr<model::GgufFile>> files_;
  static inline std::map<model::FileType, loader::DeviceModel> models_;
};

TEST_P(SpeedFloor, DecodeKeepsItsShareOfTheRoofline) {
  const auto shape = floor_shape();
  const auto& loaded = model();
  auto decoder = make_decoder(*device_, loaded, options(shape.context, 1));
  ASSERT_TRUE(decoder.is_ok()) << decoder.error().describe();
  ASSERT_TRUE(time_generation(**decoder, shape.n_vocab, 2).is_ok());  // warm-up

  const double bytes = static_cast<double>(
      device::bytes_read_per_token(shape, loaded.mix, planner::KvPrecision::f32, 1));
  expect_share("decode", **decoder, 1, bytes, flops_per_token(shape, loaded.mix), floor().decode,
               [&](uint32_t tokens) { return time_generation(**decoder, shape.n_vocab, tokens); });
}

TEST_P(SpeedFloor, PromptKeepsItsShareOfTheRoofline) {
  const auto shape = floor_shape();
  const auto& loaded = model();
  auto decoder = make_decoder(*device_, loaded, options(kPromptTokens, kPromptTokens));
  ASSERT_TRUE(decoder.is_ok()) << decoder.error().describe();
  ASSERT_TRUE(time_prompt(**decoder, shape.n_vocab, kWarmUpTokens).is_ok());

  // A pass reads the weights once for all its tokens.
  const double bytes = static_cast<double>(device::bytes_read_per_token(
                           shape, loaded.mix, planner::KvPrecision::f32, kPromptTokens / 2)) /
                       kPromptTokens;
  expect_share("prompt of 64", **decoder, kPromptTokens, bytes, flops_per_token(shape, loaded.mix),
               floor().prompt,
               [&](uint32_t tokens) { return time_prompt(**decoder, shape.n_vocab, tokens); });
}

INSTANTIATE_TEST_SUITE_P(Formats, SpeedFloor,
                         ::testing::Values(model::FileType::q8_0, model::FileType::q4_K_M),
                         [](const auto& info) {
                           return std::string(model::to_string(info.param));
                         });

}  // namespace
}  // namespace gauntlet::engine::test
