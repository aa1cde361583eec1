// The doctor on broken environments built in temporary folders. Every test points
// OCL_ICD_VENDORS and VK_DRIVER_FILES at its own files, so no real driver is loaded here.
#include "probes/doctor.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include "tests/probes/doctor_test_support.h"

namespace gauntlet::probes {
namespace {

using core::RowStatus;
using testing::find_row;
using testing::ScopedEnv;
using testing::TempDir;

core::Options dev_root(const std::string& dev) {
  core::Options options;
  options.dev_root = dev;
  return options;
}

std::string fix_of(const core::Row& row) { return row.metrics.value("fix", ""); }

class DoctorTest : public ::testing::Test {
 protected:
  TempDir dir_{"doctor"};
  // A valid manifest whose library is absent keeps the Vulkan checks off the real drivers.
  std::filesystem::path vk_ = dir_.write(
      "vk/none.json",
      R"({"file_format_version":"1.0.0","ICD":{"library_path":"/nonexistent/libvk.so"}})");
  ScopedEnv vk_env_{"VK_DRIVER_FILES", vk_.string()};
  ScopedEnv icd_filenames_{"OCL_ICD_FILENAMES", std::nullopt};
  ScopedEnv vk_icd_{"VK_ICD_FILENAMES", std::nullopt};
  ScopedEnv vk_add_{"VK_ADD_DRIVER_FILES", std::nullopt};
};

TEST_F(DoctorTest, BrokenOpenclVendorFileIsAFailNamingTheFile) {
  auto icd = dir_.write("vendors/broken.icd", "libgauntlet-missing-driver.so.1\n");
  ScopedEnv env("OCL_ICD_VENDORS", (dir_.path() / "vendors").string());
  auto rows = run_doctor(dev_root(dir_.path().string()));
  const auto* row = find_row(rows, "doctor.opencl.vendor:" + icd.string());
  ASSERT_NE(row, nullptr);
  EXPECT_EQ(row->status, RowStatus::fail);
  EXPECT_NE(row->reason.find(icd.string()), std::string::npos) << row->reason;
  EXPECT_NE(row->reason.find("libgauntlet-missing-driver.so.1"), std::string::npos);
  EXPECT_NE(row->reason.find("cannot open shared object file"), std::string::npos) << row->reason;
  EXPECT_NE(fix_of(*row).find(icd.string()), std::string::npos) << fix_of(*row);
  EXPECT_EQ(row->metrics["file"], icd.string());
  const auto* summary = find_row(rows, "doctor.opencl.vendors");
  ASSERT_NE(summary, nullptr);
  EXPECT_EQ(summary->status, RowStatus::pass);
  EXPECT_EQ(summary->metrics["source"], "OCL_ICD_VENDORS");
  EXPECT_EQ(summary->metrics["count"], 1);
  EXPECT_FALSE(core::all_passed(rows));
}

TEST_F(DoctorTest, OpenclVendorsMayNameOneIcdFile) {
  dir_.write("vendors/other.icd", "libother.so\n");
  auto icd = dir_.write("vendors/empty.icd", "  \n");
  ScopedEnv env("OCL_ICD_VENDORS", icd.string());
  auto rows = run_doctor(dev_root(dir_.path().string()));
  EXPECT_EQ(find_row(rows, "doctor.opencl.vendor:" + (dir_.path() / "vendors/other.icd").string()),
            nullptr);
  const auto* row = find_row(rows, "doctor.opencl.vendor:" + icd.string());
  ASSERT_NE(row, nullptr);
  EXPECT_EQ(row->status, RowStatus::fail);
  EXPECT_NE(row->reason.find("is empty"), std::string::npos) << row->reason;
}

TEST_F(DoctorTest, MissingSingleIcdFileFailsByName) {
  auto missing = dir_.path() / "gone.icd";
  ScopedEnv env("OCL_ICD_VENDORS", missing.string());
  auto rows = run_doctor(dev_root(dir_.path().string()));
  const auto* row = find_row(rows, "doctor.opencl.vendor:" + missing.string());
  ASSERT_NE(row, nullptr);
  EXPECT_EQ(row->status, RowStatus::fail);
  EXPECT_NE(row->reason.find("cannot read OpenCL vendor file " + missing.string()),
            std::string::npos)
      << row->reason;
}

TEST_F(DoctorTest, FolderWithoutIcdFilesFails) {
  std::filesystem::create_directories(dir_.path() / "empty");
  ScopedEnv env("OCL_ICD_VENDORS", (dir_.path() / "empty").string());
  auto rows = run_doctor(dev_root(dir_.path().string()));
  const auto* row = find_row(rows, "doctor.opencl.vendors");
  ASSERT_NE(row, nullptr);
  EXPECT_EQ(row->status, RowStatus::fail);
  EXPECT_NE(row->reason.find((dir_.path() / "empty").string()), std::string::npos);
  EXPECT_NE(fix_of(*row).find("pocl-opencl-icd"), std::string::npos);
}

TEST_F(DoctorTest, LibraryThatIsNotADriverFails) {
  auto icd = dir_.write("vendors/libm.icd", "libm.so.6\n");
  ScopedEnv env("OCL_ICD_VENDORS", (dir_.path() / "vendors").string());
  auto rows = run_doctor(dev_root(dir_.path().string()));
  const auto* row = find_row(rows, "doctor.opencl.vendor:" + icd.string());
  ASSERT_NE(row, nullptr);
  EXPECT_EQ(row->status, RowStatus::fail);
  EXPECT_NE(row->reason.find("exports no clGetExtensionFunctionAddress"), std::string::npos)
      << row->reason;
  EXPECT_NE(row->metrics.value("resolved", "").find("libm.so.6"), std::string::npos);
}

TEST_F(DoctorTest, DriverCrashingWhileLoadingIsACrashRow) {
  auto icd = dir_.write("vendors/crash.icd", std::string(GAUNTLET_CRASHING_ICD) + "\n");
  ScopedEnv env("OCL_ICD_VENDORS", (dir_.path() / "vendors").string());
  auto rows = run_doctor(dev_root(dir_.path().string()));
  const auto* row = find_row(rows, "doctor.opencl.vendor:" + icd.string());
  ASSERT_NE(row, nullptr);
  EXPECT_EQ(row->status, RowStatus::crash);
  EXPECT_NE(row->reason.find(icd.string()), std::string::npos) << row->reason;
  EXPECT_NE(row->reason.find("SIGSEGV"), std::string::npos) << row->reason;
  EXPECT_FALSE(core::all_passed(rows));
}

TEST_F(DoctorTest, BrokenVulkanManifestsAreNamed) {
  auto bad_json = dir_.write("vk/bad.json", "{\"ICD\": {\"library_path\": ");
  auto no_icd = dir_.write("vk/noicd.json", R"({"file_format_version":"1.0.0"})");
  auto missing_lib = dir_.write(
      "vk/missing.json",
      R"({"ICD":{"library_path":"/nonexistent/libvulkan_gone.so","api_version":"1.3.0"}})");
  auto relative = dir_.write("vk/rel.json", R"({"ICD":{"library_path":"./libvk_rel.so"}})");
  auto absent = dir_.path() / "vk/absent.json";
  ScopedEnv vk("VK_DRIVER_FILES", bad_json.string() + ":" + no_icd.string() + ":" +
                                      missing_lib.string() + ":" + relative.string() + ":" +
                                      absent.string());
  ScopedEnv ocl("OCL_ICD_VENDORS", (dir_.path() / "nothing").string());
  auto rows = run_doctor(dev_root(dir_.path().string()));

  auto check = [&](const std::filesystem::path& file, const std::string& words) {
    const auto* row = find_row(rows, "doctor.vulkan.icd:" + file.string());
    ASSERT_NE(row, nullptr) << file;
    EXPECT_EQ(row->status, RowStatus::fail) << file;
    EXPECT_NE(row->reason.find(file.string()), std::string::npos) << row->reason;
    EXPECT_NE(row->reason.find(words), std::string::npos) << row->reason;
    EXPECT_FALSE(fix_of(*row).empty());
  };
  check(bad_json, "parse");
  check(no_icd, "has no \"ICD\" object");
  check(missing_lib, "/nonexistent/libvulkan_gone.so");
  check(relative, (dir_.path() / "vk/libvk_rel.so").string());
  check(absent, "cannot read");
  const auto* summary = find_row(rows, "doctor.vulkan.icds");
  ASSERT_NE(summary, nullptr);
  EXPECT_EQ(summary->metrics["source"], "VK_DRIVER_FILES");
  EXPECT_EQ(summary->metrics["count"], 5);
}

TEST_F(DoctorTest, LoadersArePresentHere) {
  ScopedEnv ocl("OCL_ICD_VENDORS", (dir_.path() / "nothing").string());
  auto rows = run_doctor(dev_root(dir_.path().string()));
  for (const char* id : {"doctor.opencl.icd_loader", "doctor.vulkan.loader"}) {
    const auto* row = find_row(rows, id);
    ASSERT_NE(row, nullptr) << id;
    EXPECT_EQ(row->status, RowStatus::pass) << id << ": " << row->reason;
    EXPECT_FALSE(row->metrics.value("resolved", "").empty()) << id;
  }
}

TEST_F(DoctorTest, NoRenderNodesIsSkippedNotFailed) {
  ScopedEnv ocl("OCL_ICD_VENDORS", (dir_.path() / "nothing").string());
  auto rows = run_doctor(dev_root((dir_.path() / "no-dev").string()));
  const auto* row = find_row(rows, "doctor.drm.render_nodes");
  ASSERT_NE(row, nullptr);
  EXPECT_EQ(row->status, RowStatus::skipped);
  EXPECT_NE(row->reason.find("no DRM render nodes"), std::string::npos);
}

TEST_F(DoctorTest, RenderNodesOfAFixtureTree) {
  ScopedEnv ocl("OCL_ICD_VENDORS", (dir_.path() / "nothing").string());
  std::string dev = std::string(GAUNTLET_SOURCE_DIR) + "/tests/drm/fixtures/intel/dev";
  auto rows = run_doctor(dev_root(dev));
  const auto* summary = find_row(rows, "doctor.drm.render_nodes");
  ASSERT_NE(summary, nullptr);
  EXPECT_EQ(summary->status, RowStatus::pass);
  EXPECT_EQ(summary->metrics["count"], 1);  // card0 and card1 are not render nodes
  const auto* node = find_row(rows, "doctor.drm.render_node:" + dev + "/dri/renderD128");
  ASSERT_NE(node, nullptr);
  EXPECT_EQ(node->status, RowStatus::pass);
}

TEST_F(DoctorTest, RenderNodeThisUserMayNotOpenFails) {
  if (::geteuid() == 0) GTEST_SKIP() << "root may open any node; run as a normal user";
  ScopedEnv ocl("OCL_ICD_VENDORS", (dir_.path() / "nothing").string());
  auto node = dir_.write("dev/dri/renderD128", "");
  ::chmod(node.c_str(), 0);
  auto rows = run_doctor(dev_root((dir_.path() / "dev").string()));
  const auto* row = find_row(rows, "doctor.drm.render_node:" + node.string());
  ASSERT_NE(row, nullptr);
  EXPECT_EQ(row->status, RowStatus::fail);
  EXPECT_NE(row->reason.find("may not open " + node.string()), std::string::npos);
  EXPECT_NE(fix_of(*row).find("usermod -aG"), std::string::npos);
}

TEST_F(DoctorTest, EnvironmentRowListsDriverVariables) {
  ScopedEnv ocl("OCL_ICD_VENDORS", (dir_.path() / "nothing").string());
  ScopedEnv pocl("POCL_DEBUG", std::string("0"));
  auto rows = run_doctor(dev_root(dir_.path().string()));
  const auto* row = find_row(rows, "doctor.environment");
  ASSERT_NE(row, nullptr);
  EXPECT_EQ(row->status, RowStatus::pass);
  EXPECT_EQ(row->metrics["variables"]["POCL_DEBUG"], "0");
  EXPECT_EQ(row->metrics["variables"]["OCL_ICD_VENDORS"], (dir_.path() / "nothing").string());
  EXPECT_NE(row->reason.find("POCL_DEBUG=0"), std::string::npos);
}

}  // namespace
}  // namespace gauntlet::probes
