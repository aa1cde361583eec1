// A vision projector's bytes against what llama.cpp allocated for the same file. The figures are
// the "CPU compute buffer size" lines (MiB) of tools/mtmd/clip.cpp's warmup in the llama.cpp that
// node-llama-cpp 3.22.1 ships, loading qwen3vl_merger projectors written by
// engine::model::write_projector with the dims below (image_size 128, patch 16, merge 2), with
// flash attention auto (enabled on the CPU) and disabled.
#include "engine/placement/projector_deployment.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "engine/model/projector.h"
#include "tests/support/temp_dir.h"

namespace gauntlet::engine::placement {
namespace {

struct MeasuredProjector {
  uint32_t n_embd, n_ff, n_layer, n_head, projection_dim;
  std::vector<uint32_t> deepstack;
  double flash_mib;     // flash attention auto: enabled
  double no_flash_mib;  // < 0: not measured
};

const MeasuredProjector kMeasuredProjectors[] = {
    {64, 256, 2, 4, 256, {}, 39.39, 1118.05},
    {128, 256, 2, 4, 256, {}, 41.46, 1122.19},
    {256, 256, 2, 4, 256, {}, 53.86, 1151.12},
    {64, 1024, 2, 4, 256, {}, 57.99, 1118.05},
    {64, 2048, 2, 4, 256, {}, 91.05, -1},
    {64, 4096, 2, 4, 256, {}, 157.18, -1},
    {512, 4096, 2, 8, 256, {}, 173.71, -1},
    {64, 256, 2, 8, 256, {}, 39.39, 2211.18},
    {512, 512, 2, 8, 2048, {}, 107.58, 2310.37},
    {768, 3072, 2, 12, 2048, {}, 161.31, 3453.09},
    {1024, 1024, 2, 8, 2048, {}, 223.30, 2442.62},
    {1152, 4304, 2, 16, 5120, {}, 248.10, 4657.81},
    {1152, 4304, 2, 8, 5120, {}, 248.10, 2471.55},
    {640, 640, 2, 8, 1024, {}, 138.58, -1},
    {1536, 1536, 2, 8, 1024, {}, 322.49, -1},
    {2048, 2048, 2, 8, 1024, {}, 454.74, -1},
    {64, 256, 4, 4, 1024, {1, 2}, 72.32, 1118.05},
    {1152, 4304, 3, 16, 5120, {0, 1, 2}, 417.54, 4695.00},
    {1152, 4304, 4, 16, 5120, {0, 1, 2}, 380.35, -1},
    {1024, 4096, 4, 16, 2048, {1, 2, 3}, 289.43, -1},
};

model::ProjectorFile measured_projector(const MeasuredProjector& m) {
  model::ProjectorShape s;
  s.image_size = 128;
  s.n_embd = m.n_embd;
  s.n_ff = m.n_ff;
  s.n_layer = m.n_layer;
  s.n_head = m.n_head;
  s.projection_dim = m.projection_dim;
  s.deepstack_layers = m.deepstack;
  return {s, model::projector_tensors(s)};
}

double mib_of(uint64_t bytes) { return static_cast<double>(bytes) / (1 << 20); }

TEST(ProjectorDeployment, ComputeBufferIsNeverBelowLlamaCppsAndAtMostTenPercentAbove) {
  for (const auto& m : kMeasuredProjectors) {
    SCOPED_TRACE(::testing::Message() << "n_embd " << m.n_embd << ", n_ff " << m.n_ff << ", heads "
                                      << m.n_head << ", deepstack " << m.deepstack.size());
    const double flash = mib_of(projector_bytes(measured_projector(m), true).compute);
    EXPECT_GE(flash, m.flash_mib);
    // Deepstack features kept across the layers are planned for the worst order.
    EXPECT_LE(flash, m.flash_mib * (m.deepstack.empty() ? 1.10 : 1.30));
    if (m.no_flash_mib > 0) {
      const double plain = mib_of(projector_bytes(measured_projector(m), false).compute);
      EXPECT_GE(plain, m.no_flash_mib);
      EXPECT_LE(plain, m.no_flash_mib * (m.deepstack.empty() ? 1.03 : 1.30));
    }
  }
}

// The small projector the fit tests plan beside a small model: within 5 %, never below.
TEST(ProjectorDeployment, ASmallProjectorIsWithinFivePercentOfLlamaCpps) {
  const auto bytes = projector_bytes(measured_projector(kMeasuredProjectors[0]), true);
  EXPECT_GE(mib_of(bytes.compute), 39.39);
  EXPECT_LE(mib_of(bytes.compute), 39.39 * 1.05);
  // clip.cpp's "model size: 0.65 MiB": the tensors, each aligned to 32 bytes in its buffer.
  EXPECT_NEAR(mib_of(bytes.weights), 0.65, 0.005);
}

TEST(ProjectorFile, AWrittenProjectorReadsBackWithItsShapeAndTensors) {
  gauntlet::testing::TempDir dir("mmproj");
  const auto path = dir.path() / "mmproj.gguf";
  model::ProjectorShape s = model::projector_for("custom", 256);
  s.deepstack_layers = {1};
  ASSERT_TRUE(model::write_projector(s, core::TensorType::f16, path).is_ok());
  auto read = model::read_projector(path);
  ASSERT_TRUE(read.is_ok()) << read.error().message;
  EXPECT_EQ(read->shape.n_embd, 64u);
  EXPECT_EQ(read->shape.projection_dim, 256u);
  EXPECT_EQ(read->shape.deepstack_layers, std::vector<uint32_t>{1});
  EXPECT_EQ(read->tensors.size(), model::projector_tensors(s).size());
  EXPECT_EQ(projector_bytes(*read).weights,
            projector_bytes({s, model::projector_tensors(s)}).weights);
}

TEST(ProjectorFile, ATextModelOrAnUnknownProjectorTypeIsRefusedByName) {
  gauntlet::testing::TempDir dir("mmproj");
  const auto path = dir.path() / "mmproj.gguf";
  model::ProjectorShape s = model::projector_for("custom", 256);
  s.projector_type = "gemma3";
  ASSERT_TRUE(model::write_projector(s, core::TensorType::f16, path).is_ok());
  auto read = model::read_projector(path);
  ASSERT_FALSE(read.is_ok());
  EXPECT_NE(read.error().message.find("'gemma3' is not one gauntlet sizes (known: qwen3vl_merger)"),
            std::string::npos)
      << read.error().message;
  s.projector_type = model::kQwen3vlProjector;
  s.spatial_merge = 0;
  ASSERT_TRUE(model::write_projector(s, core::TensorType::f16, path, true).is_ok());
  auto zero = model::read_projector(path);
  ASSERT_FALSE(zero.is_ok());
  EXPECT_NE(zero.error().message.find("spatial_merge_size is 0"), std::string::npos);
  auto missing = model::read_projector(dir.path() / "absent.gguf");
  ASSERT_FALSE(missing.is_ok());
  EXPECT_NE(missing.error().message.find("absent.gguf"), std::string::npos);
}

}  // namespace
}  // namespace gauntlet::engine::placement
