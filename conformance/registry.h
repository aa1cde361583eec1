#pragma once
// The case registry: each case family registers the cases it runs, the features each case
// speaks for and the error bound it declares. A family runs in one isolated child (opening a
// device and building its programs once), and yields one row per case.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "backends/device.h"
#include "conformance/error_bound.h"
#include "core/device_info.h"
#include "core/options.h"
#include "core/outcome.h"

namespace gauntlet::conformance {

using core::Result;
using core::Status;

struct CaseSpec {
  std::string id;                     // row id, e.g. "conform.f16.emulated.add"
  std::vector<std::string> features;  // feature keys the row speaks for
  ErrorBound bound;
};

// What a family's code sees inside its child.
struct CaseContext {
  backends::Device& device;
  backends::Device& host;  // the reference
  const core::DeviceInfo& claimed;
  const core::Options& options;
  core::Level level = core::Level::quick;
  std::string filter = "*";
  uint64_t seed = 0;

  bool wants(const std::string& id) const;
  std::string device_name() const { return claimed.id.to_string(); }
  bool is_vulkan() const { return claimed.id.api == core::Api::vulkan; }
  bool is_opencl() const { return claimed.id.api == core::Api::opencl; }
  size_t elements() const;      // per case: 1024 quick, 16384 standard, 65536 full
  unsigned seed_count() const;  // 1 quick, 2 standard, 4 full
  // "wrong" or "oob" when the test-only fault switch names this site.
  std::string fault(const std::string& site) const;
};

struct Family {
  std::string name;  // "dtype", "convert", "quant", "local_memory", "workgroup"
  std::vector<CaseSpec> cases;
  std::function<std::vector<core::Row>(CaseContext&)> run;
};

const std::vector<Family>& families();
const CaseSpec* find_case(const std::string& row_id);

bool glob_match(const std::string& pattern, const std::string& text);

// Families, one per file.
Family dtype_family();
Family convert_family();
Family quant_family();
Family local_memory_family();
Family workgroup_family();

}  // namespace gauntlet::conformance
