#pragma once
// Placement is data: which device holds each layer slot of a model. The slots are the repeating
// layers 0..n_layer-1 and then the output layer (final norm and logits) as slot n_layer, as
// llama.cpp counts them. The input embedding stays on the host, as llama.cpp keeps its input
// layer on the CPU. `-ngl` and `-ts` are only ways to build one (from_gpu_layers); the planner
// turns one into bytes per device and make_decoder into a decoder that runs it.
#include <cstdint>
#include <string>
#include <vector>

#include "core/status.h"
#include "engine/planner/planner.h"

namespace gauntlet::engine::placement {

inline constexpr const char* kHost = "host";

// One device's share: its index in Placement::devices and its layers.
struct Share {
  uint32_t device = 0;
  planner::LayerRange layers;
};

struct Placement {
  std::vector<std::string> devices;   // names as gauntlet addresses them ("host", "opencl:0")
  std::vector<uint32_t> slot_device;  // n_layer + 1 entries, each an index into devices
  std::string label;                  // how it was asked for: "whole", "ngl=20", "ngl=33 ts=1,1"
  std::vector<std::string> notes;     // what was adjusted on the way (a clamped -ngl)
  // The device of each layer's routed experts (its ffn_*_exps stacks), n_layer entries; empty:
  // every layer's experts on the layer's device. A layer's experts are on its own device or on
  // the host (expert_placement.h).
  std::vector<uint32_t> expert_device = {};

  uint32_t n_layer() const { return static_cast<uint32_t>(slot_device.size()) - 1; }
  // One device holds every slot and every layer's experts.
  bool whole() const;
  uint32_t experts_of(uint32_t layer) const {
    return expert_device.empty() ? slot_device.at(layer) : expert_device.at(layer);
  }
  // The slots each device holds, counted per device (n_layer + 1 in all).
  std::vector<uint32_t> slots_per_device() const;
  // Each device's share in layer order. A device's slots must be one run (a split hands each
  // pass from share to share once); none of the shares embeds (the split looks tokens up on the
  // host). A device holding no slot has no share.
  core::Result<std::vector<Share>> shares() const;
  // e.g. "host: layers 0-11; opencl:0: layers 12-31 + output; host: experts of layers 12-15"
  std::string describe() const;
};

// Every slot on one device.
Placement whole(uint32_t n_layer, const std::string& device);

// llama.cpp's -ngl, --device and -ts (src/llama-model.cpp, load_tensors): of the n_layer + 1
// slots the last act_gpu_layers = min(ngl, n_layer + 1) go to the GPUs, starting at
// i_gpu_start = max(n_layer + 1 - ngl, 0); slot il of them goes to the first GPU whose cumulative
// normalised share exceeds (il - i_gpu_start) / act_gpu_layers (std::upper_bound); the slots
// before i_gpu_start stay on the host. An ngl above n_layer + 1 is clamped and said so in notes.
struct GpuLayers {
  int ngl = -1;                      // -1: every slot (llama.cpp's default of 999)
  std::vector<std::string> gpus;     // --device, in order
  std::vector<double> tensor_split;  // -ts: one share per GPU; empty: even shares
  std::string host = kHost;          // where the slots before i_gpu_start go
};
// Refuses (invalid_argument, naming the flag) a split whose length differs from the GPUs, a
// negative share or all zero, a device named twice, a negative ngl other than -1, no GPU.
core::Result<Placement> from_gpu_layers(uint32_t n_layer, const GpuLayers& request);

// What the user's llama.cpp flags ask of a placement, as every command takes them from the
// command line: -ngl and -ts (from_gpu_layers), and where a mixture's routed experts go
// (expert_placement.h): --n-cpu-moe N's first N layers (--cpu-moe: every layer), then each
// -ot REGEX=DEVICE rule in order.
struct PlacementRequest {
  int n_gpu_layers = -1;  // -1: not asked (decode and bench: every layer slot on the devices)
  std::vector<double> tensor_split;
  uint32_t n_cpu_moe = 0;
  std::vector<std::string> override_tensors;
  bool splits_layers() const { return n_gpu_layers != -1 || !tensor_split.empty(); }
  bool places_experts() const { return n_cpu_moe > 0 || !override_tensors.empty(); }
};

}  // namespace gauntlet::engine::placement
