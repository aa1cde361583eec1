#include "backends/vulkan/spirv_reflect.h"

#include <unordered_map>
#include <vector>

namespace gauntlet::backends::vulkan {

namespace {

constexpr uint32_t kMagic = 0x07230203;
constexpr uint32_t kOpDecorate = 71;
constexpr uint32_t kOpTypeBool = 20;
constexpr uint32_t kOpTypeInt = 21;
constexpr uint32_t kOpTypeFloat = 22;
constexpr uint32_t kOpTypeVector = 23;
constexpr uint32_t kOpTypeMatrix = 24;
constexpr uint32_t kOpTypeArray = 28;
constexpr uint32_t kOpTypeStruct = 30;
constexpr uint32_t kOpTypePointer = 32;
constexpr uint32_t kOpConstant = 43;
constexpr uint32_t kOpSpecConstant = 50;
constexpr uint32_t kOpVariable = 59;
constexpr uint32_t kDecorationSpecId = 1;
constexpr uint32_t kStorageWorkgroup = 4;

struct Type {
  uint32_t op = 0;
  std::vector<uint32_t> operands;  // the words after the result id
};

class Module {
 public:
  std::unordered_map<uint32_t, Type> types;
  std::unordered_map<uint32_t, uint32_t> scalars;   // constant id -> low word of its value
  std::unordered_map<uint32_t, uint32_t> spec_ids;  // constant id -> SpecId
  std::vector<uint32_t> workgroup_pointer_types;    // result types of Workgroup variables

  std::optional<uint64_t> size_of(uint32_t type_id, int depth = 0) const {
    if (depth > 64) return std::nullopt;
    auto it = types.find(type_id);
    if (it == types.end()) return std::nullopt;
    const Type& t = it->second;
    switch (t.op) {
      case kOpTypeBool:
        return 4;
      case kOpTypeInt:
      case kOpTypeFloat:
        if (t.operands.empty()) return std::nullopt;
        return t.operands[0] / 8;
      case kOpTypeVector:
      case kOpTypeMatrix: {
        if (t.operands.size() < 2) return std::nullopt;
        auto element = size_of(t.operands[0], depth + 1);
        if (!element) return std::nullopt;
        return *element * t.operands[1];
      }
      case kOpTypeArray: {
        if (t.operands.size() < 2) return std::nullopt;
        auto element = size_of(t.operands[0], depth + 1);
        auto length = scalars.find(t.operands[1]);
        if (!element || length == scalars.end()) return std::nullopt;
        return *element * length->second;
      }
      case kOpTypeStruct: {
        uint64_t total = 0;
        for (uint32_t member : t.operands) {
          auto size = size_of(member, depth + 1);
          if (!size) return std::nullopt;
          total += *size;
        }
        return total;
      }
      case kOpTypePointer:
        if (t.operands.size() < 2) return std::nullopt;
        return size_of(t.operands[1], depth + 1);
      default:
        return std::nullopt;
    }
  }
};

}  // namespace

std::optional<uint64_t> workgroup_memory_bytes(std::span<const uint32_t> spirv,
                                               const std::map<uint32_t, uint32_t>& spec_values) {
  if (spirv.size() < 5 || spirv[0] != kMagic) return std::nullopt;
  Module m;
  std::vector<std::pair<uint32_t, uint32_t>> spec_constants;  // (id, default)
  for (size_t at = 5; at < spirv.size();) {
    const uint32_t words = spirv[at] >> 16;
    const uint32_t op = spirv[at] & 0xffff;
    if (words == 0 || at + words > spirv.size()) return std::nullopt;
    auto w = spirv.subspan(at + 1, words - 1);
    switch (op) {
      case kOpDecorate:
        if (w.size() >= 3 && w[1] == kDecorationSpecId) m.spec_ids[w[0]] = w[2];
        break;
      case kOpTypeBool:
      case kOpTypeInt:
      case kOpTypeFloat:
      case kOpTypeVector:
      case kOpTypeMatrix:
      case kOpTypeArray:
      case kOpTypeStruct:
      case kOpTypePointer:
        if (!w.empty()) m.types[w[0]] = Type{op, std::vector<uint32_t>(w.begin() + 1, w.end())};
        break;
      case kOpConstant:
        if (w.size() >= 3) m.scalars[w[1]] = w[2];
        break;
      case kOpSpecConstant:
        if (w.size() >= 3) spec_constants.emplace_back(w[1], w[2]);
        break;
      case kOpVariable:
        if (w.size() >= 3 && w[2] == kStorageWorkgroup) m.workgroup_pointer_types.push_back(w[0]);
        break;
      default:
        break;
    }
    at += words;
  }
  for (auto [id, value] : spec_constants) {
    auto spec = m.spec_ids.find(id);
    if (spec != m.spec_ids.end()) {
      if (auto given = spec_values.find(spec->second); given != spec_values.end()) {
        value = given->second;
      }
    }
    m.scalars[id] = value;
  }
  uint64_t total = 0;
  for (uint32_t pointer : m.workgroup_pointer_types) {
    auto size = m.size_of(pointer);
    if (!size) return std::nullopt;
    total += *size;
  }
  return total;
}

}  // namespace gauntlet::backends::vulkan
