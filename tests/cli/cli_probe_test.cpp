// The gauntlet binary's list and probe commands on the real drivers here.
#include <gtest/gtest.h>

#include <algorithm>

#include "core/json.h"
#include "tests/support/run_command.h"

namespace gauntlet::testing {
namespace {

TEST(CliList, ShowsPoclLlvmpipeHostAndNoDrmDevices) {
  auto r = run_command(gauntlet_exe() + " list");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("opencl:0"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("llvmpipe"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("host"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("drm: no devices"), std::string::npos) << r.output;
}

TEST(CliList, TwoPoclDevicesUnderPoclDevices) {
  auto r = run_command("POCL_DEVICES='pthread basic' " + gauntlet_exe() + " list --json");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  auto json = core::Json::parse(r.output);
  int opencl = 0;
  for (const auto& physical : json["physical_devices"]) {
    for (const auto& v : physical["views"]) {
      if (v["id"].get<std::string>().rfind("opencl:", 0) == 0) ++opencl;
    }
  }
  EXPECT_EQ(opencl, 2);
}

TEST(CliProbe, AMissingDeviceExitsTwoNamingTheDevicesThatExist) {
  auto r = run_command("GAUNTLET_DEVICE=vulkan:7 " + gauntlet_exe() + " probe");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("vulkan:7 does not exist"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("opencl:0"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("vulkan:0"), std::string::npos) << r.output;
}

TEST(CliProbe, FallbackToHostRunsOnHostAndSaysSo) {
  auto r = run_command("GAUNTLET_DEVICE=vulkan:7 " + gauntlet_exe() + " probe --fallback=host");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("falling back to host"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("ran on: host (fallback)"), std::string::npos) << r.output;
}

TEST(CliProbe, FlagOverridesTheEnvironment) {
  auto r =
      run_command("GAUNTLET_DEVICE=vulkan:7 " + gauntlet_exe() + " probe --device host --json");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  auto json = core::Json::parse(r.output);
  ASSERT_EQ(json["devices"].size(), 1u);
  EXPECT_EQ(json["devices"][0]["info"]["id"], "host");
  EXPECT_EQ(json["devices"][0]["smoke"]["status"], "pass");
}

TEST(CliProbe, SaxpyPassesOnEveryDevice) {
  auto r = run_command(gauntlet_exe() + " probe --json");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  auto json = core::Json::parse(r.output);
  std::vector<std::string> ids;
  for (const auto& d : json["devices"]) {
    ids.push_back(d["info"]["id"]);
    EXPECT_EQ(d["smoke"]["status"], "pass") << d["smoke"].dump();
  }
  EXPECT_NE(std::find(ids.begin(), ids.end(), "opencl:0"), ids.end());
  EXPECT_NE(std::find(ids.begin(), ids.end(), "vulkan:0"), ids.end());
  // The cpu device is judged by default; the host, the reference, only when named.
  EXPECT_NE(std::find(ids.begin(), ids.end(), "cpu"), ids.end());
  EXPECT_EQ(std::find(ids.begin(), ids.end(), "host"), ids.end());
}

// GAUNTLET_CPU_TARGET caps the cpu device's instruction set (as an older processor of a fleet
// would run it); SSE4 is one every x86-64 processor here runs.
TEST(CliProbe, CpuTargetCapsTheCpuDevicesInstructionSet) {
#if defined(__x86_64__)
  auto r = run_command("GAUNTLET_CPU_TARGET=sse4 " + gauntlet_exe() + " probe --device cpu --json");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  auto json = core::Json::parse(r.output);
  ASSERT_EQ(json["devices"].size(), 1u);
  EXPECT_EQ(json["devices"][0]["info"]["driver_version"], "SSE4");
  EXPECT_EQ(json["devices"][0]["smoke"]["status"], "pass");
#endif
  auto bad = run_command("GAUNTLET_CPU_TARGET=avx9 " + gauntlet_exe() + " probe --device cpu");
  EXPECT_EQ(bad.exit_code, 2) << bad.output;
  EXPECT_NE(bad.output.find("GAUNTLET_CPU_TARGET=avx9 is not an instruction set"),
            std::string::npos)
      << bad.output;
#if defined(__x86_64__)
  EXPECT_NE(bad.output.find("AVX2, SSE4, SSSE3"), std::string::npos) << bad.output;  // it runs
#endif
}

TEST(CliUsage, ABadFlagExitsTwo) {
  auto r = run_command(gauntlet_exe() + " probe --no-such-flag");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  auto bad_fallback = run_command(gauntlet_exe() + " probe --fallback=cpu");
  EXPECT_EQ(bad_fallback.exit_code, 2) << bad_fallback.output;
  auto bad_env = run_command("GAUNTLET_FALLBACK=cpu " + gauntlet_exe() + " list");
  EXPECT_EQ(bad_env.exit_code, 2) << bad_env.output;
  EXPECT_NE(bad_env.output.find("'cpu'"), std::string::npos);
}

}  // namespace
}  // namespace gauntlet::testing
