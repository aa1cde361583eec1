// The doctor on this machine's real environment: PoCL's vendor file and Mesa's manifests
// (llvmpipe, and the intel/radeon drivers whose libraries load without hardware) must pass.
#include <gtest/gtest.h>

#include "probes/doctor.h"
#include "tests/probes/doctor_test_support.h"

namespace gauntlet::probes {
namespace {

using core::RowStatus;
using testing::find_row;
using testing::ScopedEnv;

class DoctorDrivers : public ::testing::Test {
 protected:
  ScopedEnv a_{"OCL_ICD_VENDORS", std::nullopt};
  ScopedEnv b_{"OCL_ICD_FILENAMES", std::nullopt};
  ScopedEnv c_{"VK_DRIVER_FILES", std::nullopt};
  ScopedEnv d_{"VK_ICD_FILENAMES", std::nullopt};
  ScopedEnv e_{"VK_ADD_DRIVER_FILES", std::nullopt};
};

TEST_F(DoctorDrivers, PoclVendorFilePasses) {
  auto rows = run_doctor(core::Options{});
  const auto* pocl = find_row(rows, "doctor.opencl.vendor:/etc/OpenCL/vendors/pocl.icd");
  ASSERT_NE(pocl, nullptr) << "PoCL's vendor file is missing: install pocl-opencl-icd";
  EXPECT_EQ(pocl->status, RowStatus::pass) << pocl->reason;
  EXPECT_NE(pocl->metrics.value("resolved", "").find("libpocl.so"), std::string::npos);
  for (const auto& row : rows) {
    if (row.id.rfind("doctor.opencl.", 0) == 0) {
      EXPECT_EQ(row.status, RowStatus::pass) << row.id << ": " << row.reason;
    }
  }
  EXPECT_EQ(find_row(rows, "doctor.opencl.vendors")->metrics["source"], "default");
}

TEST_F(DoctorDrivers, MesaManifestsPass) {
  auto rows = run_doctor(core::Options{});
  const auto* lvp = find_row(rows, "doctor.vulkan.icd:/usr/share/vulkan/icd.d/lvp_icd.x86_64.json");
  ASSERT_NE(lvp, nullptr) << "llvmpipe's manifest is missing: install mesa-vulkan-drivers";
  EXPECT_EQ(lvp->status, RowStatus::pass) << lvp->reason;
  EXPECT_NE(lvp->metrics.value("library", "").find("libvulkan_lvp.so"), std::string::npos);
  EXPECT_EQ(lvp->metrics["symbols"][0], "vk_icdGetInstanceProcAddr");
  int manifests = 0;
  for (const auto& row : rows) {
    if (row.id.rfind("doctor.vulkan.", 0) == 0) {
      EXPECT_EQ(row.status, RowStatus::pass) << row.id << ": " << row.reason;
      manifests += row.id.rfind("doctor.vulkan.icd:", 0) == 0;
    }
  }
  EXPECT_EQ(find_row(rows, "doctor.vulkan.icds")->metrics["count"], manifests);
}

TEST_F(DoctorDrivers, ThisMachinePassesOverall) {
  auto rows = run_doctor(core::Options{});
  EXPECT_TRUE(core::all_passed(rows));
  for (const auto& row : rows) {
    EXPECT_TRUE(core::all_passed({row})) << row.id << ": " << row.reason;
  }
}

}  // namespace
}  // namespace gauntlet::probes
