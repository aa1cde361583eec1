#include "probes/inventory.h"

#include <signal.h>

#include <thread>

#include "backends/catalog.h"

namespace gauntlet::probes {

namespace {

void inject_fault(const core::Options& options, core::Api api) {
  auto fault = options.fault_for(std::string("probe.") + core::to_string(api));
  if (!fault) return;
  if (*fault == "crash") ::raise(SIGSEGV);
  if (*fault == "hang") {
    for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
  }
}

ApiEnumeration enumerate_one(core::Api api, const core::Options& options,
                             const core::IsolationLimits& limits) {
  ApiEnumeration result;
  result.api = api;
  const std::string unit = std::string("enumerate.") + core::to_string(api);
  core::IsolatedRun run = core::run_isolated(unit, "", limits, [&]() -> core::Json {
    inject_fault(options, api);
    auto devices = backends::enumerate(api, options);
    if (!devices) return core::Json{{"error", devices.error().describe()}};
    return core::Json{{"devices", *devices}};
  });
  if (!run.completed) {
    result.row = run.failure;
    return result;
  }
  result.row = core::make_row(unit, "", core::RowStatus::pass);
  result.row.duration_s = run.duration_s;
  if (run.payload.contains("error")) {
    result.row.status = core::RowStatus::error;
    result.row.reason = run.payload["error"].get<std::string>();
    return result;
  }
  try {
    result.devices = run.payload.at("devices").get<std::vector<core::DeviceInfo>>();
  } catch (const std::exception& e) {
    result.row.status = core::RowStatus::error;
    result.row.reason = std::string("malformed enumeration result: ") + e.what();
    return result;
  }
  result.row.metrics["devices"] = result.devices.size();
  return result;
}

}  // namespace

core::IsolationLimits default_probe_limits() {
  core::IsolationLimits limits;
  limits.timeout = std::chrono::seconds(30);
  return limits;
}

Inventory enumerate_all(const core::Options& options, const core::IsolationLimits& limits) {
  Inventory inventory;
  for (core::Api api : backends::compiled_apis()) {
    if (api == core::Api::host) {
      ApiEnumeration host;
      host.api = api;
      host.devices = backends::enumerate(api, options).value();
      host.row = core::make_row("enumerate.host", "", core::RowStatus::pass);
      host.row.metrics["devices"] = host.devices.size();
      inventory.apis.push_back(std::move(host));
      continue;
    }
    inventory.apis.push_back(enumerate_one(api, options, limits));
  }
  return inventory;
}

std::vector<core::DeviceInfo> Inventory::devices() const {
  std::vector<core::DeviceInfo> all;
  for (const auto& api : apis) all.insert(all.end(), api.devices.begin(), api.devices.end());
  return all;
}

std::vector<core::Row> Inventory::rows() const {
  std::vector<core::Row> rows;
  for (const auto& api : apis) rows.push_back(api.row);
  return rows;
}

const core::DeviceInfo* Inventory::find(const core::DeviceId& id) const {
  for (const auto& api : apis) {
    for (const auto& device : api.devices) {
      if (device.id == id) return &device;
    }
  }
  return nullptr;
}

}  // namespace gauntlet::probes
