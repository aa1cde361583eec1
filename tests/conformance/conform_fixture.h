#pragma once
// Runs the conformance suite once per device and test binary (on the real driver), and the
// helpers the device tests share.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "conformance/conformance.h"
#include "core/tensor_type.h"
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

// Every weight type gauntlet knows has a dequantization row ("conform.gguf.<type>") that passed,
// decode16 and value_at both, on random blocks and the hand-made extreme ones; a quantized type's
// row is the whole of its feature's verdict.
inline void expect_every_type_dequantizes(const ConformanceResult& r) {
  ASSERT_GE(core::all_tensor_types().size(), 5u);
  for (const core::TypeTraits& t : core::all_tensor_types()) {
    const std::string id = std::string("conform.gguf.") + t.name;
    const core::Row* row = find_row(r, id);
    ASSERT_NE(row, nullptr) << id << "\n" << rows_text(r);
    EXPECT_EQ(row->status, core::RowStatus::pass) << id << ": " << row->reason;
    EXPECT_EQ(row->metrics.value("hand_made", 0u), core::is_quantized(t.type) ? 7u : 16u) << id;
    EXPECT_GE(row->metrics.value("elements", 0u), 1024u) << id;
    if (core::is_quantized(t.type)) {
      EXPECT_EQ(verdict(r, t.name), Verdict::verified) << t.name;
      EXPECT_EQ(r.features.at(t.name).rows, std::vector<std::string>{id});
    }
  }
}

// A flipped bit in one decoded element (the test-only fault) fails the type's row, with the
// index, the type, the entry point, the block and its bytes, expected and actual bits, the seed.
inline ConformanceResult expect_wrong_dequantization_fails(const std::string& device,
                                                           const std::string& type) {
  const std::string id = "conform.gguf." + type;
  auto r = run(device, id, id + "=wrong");
  const core::Row* row = find_row(r, id);
  EXPECT_NE(row, nullptr) << rows_text(r);
  if (row == nullptr) return r;
  EXPECT_EQ(row->status, core::RowStatus::fail);
  const auto n = row->metrics.value("elements", 0u);
  const auto half = n / 2;
  const auto block = core::block_elements(*core::parse_tensor_type(type));
  const std::string where = "index " + std::to_string(half) + ": type = " + type +
                            ", entry = decode16, block = " + std::to_string(half / block) +
                            ", element = " + std::to_string(half % block) + ", block bytes = ";
  EXPECT_NE(row->reason.find(where), std::string::npos) << row->reason;
  EXPECT_NE(row->reason.find("; expected 0x"), std::string::npos) << row->reason;
  EXPECT_NE(row->reason.find(", actual 0x"), std::string::npos) << row->reason;
  EXPECT_NE(row->reason.find("(bit-exact); seed 0x"), std::string::npos) << row->reason;
  EXPECT_EQ(verdict(r, type), Verdict::failed);
  return r;
}

}  // namespace gauntlet::conformance::testing
