#pragma once
// The factory of every decoder the engine runs: one device with the whole model (the host
// backend runs the reference forward pass; OpenCL and Vulkan the device kernels in the fastest
// variant that fits their local memory, checked first), or a placement across devices (each
// device's share loaded onto it, passes handed from share to share). decode, bench, the profile
// checks and the benchmarks build theirs here, so each runs what the device would run.
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "backends/device.h"
#include "core/status.h"
#include "engine/decoder.h"
#include "engine/loader/loader.h"
#include "engine/model/gguf.h"
#include "engine/placement/placement.h"
#include "engine/planner/decoder_settings.h"
#include "engine/planner/planner.h"

namespace gauntlet::engine {

using planner::DecoderSettings;

// The whole model on one device; `model` must have been loaded onto `device`, and both must
// outlive the decoder.
core::Result<std::unique_ptr<Decoder>> make_decoder(backends::Device& device,
                                                    const loader::DeviceModel& model,
                                                    const DecoderSettings& options);

using placement::PlacementRequest;

// The placement of a model on `devices` (the --device list) with the host holding what is not
// offloaded; one device without -ngl and without expert placement is that device whole. With it,
// the devices in placement order (`host` where it holds a share or experts).
struct PlacedDevices {
  placement::Placement placement;
  std::vector<backends::Device*> devices;
};
core::Result<PlacedDevices> place(const model::ModelShape& shape, const PlacementRequest& request,
                                  std::span<backends::Device* const> devices,
                                  backends::Device* host);

// `devices[i]` is `placement.devices[i]`; `file` must outlive the decoder. Loads each device's
// share of the file onto it (a whole placement loads the whole model onto its device). On the
// host a share runs the reference over the file's mapped bytes, as llama.cpp's CPU backend runs
// over its mapped file.
core::Result<std::unique_ptr<Decoder>> make_decoder(const placement::Placement& placement,
                                                    std::span<backends::Device* const> devices,
                                                    const model::GgufFile& file,
                                                    const DecoderSettings& options);

}  // namespace gauntlet::engine
