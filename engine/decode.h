#pragma once
// One call that the CLI and the harness share: open (or synthesize) a model, load it onto the
// device in bounded chunks, decode greedily, and report tokens, speed and memory against the plan.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "backends/device.h"
#include "core/json.h"
#include "core/status.h"
#include "engine/kernel_times.h"
#include "engine/make_decoder.h"
#include "engine/model/shape.h"
#include "engine/planner/planner.h"
#include "engine/reference/decoder.h"
#include "engine/speculative.h"

namespace gauntlet::engine {

struct DecodeRequest {
  std::filesystem::path model_path;                // a GGUF file, or empty with `shape` set
  std::optional<model::ModelShape> shape;          // a synthetic model of this shape
  model::FileType format = model::FileType::q8_0;  // for the synthetic model
  uint64_t seed = 1;
  std::vector<int32_t> prompt = {1};
  uint32_t n_tokens = 32;
  unsigned threads = 0;
  planner::KvPrecision kv = planner::KvPrecision::f32;
  bool flash_attention = false;  // -fa (a quantized V cache needs it)
  uint32_t context = 0;          // 0: prompt + n_tokens (at most the model's context)
  uint64_t chunk_bytes = 16ull << 20;
  reference::StepCallback on_step;
  // OpenCL and Vulkan: wait for each dispatch of the generated steps and sum its device time per
  // kernel (DecodeReport::kernel_times); tok/s is then measured without overlap.
  bool time_kernels = false;
  // -ngl and -ts over the devices given (placement::from_gpu_layers); by default one device
  // holds the whole model.
  PlacementRequest placement;
  // Speculative decoding (-md): after the plain greedy decode, the same tokens generated again
  // with this draft model on `draft_device` (nullptr: the target's first device) proposing.
  std::filesystem::path draft_path;
  backends::Device* draft_device = nullptr;
  // --mtp: the same with the model file's own MTP head drafting, on the host.
  bool mtp = false;
  SpeculativeOptions speculative;
};

// The speculative decode beside the plain one: the same greedy tokens or not (a hard verdict),
// the draft's acceptance, and the time of each (prompt and generation).
struct SpeculativeReport {
  std::string draft;   // the draft model's file
  std::string device;  // where it ran
  SpeculativeOptions options;
  SpeculativeStats stats;
  std::vector<int32_t> tokens;
  bool tokens_match = false;
  size_t first_difference = 0;  // where the tokens part, when they do
  double seconds = 0, plain_seconds = 0;
  double speedup() const { return seconds > 0 ? plain_seconds / seconds : 0; }
  // The generated tokens over the speculative run's time (its prompt included).
  double tokens_per_second() const {
    return seconds > 0 ? static_cast<double>(tokens.size()) / seconds : 0;
  }
};

struct DecodeReport {
  model::ModelShape shape;
  model::FileType format = model::FileType::f32;
  std::vector<model::TensorDesc> mix;  // the model's tensors with their types
  std::string device;                  // the device, or each device of a placement and its layers
  std::string placement;               // "whole", or how it was asked for ("ngl=2")
  std::vector<std::string> placement_notes;
  uint32_t context = 0;
  planner::KvPrecision kv;       // the KV cache's K and V types (-ctk, -ctv)
  bool flash_attention = false;  // -fa
  std::vector<int32_t> prompt;
  std::vector<int32_t> generated;
  double load_seconds = 0;
  double prompt_seconds = 0;
  double generate_seconds = 0;
  double tokens_per_second = 0;  // generated tokens after the prompt
  // Weight and KV cache bytes one step reads at the middle of the generated tokens, and that
  // times tok/s: the decode's effective bandwidth.
  uint64_t bytes_read_per_token = 0;
  double effective_gbps = 0;
  uint64_t device_peak_bytes = 0;
  uint64_t rss_peak_bytes = 0;  // process high-water mark, from the start of the call
  uint64_t rss_before_bytes = 0;
  planner::MemoryPlan plan;
  KernelTimes kernel_times;  // with DecodeRequest::time_kernels, over the generated steps
  std::optional<SpeculativeReport> speculative;  // with DecodeRequest::draft_path
  core::OrderedJson to_json() const;
};

// `devices` are where the model runs (request.placement says how; `host` holds what a partial
// -ngl leaves on the host): the host backend runs the reference forward pass; OpenCL and Vulkan
// devices run the device kernels (engine/device) in the fastest variant that fits.
core::Result<DecodeReport> run_decode(const DecodeRequest& request,
                                      std::span<backends::Device* const> devices,
                                      backends::Device* host = nullptr);
inline core::Result<DecodeReport> run_decode(const DecodeRequest& request,
                                             backends::Device& device) {
  backends::Device* one = &device;
  return run_decode(request, std::span<backends::Device* const>(&one, 1));
}

}  // namespace gauntlet::engine
