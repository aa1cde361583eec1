#include "engine/loader/loader.h"

#include <chrono>
#include <cstring>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>

#include "engine/cpu/dot_kernels.h"

namespace gauntlet::engine::loader {

namespace {

constexpr uint64_t kMapSlice = 1ull << 20;

uint64_t status_field_kib(const std::string& field) {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(field + ":", 0) == 0) {
      std::istringstream fields(line.substr(field.size() + 1));
      uint64_t kib = 0;
      fields >> kib;
      return kib;
    }
  }
  return 0;
}

}  // namespace

uint64_t rss_bytes() { return status_field_kib("VmRSS") * 1024; }
uint64_t rss_peak_bytes() { return status_field_kib("VmHWM") * 1024; }

bool reset_rss_peak() {
  std::ofstream out("/proc/self/clear_refs");
  out << "5";
  out.flush();
  return static_cast<bool>(out);
}

uint64_t DeviceModel::weight_bytes() const {
  uint64_t total = 0;
  for (const auto& t : tensors) total += t.info.bytes;
  return total;
}

core::Result<DeviceModel> load_to_device(const model::GgufFile& file, backends::Device& device,
                                         const LoadOptions& options, LoadStats* stats) {
  const auto start = std::chrono::steady_clock::now();
  if (options.chunk_bytes == 0) {
    return core::make_error(core::ErrorKind::invalid_argument, "the load chunk must be > 0 bytes");
  }
  // Binding checks every shape without touching the weight bytes.
  std::optional<model::LoadedModel> own;
  const model::LoadedModel* checked = options.bound;
  if (checked == nullptr) {
    auto bound = model::load_model(file.info(), file.bytes());
    if (!bound) return bound.error();
    own = std::move(*bound);
    checked = &*own;
  }

  DeviceModel m;
  m.shape = checked->shape;
  m.file_type = checked->file_type;
  m.mix = checked->tensors;
  m.layout.version = file.info().version;
  m.layout.alignment = file.info().alignment;
  m.layout.metadata = {};
  std::set<std::string> wanted;
  for (const auto& t : model::model_tensors(m.shape, model::FileType::f32)) {
    if (planner::holds_tensor(options.layers, m.shape, t.name)) wanted.insert(t.name);
  }

  uint64_t largest = 0;
  for (const auto& t : file.info().tensors) {
    if (wanted.count(t.name)) largest = std::max(largest, t.bytes);
  }
  std::vector<std::byte> staging(std::min(options.chunk_bytes, largest));
  std::vector<std::byte> rearranged;
  const bool interleave_here =
      device.info().products == core::Products::int8_simd && cpu::interleaved_kernels();
  LoadStats local;
  local.staging_bytes = staging.size();

  for (const auto& t : file.info().tensors) {
    if (!wanted.count(t.name)) continue;
    // Whole 32-bit words: shaders read q6_K and q5_0 rows (2-byte aligned blocks) as words.
    auto buffer = device.allocate((t.bytes + 3) / 4 * 4);
    if (!buffer) {
      core::Error e = buffer.error();
      e.message =
          "loading tensor '" + t.name + "' (" + std::to_string(t.bytes) + " bytes): " + e.message;
      return e;
    }
    const uint64_t base = file.info().data_offset + t.offset;
    // An interleaved tensor goes in whole groups of eight rows (the layout of rows [8g, 8g')
    // fills exactly their bytes), rearranged in a second staging vector.
    const uint64_t n_in = t.ne.empty() ? 0 : t.ne[0];
    const uint64_t group_bytes = cpu::kGroupRows * model::row_bytes(t.type, n_in);
    const bool interleave = interleave_here && t.ne.size() == 2 && group_bytes <= staging.size() &&
                            cpu::interleaves(t.type, t.name, t.ne[1], 1);
    const uint64_t slice = interleave ? staging.size() / group_bytes * group_bytes : staging.size();
    if (interleave) rearranged.resize(slice);
    for (uint64_t done = 0; done < t.bytes;) {
      const uint64_t n = std::min<uint64_t>(slice, t.bytes - done);
      // Copy and drop the mapped pages a slice at a time, so that at most one slice of the
      // map is resident beside the staging chunk.
      for (uint64_t s = 0; s < n; s += kMapSlice) {
        const uint64_t len = std::min(kMapSlice, n - s);
        std::memcpy(staging.data() + s, file.bytes().data() + base + done + s, len);
        file.map().release(base + done + s, len);
      }
      const std::byte* from = staging.data();
      if (interleave) {
        cpu::interleave(t.type, staging.data(), n / group_bytes * cpu::kGroupRows, n_in,
                        rearranged.data());
        from = rearranged.data();
      }
      GAUNTLET_TRY(device.upload(**buffer, std::span<const std::byte>(from, n), done));
      done += n;
      local.bytes += n;
      ++local.chunks;
    }
    m.layout.tensors.push_back(t);
    m.tensors.push_back({t, std::move(*buffer), interleave});
  }
  local.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (stats != nullptr) *stats = local;
  return m;
}

}  // namespace gauntlet::engine::loader
