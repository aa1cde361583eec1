#pragma once
// Bounded loading: the weights go from the memory-mapped GGUF file to a backends::Device one
// chunk at a time through one reusable staging vector, and the mapped pages are dropped from
// the resident set as soon as they are copied, so host memory peaks at steady state plus one
// chunk, never at two copies of the model.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "backends/device.h"
#include "core/status.h"
#include "engine/model/gguf.h"
#include "engine/model/loaded_model.h"
#include "engine/planner/planner.h"

namespace gauntlet::engine::loader {

struct LoadOptions {
  uint64_t chunk_bytes = 16ull << 20;
  // The share of the layers the device holds (a placement's): only its tensors are uploaded.
  planner::LayerRange layers = planner::LayerRange::whole();
  // The file already bound by the caller (model::load_model: its shape, checks and views), so
  // that a decode reads the file's metadata once; nullptr: bound here.
  const model::LoadedModel* bound = nullptr;
};

struct DeviceTensor {
  model::TensorInfo info;
  std::unique_ptr<backends::Buffer> buffer;
  // Laid out for the cpu device's interleaved kernels (cpu/interleaved.h), not the file's.
  bool interleaved = false;
};

// A model whose weights live on one device, one buffer per tensor.
struct DeviceModel {
  model::ModelShape shape;
  model::FileType file_type = model::FileType::f32;
  std::vector<model::TensorDesc> mix;  // the tensors with their types, as the planner sees them
  model::GgufInfo layout;  // the tensors below, in the same order (offsets as in the file)
  std::vector<DeviceTensor> tensors;
  uint64_t weight_bytes() const;
};

struct LoadStats {
  uint64_t bytes = 0;
  uint64_t chunks = 0;
  uint64_t staging_bytes = 0;  // the staging vector's size
  double seconds = 0;
};

// Validates the model, then uploads every tensor its architecture uses (in options.layers). On the
// cpu device, where its processor has the kernels, the q4_0 and q8_0 projections go interleaved, as
// llama.cpp repacks them on load (cpu::interleaves says which).
core::Result<DeviceModel> load_to_device(const model::GgufFile& file, backends::Device& device,
                                         const LoadOptions& options, LoadStats* stats = nullptr);

// Process memory: resident now and its high-water mark (VmRSS / VmHWM), and a reset of the mark
// (writes 5 to /proc/self/clear_refs; false if the kernel refuses).
uint64_t rss_bytes();
uint64_t rss_peak_bytes();
bool reset_rss_peak();

}  // namespace gauntlet::engine::loader
