#pragma once
// gauntlet bench's results as llama-bench prints them: a markdown table (t/s as mean ± stddev), a
// JSON array of objects, or CSV with a header row; one row per test. As llama-bench, the table
// shows the KV cache's types and -fa only when a row differs from the default (f32, off).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/bench.h"

namespace gauntlet::cli {

struct BenchRow {
  std::string model;  // the shape's name and the file type, e.g. "test-gqa Q8_0"
  uint64_t size = 0;  // bytes of the weights
  uint64_t params = 0;
  std::string backend;      // OpenCL, Vulkan or host
  std::string device;       // opencl:0
  std::string device_name;  // what the driver calls it
  uint32_t ubatch = 0;
  std::string type_k = "f32", type_v = "f32";  // the KV cache (-ctk, -ctv)
  bool flash_attn = false;                     // -fa
  engine::BenchResult result;
  // With --hold: the same test measured again after the device was held busy.
  std::optional<engine::BenchResult> steady;
  // With -md, a tgN row's share of drafted tokens the model accepted.
  std::optional<double> draft_acceptance;
};

std::string bench_markdown(const std::vector<BenchRow>& rows);
std::string bench_json(const std::vector<BenchRow>& rows);
std::string bench_csv(const std::vector<BenchRow>& rows);

}  // namespace gauntlet::cli
