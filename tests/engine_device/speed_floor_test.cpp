// The speed floor: on each device, decode's effective bandwidth as a share of the copy bandwidth
// and a prompt pass's GFLOP/s as a share of the f32 peak, both measured in the same run. The
// floors sit above half of a quiet run's share and well below its lowest, so that noise does not
// trip them and a decode or pass made 2x slower does. Shown on the AMD EPYC VM by running every
// matvec and matmul dispatch twice (and the host's products twice): 22 of the 24 device checks
// over three runs and all 8 host checks over two fell below their floors. The two that did not
// were PoCL's decode (Q8_0 at 0.27 against the 0.25 it had then, Q4_K_M at 0.175 against 0.16):
// there the second dispatch reads its weights from cache, and decode slowed only 1.4-1.8x. ctest
// runs these tests alone (RUN_SERIAL): a compiler on one of this machine's two cores halved PoCL's
// copy (32 against 60 GB/s) and slowed decode by a third.
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
#include "tests/engine_device/device_fixture.h"

namespace gauntlet::engine::test {
namespace {

constexpr int kRounds = 3;      // decode: a round is 8 tokens and a copy
constexpr int kPeakRounds = 3;  // prompt: a round is a pass of 64 tokens and a peak measurement
constexpr uint32_t kDecodeTokens = 8;
constexpr uint32_t kPromptTokens = 64;
constexpr uint32_t kWarmUpTokens = 8;  // a shorter pass builds the same kernels

struct Floor {
  double decode_share_of_copy;
  double prompt_share_of_peak;
};

using Floors = std::map<std::string, std::map<model::FileType, Floor>>;

// The shares depend on the processor, not only on the code: the same commit gave PoCL's Q8_0
// decode 0.15 of copy on the first 2-core VM and 0.39-0.49 on the 2-core AMD EPYC VM. So each
// machine the floors were measured on has its own, above half of its highest share (a 2x slower
// decode or pass falls below) and at 0.57-0.76 of its lowest (noise does not reach it); a processor
// not listed gets the lowest floors of any, which a 2x regression on a fast machine may not trip.
//
// The 2-core AMD EPYC VM ("AMD EPYC" in /proc/cpuinfo), quiet, six runs (two with the tests
// in one process, four under ctest with a process each, as CI runs them): decode 0.39-0.49 and
// 0.23-0.31, prompt 0.56-0.62 and 0.56-0.61 (PoCL); decode 0.172-0.195 and 0.107-0.119, prompt
// 0.040-0.044 and 0.041-0.045 (llvmpipe); decode 0.074-0.079 in one process, 0.090-0.126 under
// ctest, and 0.022-0.031, prompt 1.85-2.06 and 1.43-1.73 (the host: its peak is one thread's, its
// pass uses every core). The decode floors of PoCL and the host are 0.69-0.76 of their lowest.
// A later instance of the same VM gave the host's Q8_0 decode 0.057-0.081 over nine serial runs
// (ctest and the binary alone, the same commit), under its old floor of 0.065 about half the time:
// its floor is now 0.042, 0.73 of that lowest and above half of that instance's highest. Half of
// the first instance's highest (0.126) is 0.063: there a 2x slower host decode may pass.
// llvmpipe, once its matvec and matmul read weights and activations as texels (serial ctest
// runs): decode 0.478-0.662 (Q8_0) and 0.278-0.354 (Q4_K_M) over five, floors 0.33 and 0.21
// (0.69 and 0.76 of the lowest; with the matvec made to do its work twice, decode gave 0.244 and
// 0.261, and 0.187 and 0.194); prompt 0.208-0.377 and 0.266-0.334 over five, its f32 peak
// varying from 22 to 33 GFLOP/s between runs, floor 0.16 (0.77 of the lowest; a 2x slower pass of
// the highest run, 0.19, would pass).
// PoCL's Q4_K_M decode, once its q4_K and q6_K products read their codes as words (serial ctest
// runs): 0.25-0.36 over four, floor 0.19 (0.76 of the lowest, above half of the highest). With
// those products made to do their work twice (the second pass from cache), it gave 0.17-0.24.
const Floors& epyc_floors() {
  static const Floors f = {
      {"opencl", {{model::FileType::q8_0, {0.28, 0.34}}, {model::FileType::q4_K_M, {0.19, 0.34}}}},
      {"vulkan", {{model::FileType::q8_0, {0.33, 0.16}}, {model::FileType::q4_K_M, {0.21, 0.16}}}},
      {"host", {{model::FileType::q8_0, {0.042, 1.05}}, {model::FileType::q4_K_M, {0.017, 0.95}}}},
  };
  return f;
}

// Any other processor: the first VM's quiet figures and the EPYC's, whichever were lower, at
// about 0.6. First VM: decode 0.153 and 0.112, prompt 0.80 and 0.84 (PoCL); decode 0.122 and
// 0.073, prompt 0.118 and 0.130 (llvmpipe); decode 0.050 and 0.018, prompt 0.71 and 0.85 (host).
const Floors& lowest_floors() {
  static const Floors f = {
      {"opencl", {{model::FileType::q8_0, {0.11, 0.34}}, {model::FileType::q4_K_M, {0.065, 0.34}}}},
      {"vulkan",
       {{model::FileType::q8_0, {0.075, 0.018}}, {model::FileType::q4_K_M, {0.045, 0.018}}}},
      {"host", {{model::FileType::q8_0, {0.028, 0.40}}, {model::FileType::q4_K_M, {0.010, 0.40}}}},
  };
  return f;
}

const Floors& floors() {
  static const Floors& f =
      backends::host::describe().name == "AMD EPYC" ? epyc_floors() : lowest_floors();
  return f;
}

const char* floors_name() { return &floors() == &epyc_floors() ? "AMD EPYC" : "lowest"; }

// Decode, prompt and copy figures are the best round (noise only slows a run down: a busy core
// halves the copy, while decode loses a third, and a median share then rises); the peak is the
// median round, as its best round was, here, up to 1.6x its quiet figure. Sorts `v`.
double median(std::vector<double>& v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
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
    copy_from_.reset();
    copy_to_.reset();
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

  // The copy alone, between two buffers allocated once.
  double copy_gbps() {
    if (device_->info().id.api == core::Api::host)
      return stress::measure_host_memcpy_gbps(stress::kBandwidthBytes, 1);
    if (!copy_from_) {
      const uint64_t size = std::min(stress::kBandwidthBytes, device_->info().max_mem_alloc_size);
      auto a = device_->allocate(size);
      auto b = device_->allocate(size);
      EXPECT_TRUE(a.is_ok() && b.is_ok());
      if (!a || !b) return 0;
      copy_from_ = std::move(*a);
      copy_to_ = std::move(*b);
    }
    auto bw = stress::measure_device_bandwidth(*device_, *copy_from_, *copy_to_, 1,
                                               stress::BandwidthParts::copy_only);
    EXPECT_TRUE(bw.is_ok()) << bw.error().describe();
    return bw ? bw->copy_gbps : 0;
  }

  Floor floor() const { return floors().at(test_api()).at(GetParam()); }

  static inline std::unique_ptr<backends::Device> device_;
  static inline std::unique_ptr<backends::Buffer> copy_from_, copy_to_;
  static inline std::map<model::FileType, std::unique_ptr<model::GgufFile>> files_;
  static inline std::map<model::FileType, loader::DeviceModel> models_;
};

TEST_P(SpeedFloor, DecodeKeepsItsShareOfTheCopyBandwidth) {
  const auto shape = floor_shape();
  const auto& loaded = model();
  DecoderOptions options;
  options.context = shape.context;
  auto decoder = make_decoder(*device_, loaded, options);
  ASSERT_TRUE(decoder.is_ok()) << decoder.error().describe();
  ASSERT_TRUE(time_generation(**decoder, shape.n_vocab, 2).is_ok());  // warm-up

  double best_tok_s = 0;
  std::vector<double> copies;
  for (int round = 0; round < kRounds; ++round) {
    auto tg = time_generation(**decoder, shape.n_vocab, kDecodeTokens);
    ASSERT_TRUE(tg.is_ok()) << tg.error().describe();
    best_tok_s = std::max(best_tok_s, tg->tokens_per_second());
    copies.push_back(copy_gbps());
  }
  const auto [lowest_copy, copy_it] = std::minmax_element(copies.begin(), copies.end());
  const double copy = *copy_it;
  ASSERT_GT(copy, 0);
  const double bytes = static_cast<double>(device::bytes_read_per_token(
      shape, loaded.mix, planner::KvPrecision::f32, kDecodeTokens / 2));
  const double effective_gbps = bytes * best_tok_s / 1e9;
  const double share = effective_gbps / copy;
  std::printf(
      "%s %s decode: %.1f tok/s, %.2f GB/s effective, copy %.2f GB/s (rounds %.2f-%.2f), "
      "share %.4f (floor %.4f, %s)\n",
      test_api(), model::to_string(GetParam()), best_tok_s, effective_gbps, copy, *lowest_copy,
      copy, share, floor().decode_share_of_copy, floors_name());
  EXPECT_GE(share, floor().decode_share_of_copy);
}

TEST_P(SpeedFloor, PromptKeepsItsShareOfTheComputePeak) {
  const auto shape = floor_shape();
  const auto& loaded = model();
  DecoderOptions options;
  options.context = kPromptTokens;
  options.micro_batch = kPromptTokens;
  auto decoder = make_decoder(*device_, loaded, options);
  ASSERT_TRUE(decoder.is_ok()) << decoder.error().describe();
  ASSERT_TRUE(time_prompt(**decoder, shape.n_vocab, kWarmUpTokens).is_ok());

  double best_tok_s = 0;
  std::vector<double> peaks;
  for (int round = 0; round < kPeakRounds; ++round) {
    auto pp = time_prompt(**decoder, shape.n_vocab, kPromptTokens);
    ASSERT_TRUE(pp.is_ok()) << pp.error().describe();
    best_tok_s = std::max(best_tok_s, pp->tokens_per_second());
    auto peak = stress::measure_compute_peak(*device_, stress::PeakOptions{});
    ASSERT_TRUE(peak.is_ok()) << peak.error().describe();
    ASSERT_TRUE(peak->f32_gflops.has_value());
    peaks.push_back(*peak->f32_gflops);
  }
  const double peak = median(peaks);
  ASSERT_GT(peak, 0);
  const double gflops = flops_per_token(shape, loaded.mix) * best_tok_s / 1e9;
  const double share = gflops / peak;
  std::printf(
      "%s %s prompt of %u: %.1f tok/s, %.2f GFLOP/s, f32 peak %.2f GFLOP/s (rounds "
      "%.2f-%.2f), share %.4f (floor %.4f, %s)\n",
      test_api(), model::to_string(GetParam()), kPromptTokens, best_tok_s, gflops, peak,
      peaks.front(), peaks.back(), share, floor().prompt_share_of_peak, floors_name());
  EXPECT_GE(share, floor().prompt_share_of_peak);
}

INSTANTIATE_TEST_SUITE_P(Formats, SpeedFloor,
                         ::testing::Values(model::FileType::q8_0, model::FileType::q4_K_M),
                         [](const auto& info) {
                           return std::string(model::to_string(info.param));
                         });

}  // namespace
}  // namespace gauntlet::engine::test
