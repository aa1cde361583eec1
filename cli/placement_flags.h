#pragma once
// llama.cpp's placement flags, as decode, bench and run take them: --device A[,B],
// -ngl/--n-gpu-layers N, -ts/--tensor-split a,b (llama.cpp's single-dash spellings are turned
// into the long ones before parsing: spell_llama_flags). Opening the devices they name is here
// too, so that every command refuses a device that is not there the same way (exit 2).
#include <CLI/CLI.hpp>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "backends/device.h"
#include "core/options.h"
#include "core/status.h"
#include "engine/make_decoder.h"

namespace gauntlet::cli {

// Where a mixture's routed experts go: --cpu-moe, --n-cpu-moe N, -ot REGEX=DEVICE.
struct ExpertFlags {
  bool cpu_moe = false;
  uint32_t n_cpu_moe = 0;
  std::vector<std::string> override_tensors;
  // The layers whose experts go to the host: UINT32_MAX for --cpu-moe.
  uint32_t expert_layers() const { return cpu_moe ? UINT32_MAX : n_cpu_moe; }
};

// -ngl, -ts and the expert flags: what the user asks of a placement (engine::PlacementRequest).
struct LayerFlags {
  int n_gpu_layers = -1;
  std::vector<double> tensor_split;
  ExpertFlags experts;
  engine::PlacementRequest request() const {
    return {n_gpu_layers, tensor_split, experts.expert_layers(), experts.override_tensors};
  }
};

struct PlacementFlags {
  std::string devices = "host";
  LayerFlags layers;
  engine::PlacementRequest request() const { return layers.request(); }
};

// --device, then add_layer_flags with decode's and bench's meanings of -ngl and -ts.
void add_placement_flags(CLI::App& command, PlacementFlags& flags);
// -ngl/--n-gpu-layers and -ts/--tensor-split with the command's own help (run places its checked
// profiles by them; decode and bench the one decoder), then --cpu-moe, --n-cpu-moe and
// -ot/--override-tensor.
void add_layer_flags(CLI::App& command, LayerFlags& flags, const std::string& ngl_help,
                     const std::string& split_help);

// Rewrites llama.cpp's -ngl, -ts, -ub and -ot into --n-gpu-layers, --tensor-split,
// --ubatch-size and --override-tensor (CLI11 takes one letter after a single dash).
void spell_llama_flags(std::vector<std::string>& args);

struct OpenedDevices {
  std::vector<std::unique_ptr<backends::Device>> owned;
  std::vector<backends::Device*> devices;  // the --device list, in order
  backends::Device* host = nullptr;        // for the layers -ngl leaves on the host
};

// Opens each device of the comma list (host, opencl:N, vulkan:N) and the host. A bad name or a
// device that is not there is invalid_argument / not_found, naming it.
core::Result<OpenedDevices> open_devices(const std::string& list, const core::Options& options);

}  // namespace gauntlet::cli
