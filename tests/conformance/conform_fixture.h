#pragma once
// Runs the conformance suite once per device and test binary (on the real driver), and the
// helpers the device tests share.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "conformance/conformance.h"
#include "probes/inventory.h"

namespace gauntlet::conformance::testing {

inline core::DeviceInfo claimed_device(const core::Options& options, const std::string& id) {
  auto inventory = probes::enumerate_all(options);
  auto parsed = core::DeviceId::parse(id);
  const core::DeviceInfo* info = parsed ? inventory.find(*parsed) : nullptr;
  if (info == nullptr) {
    ADD_FAILURE() << id << " is not on this machine (PoCL and llvmpipe must be installed)";
    return {};
  }
  return *info;
}

inline ConformanceResult run(const std::string& id, const std::string& filter = "*",
                             const std::string& faults = "") {
  auto options = core::Options::from_environment();
  EXPECT_TRUE(options.is_ok());
  core::Options o = options.is_ok() ? *options : core::Options{};
  o.test_faults = faults;
  ConformanceOptions conf;
  conf.filter = filter;
  conf.limits.timeout = std::chrono::seconds(120);
  return run_conformance(claimed_device(o, id), o, conf);
}

// The quick suite on `id`, once per process.
inline const ConformanceResult& full_run(const std::string& id) {
  static std::map<std::string, ConformanceResult> cache;
  auto it = cache.find(id);
  if (it == cache.end()) it = cache.emplace(id, run(id)).first;
  return it->second;
}

inline const core::Row* find_row(const ConformanceResult& r, const std::string& id) {
  for (const auto& row : r.rows) {
    if (row.id == id) return &row;
  }
  return nullptr;
}

inline Verdict verdict(const ConformanceResult& r, const std::string& key) {
  auto it = r.features.find(key);
  return it == r.features.end() ? Verdict::not_tested : it->second.verdict;
}

inline std::string rows_text(const ConformanceResult& r) {
  std::string text;
  for (const auto& row : r.rows) {
    text += row.id + " " + core::to_string(row.status) + " " + row.reason + "\n";
  }
  return text;
}

}  // namespace gauntlet::conformance::testing
