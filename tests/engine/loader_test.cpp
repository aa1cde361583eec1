// Bounded loading onto the host backend's Device, and the planner against measured peaks.
#include "engine/loader/loader.h"

#include <gtest/gtest.h>

#include <cmath>

#include "backends/host/host_device.h"
#include "engine/decode.h"
#include "test_models.h"

namespace gauntlet::engine {
namespace {

using model::FileType;

TEST(Loader, UploadsEveryTensorExactly) {
  auto shape = model::preset_shape("test-small").value();
  auto path = test::temp_path("load-exact.gguf");
  ASSERT_TRUE(model::write_synthetic_model(shape, FileType::q4_K_M, 9, path, true).is_ok());
  auto file = model::GgufFile::open(path).value();
  auto device = backends::host::open();
  loader::LoadStats stats;
  auto m = loader::load_to_device(*file, *device, {1000}, &stats);
  ASSERT_TRUE(m.is_ok()) << m.error().describe();
  EXPECT_EQ(m->weight_bytes(), planner::weight_bytes(shape, FileType::q4_K_M));
  EXPECT_EQ(stats.bytes, m->weight_bytes());
  EXPECT_EQ(stats.staging_bytes, 1000u);
  EXPECT_GT(stats.chunks, m->weight_bytes() / 1000);
  for (const auto& t : m->tensors) {
    std::vector<std::byte> back(t.info.bytes);
    ASSERT_TRUE(device->download(*t.buffer, back).is_ok());
    auto want = file->tensor_data(t.info);
    ASSERT_TRUE(std::equal(back.begin(), back.end(), want.begin(), want.end())) << t.info.name;
  }
  EXPECT_FALSE(loader::load_to_device(*file, *device, {0}).is_ok());
  std::filesystem::remove(path);
}

// Device accounting during load and decode, for three shapes and two KV precisions.
TEST(Loader, PlannedPeakMatchesMeasuredDevicePeak) {
  struct Case {
    const char* shape;
    FileType format;
    planner::KvPrecision kv;
  };
  const Case cases[] = {{"test-tiny", FileType::f32, planner::KvPrecision::f32},
                        {"test-small", FileType::q8_0, planner::KvPrecision::f16},
                        {"test-gqa", FileType::q4_K_M, planner::KvPrecision::f32},
                        {"test-gqa", FileType::bf16, planner::KvPrecision::f16}};
  for (const auto& c : cases) {
    SCOPED_TRACE(std::string(c.shape) + " " + model::to_string(c.format));
    auto device = backends::host::open();
    DecodeRequest r;
    r.shape = model::preset_shape(c.shape).value();
    r.format = c.format;
    r.prompt = {1, 2};
    r.n_tokens = 6;
    r.kv = c.kv;
    r.context = 64;
    r.threads = 2;
    r.chunk_bytes = 8192;
    auto rep = run_decode(r, *device);
    ASSERT_TRUE(rep.is_ok()) << rep.error().describe();
    EXPECT_EQ(rep->generated.size(), 6u);
    const double predicted = static_cast<double>(rep->plan.steady_state);
    const double measured = static_cast<double>(rep->device_peak_bytes);
    EXPECT_LE(std::fabs(predicted - measured) / measured, 0.05)
        << "planned " << predicted << " measured " << measured;
    EXPECT_EQ(rep->plan.kv_cache, planner::kv_cache_bytes(*r.shape, 64, 1, c.kv));
  }
}

// Process memory: loading a ~40 MB model in 4 MiB chunks raises the resident set by the weights
// plus one chunk, not by two copies of the model.
TEST(Loader, LoadPeakStaysUnderSteadyStatePlusOneChunk) {
  auto shape = model::preset_shape("test-gqa").value();
  shape.n_layer = 12;
  shape.n_vocab = 8000;
  shape.name = "load-peak";
  auto path = test::temp_path("load-peak.gguf");
  ASSERT_TRUE(model::write_synthetic_model(shape, FileType::f32, 4, path, true).is_ok());
  auto file = model::GgufFile::open(path).value();
  const uint64_t chunk = 4ull << 20;
  auto device = backends::host::open();
  ASSERT_TRUE(loader::reset_rss_peak()) << "cannot reset VmHWM through /proc/self/clear_refs";
  const uint64_t before = loader::rss_bytes();
  auto m = loader::load_to_device(*file, *device, {chunk});
  ASSERT_TRUE(m.is_ok()) << m.error().describe();
  const uint64_t peak = loader::rss_peak_bytes();
  const auto plan =
      planner::plan_memory(shape, {FileType::f32, 64, 1, planner::KvPrecision::f32, chunk});
  const uint64_t weights = plan.weights;
  ASSERT_GT(weights, 40ull << 20);
  EXPECT_EQ(device->peak_bytes(), weights);
  const uint64_t grew = peak - before;
  // One slice of the map (1 MiB) may be resident beside the chunk, plus allocator slack.
  const uint64_t slack = 3ull << 20;
  EXPECT_LE(grew, plan.load_peak + slack) << "weights " << weights << " chunk " << chunk;
  // Heap pages freed by earlier tests may be reused without growing the resident set, so the
  // lower bound is loose; the device's accounting above is exact.
  EXPECT_GE(grew, weights / 2);
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace gauntlet::engine
