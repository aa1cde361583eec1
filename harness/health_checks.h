#pragma once
// The node gate's checks of one device, each seconds long, each in an isolated child limited to
// what the deadline leaves: probe (open the device, saxpy), conform (the dtype rows the
// baseline's safe profiles rely on), memory (a sentinel write/verify over a bounded share of free
// memory, stress's patterns), decode (a small built-in model against the host reference). The
// test faults "health.slow=<check>" (the check's child sleeps past the deadline) and
// "health.decode=wrong" (the device decodes a model whose weights differ from the reference's)
// drive the deadline and the critical verdict in tests.
#include <filesystem>
#include <string>
#include <vector>

#include "core/device_info.h"
#include "core/options.h"
#include "harness/health_deadline.h"
#include "reports/health.h"

namespace gauntlet::harness {

// The decode check's models: the reference and, under the fault "health.decode=wrong", a model
// of the same shape from another seed; written into `dir`.
struct HealthModels {
  std::filesystem::path reference;
  std::filesystem::path tested;
};
core::Result<HealthModels> write_health_models(const std::filesystem::path& dir,
                                               const core::Options& options);

// The sentinel's bytes: 1/64 of the memory free to the device, at most 64 MiB, at least 1 MiB.
uint64_t sentinel_bytes(const core::DeviceInfo& device);

std::vector<reports::HealthCheck> run_device_checks(const core::DeviceInfo& device,
                                                    const core::Options& options,
                                                    const std::vector<std::string>& conform_globs,
                                                    const HealthModels& models,
                                                    const Deadline& deadline);

}  // namespace gauntlet::harness
