#include "engine/placement/placement.h"

#include <algorithm>
#include <set>

namespace gauntlet::engine::placement {

namespace {

std::string join(const std::vector<double>& values) {
  std::string out;
  for (double v : values) {
    if (!out.empty()) out += ",";
    std::string text = std::to_string(v);
    text.erase(text.find_last_not_of('0') + 1);
    if (text.back() == '.') text.pop_back();
    out += text;
  }
  return out;
}

}  // namespace

bool Placement::whole() const {
  const auto same = [&](uint32_t d) { return d == slot_device.front(); };
  return std::all_of(slot_device.begin(), slot_device.end(), same) &&
         std::all_of(expert_device.begin(), expert_device.end(), same);
}

std::vector<uint32_t> Placement::slots_per_device() const {
  std::vector<uint32_t> count(devices.size(), 0);
  for (uint32_t d : slot_device) ++count[d];
  return count;
}

core::Result<std::vector<Share>> Placement::shares() const {
  if (slot_device.empty()) return core::invalid_argument("a placement of no layer slots");
  std::vector<Share> out;
  std::set<uint32_t> seen;
  const uint32_t n = n_layer();
  for (uint32_t slot = 0; slot <= n; ++slot) {
    const uint32_t d = slot_device[slot];
    if (d >= devices.size())
      return core::invalid_argument("layer slot " + std::to_string(slot) + " has no device");
    if (out.empty() || out.back().device != d) {
      if (!seen.insert(d).second) {
        return core::invalid_argument(
            "device " + devices[d] +
            " holds two separate runs of layers; a split hands each pass over once");
      }
      out.push_back({d, {slot, slot, false, false}});
    }
    auto& layers = out.back().layers;
    if (slot == n) {
      layers.output = true;
      continue;
    }
    layers.last = slot + 1;
    const uint32_t experts = experts_of(slot);
    if (experts == d) continue;
    if (experts >= devices.size() || devices[experts] != kHost) {
      return core::invalid_argument(
          "the experts of layer " + std::to_string(slot) + " are placed on " +
          (experts < devices.size() ? devices[experts] : std::string("no device")) +
          "; a layer's experts run on its own device or on the host");
    }
    layers.experts_elsewhere.push_back(slot);
  }
  return out;
}

std::string Placement::describe() const {
  auto shares_or = shares();
  if (!shares_or) return label;
  std::string out;
  for (const auto& s : *shares_or) {
    if (!out.empty()) out += "; ";
    out += devices[s.device] + ":";
    if (s.layers.last == s.layers.first + 1) out += " layer " + std::to_string(s.layers.first);
    if (s.layers.last > s.layers.first + 1) {
      out += " layers " + std::to_string(s.layers.first) + "-" + std::to_string(s.layers.last - 1);
    }
    if (s.layers.output) out += s.layers.last > s.layers.first ? " + output" : " output";
    if (!s.layers.experts_elsewhere.empty()) {
      const auto& e = s.layers.experts_elsewhere;
      out.append(e.size() > 1 ? " (experts of layers " : " (experts of layer ")
          .append(std::to_string(e.front()));
      if (e.size() > 1) out.append("-").append(std::to_string(e.back()));
      out += " on the host)";
    }
  }
  return out;
}

Placement whole(uint32_t n_layer, const std::string& device) {
  return {{device}, std::vector<uint32_t>(n_layer + 1, 0), "whole", {}};
}

core::Result<Placement> from_gpu_layers(uint32_t n_layer, const GpuLayers& r) {
  if (r.gpus.empty())
    return core::invalid_argument("--n-gpu-layers needs a --device to offload to");
  std::set<std::string> names{r.host};
  for (const auto& g : r.gpus) {
    if (g == r.host)
      return core::invalid_argument("--device " + g + " is the host, which holds the other layers");
    if (!names.insert(g).second) return core::invalid_argument("--device names " + g + " twice");
  }
  std::vector<double> split = r.tensor_split;
  if (split.empty()) split.assign(r.gpus.size(), 1.0);
  if (split.size() != r.gpus.size()) {
    return core::invalid_argument("--tensor-split has " + std::to_string(split.size()) +
                                  " shares for " + std::to_string(r.gpus.size()) + " devices");
  }
  double sum = 0;
  for (double s : split) {
    if (!(s >= 0))
      return core::invalid_argument("--tensor-split share " + join({s}) + " is negative");
    sum += s;
  }
  if (sum <= 0) return core::invalid_argument("--tensor-split shares are all 0");
  if (r.ngl < -1)
    return core::invalid_argument("--n-gpu-layers " + std::to_string(r.ngl) + " is negative");

  Placement p;
  const int slots = static_cast<int>(n_layer) + 1;
  int ngl = r.ngl < 0 ? slots : r.ngl;
  if (ngl > slots) {
    p.notes.push_back("--n-gpu-layers " + std::to_string(ngl) + " clamped to " +
                      std::to_string(slots) + " (" + std::to_string(n_layer) +
                      " layers and the output layer)");
    ngl = slots;
  }
  // Cumulative shares, normalised (llama.cpp: splits[i] += splits[i - 1]; splits[i] /= sum).
  std::vector<double> cumulative(split.size());
  double acc = 0;
  for (size_t i = 0; i < split.size(); ++i) cumulative[i] = (acc += split[i]) / sum;
  const int i_gpu_start = std::max(slots - ngl, 0);
  const int act_gpu_layers = std::min(ngl, slots);
  p.devices = r.gpus;
  p.devices.push_back(r.host);
  const auto host = static_cast<uint32_t>(r.gpus.size());
  for (int il = 0; il < slots; ++il) {
    if (il < i_gpu_start) {
      p.slot_device.push_back(host);
      continue;
    }
    const double at = static_cast<double>(il - i_gpu_start) / act_gpu_layers;
    const auto gpu =
        std::upper_bound(cumulative.begin(), cumulative.end(), at) - cumulative.begin();
    p.slot_device.push_back(static_cast<uint32_t>(std::min<size_t>(gpu, r.gpus.size() - 1)));
  }
  p.label = "ngl=" + std::to_string(ngl);
  if (r.gpus.size() > 1) p.label += " ts=" + join(split);
  return p;
}

}  // namespace gauntlet::engine::placement
