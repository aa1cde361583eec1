// gauntlet decode's bandwidth figures: the effective bandwidth of the decode beside the copy (and
// read) bandwidth of the same device, measured in the same run.
#include <gtest/gtest.h>

#include <map>

#include "core/json.h"
#include "engine/device/profile_check.h"
#include "engine/model/shape.h"
#include "tests/support/run_command.h"

namespace gauntlet::testing {
namespace {

core::Json decode_json(const std::string& device) {
  auto r = run_command(gauntlet_exe() + " decode --shape test-small --format Q8_0 -n 4 --device " +
                       device + " --json 2>/dev/null");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  return core::Json::parse(r.output);
}

uint64_t expected_bytes_per_token() {
  // One prompt token and four generated: the middle of the generated tokens is position 3.
  const auto shape = engine::model::preset_shape("test-small").value();
  return engine::device::bytes_read_per_token(
      shape, engine::model::model_tensors(shape, engine::model::FileType::q8_0),
      engine::planner::KvPrecision::f32, 3);
}

TEST(CliDecode, EffectiveBandwidthBesideCopyAndReadOnEachDevice) {
  for (const std::string device : {"opencl:0", "vulkan:0"}) {
    SCOPED_TRACE(device);
    const auto j = decode_json(device);
    const auto& bw = j["bandwidth"];
    EXPECT_EQ(bw["bytes_read_per_token"].get<uint64_t>(), expected_bytes_per_token());
    const double tok_s = j["tokens_per_second"].get<double>();
    ASSERT_GT(tok_s, 0.0);
    EXPECT_NEAR(bw["effective_gbps"].get<double>(),
                static_cast<double>(expected_bytes_per_token()) * tok_s / 1e9, 1e-9);
    ASSERT_GT(bw["copy_gbps"].get<double>(), 0.0);
    EXPECT_GT(bw["read_gbps"].get<double>(), 0.0);
    EXPECT_NEAR(bw["ratio_to_copy"].get<double>(),
                bw["effective_gbps"].get<double>() / bw["copy_gbps"].get<double>(), 1e-12);
  }
}

TEST(CliDecode, HostComparesWithItsMemcpy) {
  const auto j = decode_json("host");
  const auto& bw = j["bandwidth"];
  EXPECT_GT(bw["copy_gbps"].get<double>(), 0.0);
  EXPECT_FALSE(bw.contains("read_gbps"));
}

TEST(CliDecode, ProfileCountsEveryDispatchOfTheGeneratedSteps) {
  for (const std::string device : {"opencl:0", "vulkan:0"}) {
    SCOPED_TRACE(device);
    // test-small: 3 layers; -n 4 after a 1-token prompt is 3 timed steps.
    auto r = run_command(gauntlet_exe() + " decode --shape test-small -n 4 --profile --json " +
                         "--device " + device + " 2>/dev/null");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const auto j = core::Json::parse(r.output);
    std::map<std::string, uint64_t> dispatches;
    double matvec_seconds = 0;
    for (const auto& t : j["kernel_times"]) {
      dispatches[t["kernel"].get<std::string>()] = t["dispatches"].get<uint64_t>();
      if (t["kernel"] == "matvec") matvec_seconds = t["seconds"].get<double>();
    }
    const std::map<std::string, uint64_t> expected = {
        {"embed", 3},     {"matvec", 3 * (3 * 7 + 1)}, {"rmsnorm", 3 * (3 * 2 + 1)}, {"rope_kv", 9},
        {"attention", 9}, {"elementwise", 9}};
    EXPECT_EQ(dispatches, expected);
    EXPECT_GT(matvec_seconds, 0.0);
  }
}

TEST(CliDecode, ProfileOnTheHostIsAUsageError) {
  auto r = run_command(gauntlet_exe() + " decode --shape test-tiny --device host --profile");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("--profile times OpenCL and Vulkan kernels"), std::string::npos);
}

TEST(CliDecode, TextOutputNamesTheFigures) {
  auto r = run_command(gauntlet_exe() +
                       " decode --shape test-tiny --format q4_0 -n 2 --device opencl:0");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("GB/s effective"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find(", copy "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find(" of copy"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace gauntlet::testing
