// `gauntlet doctor` run as a user would run it, through the built binary.
#include <gtest/gtest.h>
#include <stdio.h>
#include <sys/wait.h>

#include "core/json.h"
#include "tests/probes/doctor_test_support.h"
#include "tests/support/run_command.h"

namespace gauntlet::probes {
namespace {

using testing::TempDir;

struct CliRun {
  int exit_code = -1;
  std::string output;
};

CliRun run_gauntlet(const std::string& environment, const std::string& arguments) {
  std::string command =
      environment + " '" + gauntlet::testing::gauntlet_exe() + "' " + arguments + " 2>&1";
  CliRun run;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) return run;
  char buffer[4096];
  size_t n = 0;
  while ((n = ::fread(buffer, 1, sizeof buffer, pipe)) > 0) run.output.append(buffer, n);
  int status = ::pclose(pipe);
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return run;
}

TEST(DoctorCli, BrokenIcdExitsNonZeroAndNamesTheFile) {
  TempDir dir("doctor-cli");
  auto icd = dir.write("vendors/broken.icd", "libgauntlet-missing-driver.so.1\n");
  auto vk = dir.write("vk/lvp.json", R"({"ICD":{"library_path":"libvulkan_lvp.so"}})");
  std::string env = "OCL_ICD_VENDORS='" + (dir.path() / "vendors").string() +
                    "' VK_DRIVER_FILES='" + vk.string() + "' GAUNTLET_DEV_ROOT='" +
                    dir.path().string() + "'";
  CliRun table = run_gauntlet(env, "doctor");
  EXPECT_EQ(table.exit_code, 1) << table.output;
  EXPECT_NE(table.output.find(icd.string()), std::string::npos) << table.output;
  EXPECT_NE(table.output.find("fix:"), std::string::npos) << table.output;

  CliRun json = run_gauntlet(env, "doctor --json");
  EXPECT_EQ(json.exit_code, 1) << json.output;
  auto parsed = core::parse_json(json.output, "doctor --json output");
  ASSERT_TRUE(parsed) << parsed.error().describe() << "\n" << json.output;
  EXPECT_EQ((*parsed)["passed"], false);
  bool named = false;
  for (const auto& row : (*parsed)["doctor"]) {
    if (row["id"] == "doctor.opencl.vendor:" + icd.string()) {
      named = true;
      EXPECT_EQ(row["status"], "fail");
    }
  }
  EXPECT_TRUE(named) << json.output;
}

TEST(DoctorCli, UnknownFlagIsAUsageError) {
  CliRun run = run_gauntlet("", "doctor --no-such-flag");
  EXPECT_EQ(run.exit_code, 2) << run.output;
}

}  // namespace
}  // namespace gauntlet::probes
