#include "cli/placement_flags.h"

#include <set>
#include <sstream>

#include "backends/catalog.h"

namespace gauntlet::cli {

void add_placement_flags(CLI::App& command, PlacementFlags& flags) {
  command.add_option("--device", flags.devices,
                     "host, cpu, opencl:N or vulkan:N, or a comma list of devices that share the "
                     "layers (default host)");
  add_layer_flags(command, flags.layers,
                  "-ngl: the last N layer slots (the output layer counts as one) on the "
                  "devices, the rest on the host, as llama.cpp places them (default: all)",
                  "-ts: each device's share of the offloaded layers, e.g. 3,1 (default even)");
}

void add_layer_flags(CLI::App& command, LayerFlags& layers, const std::string& ngl_help,
                     const std::string& split_help) {
  command.add_option("--n-gpu-layers", layers.n_gpu_layers, ngl_help);
  command.add_option("--tensor-split", layers.tensor_split, split_help)->delimiter(',');
  ExpertFlags& flags = layers.experts;
  command.add_flag("--cpu-moe", flags.cpu_moe,
                   "every layer's routed experts in host memory, run there (a mixture of experts)");
  command.add_option("--n-cpu-moe", flags.n_cpu_moe,
                     "the routed experts of the first N layers in host memory");
  command.add_option("--override-tensor", flags.override_tensors,
                     "-ot REGEX=DEVICE: the expert stacks whose names match on DEVICE (CPU or "
                     "host, or a --device), e.g. 'blk\\.[0-3]\\.ffn_.*_exps=CPU'; repeatable");
}

void spell_llama_flags(std::vector<std::string>& args) {
  static const std::pair<const char*, const char*> kSpellings[] = {
      {"-ngl", "--n-gpu-layers"},   {"-ts", "--tensor-split"},  {"-ub", "--ubatch-size"},
      {"-ot", "--override-tensor"}, {"-ctk", "--cache-type-k"}, {"-ctv", "--cache-type-v"},
      {"-fa", "--flash-attn"},      {"-md", "--model-draft"},   {"-devd", "--device-draft"},
      {"-np", "--parallel"}};
  for (auto& a : args) {
    for (const auto& [short_name, long_name] : kSpellings) {
      if (a == short_name) a = long_name;
    }
  }
}

core::Result<OpenedDevices> open_devices(const std::string& list, const core::Options& options) {
  OpenedDevices out;
  std::set<std::string> seen;
  std::stringstream in(list);
  std::string name;
  auto open_one = [&](const std::string& text) -> core::Result<backends::Device*> {
    const auto id = core::DeviceId::parse(text);
    if (!id || id->api == core::Api::drm) {
      return core::make_error(
          core::ErrorKind::invalid_argument,
          "--device must be host, cpu, opencl:N or vulkan:N, not '" + text + "'");
    }
    auto device = backends::open(*id, options);
    if (!device) {
      core::Error e = device.error();
      e.message = "cannot open " + text + ": " + e.message;
      return e;
    }
    out.owned.push_back(std::move(*device));
    return out.owned.back().get();
  };
  while (std::getline(in, name, ',')) {
    if (!seen.insert(name).second) {
      return core::make_error(core::ErrorKind::invalid_argument,
                              "--device names " + name + " twice");
    }
    auto d = open_one(name);
    if (!d) return d.error();
    out.devices.push_back(*d);
    // Named, the cpu device holds the placement's host layers in place of the reference.
    if (name == "host" || name == "cpu") out.host = *d;
  }
  if (out.devices.empty()) {
    return core::make_error(core::ErrorKind::invalid_argument, "--device names no device");
  }
  if (out.host == nullptr) {
    auto h = open_one("host");
    if (!h) return h.error();
    out.host = *h;
  }
  return out;
}

}  // namespace gauntlet::cli
