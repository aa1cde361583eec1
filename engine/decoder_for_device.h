#pragma once
// The decoder a device runs: the host reference forward pass on the host backend, the device
// kernels on OpenCL and Vulkan in the fastest variant that fits the device's local memory. Decode
// and bench build theirs here, so both run what the device would run.
#include <cstdint>
#include <memory>
#include <span>

#include "backends/device.h"
#include "core/status.h"
#include "engine/batch.h"
#include "engine/device/device_decoder.h"
#include "engine/host_decoder.h"
#include "engine/loader/loader.h"
#include "engine/planner/planner.h"
#include "engine/speed.h"

namespace gauntlet::engine {

struct DecoderOptions {
  unsigned threads = 0;  // host: CPU threads (0: all)
  planner::KvPrecision kv = planner::KvPrecision::f32;
  uint32_t context = 0;      // KV cache positions
  uint32_t micro_batch = 1;  // the most prompt tokens in one pass
};

class DecoderForDevice {
 public:
  // `model` must have been loaded onto `device`, and both must outlive the decoder. On OpenCL and
  // Vulkan the configuration is checked against the device's local memory and claims first.
  static core::Result<std::unique_ptr<DecoderForDevice>> create(backends::Device& device,
                                                                const loader::DeviceModel& model,
                                                                const DecoderOptions& options);

  core::Result<std::span<const float>> step(int32_t token);
  core::Result<std::span<const float>> forward(std::span<const BatchToken> batch);
  void reset();
  // The device decoder, or nullptr on the host.
  device::DeviceDecoder* device_decoder() { return device_.get(); }
  // forward and reset as engine/speed times them.
  SpeedDecoder speed_decoder();

 private:
  uint32_t n_vocab_ = 0;
  std::unique_ptr<HostDeviceDecoder> host_;
  std::unique_ptr<device::DeviceDecoder> device_;
};

}  // namespace gauntlet::engine
