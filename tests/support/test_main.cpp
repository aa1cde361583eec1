// The tests' main: GoogleTest's, except that in a build without OpenCL or Vulkan
// (-DGAUNTLET_WITH_OPENCL=OFF or -DGAUNTLET_WITH_VULKAN=OFF) the tests that need the missing API
// (tests/support/needs_api.h) are filtered out. A ctest entry left with nothing to run prints
// kSkippedBecauseOfTheBuild, which its SKIP_REGULAR_EXPRESSION turns into a skip; on a build
// with both APIs every test runs, and a missing driver fails as before.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "build_options.h"
#include "tests/support/needs_api.h"

namespace {

#ifdef GAUNTLET_WITH_OPENCL
constexpr bool kBuiltWithOpenCl = true;
#else
constexpr bool kBuiltWithOpenCl = false;
#endif
#ifdef GAUNTLET_WITH_VULKAN
constexpr bool kBuiltWithVulkan = true;
#else
constexpr bool kBuiltWithVulkan = false;
#endif

std::string missing_api_filter(std::string* missing) {
  std::string negative;
  auto leave_out = [&](std::initializer_list<const char*> patterns) {
    for (const char* p : patterns) negative += (negative.empty() ? "" : ":") + std::string(p);
  };
  using namespace gauntlet::testing;
  if (!kBuiltWithOpenCl) {
    *missing = "OpenCL";
    leave_out(kNeedsOpenCl);
  }
  if (!kBuiltWithVulkan) {
    *missing += (missing->empty() ? "" : " and ") + std::string("Vulkan");
    leave_out(kNeedsVulkan);
  }
  if (!missing->empty()) leave_out(kNeedsEveryApi);
  return negative;
}

}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  std::string missing;
  const std::string negative = missing_api_filter(&missing);
  // Listed all the same (ctest's discovery), so that each shows as skipped rather than absent.
  if (negative.empty() || GTEST_FLAG_GET(list_tests)) return RUN_ALL_TESTS();
  std::string filter = GTEST_FLAG_GET(filter);
  filter += (filter.find('-') == std::string::npos ? "-" : ":") + negative;
  GTEST_FLAG_SET(filter, filter);
  const int status = RUN_ALL_TESTS();
  if (::testing::UnitTest::GetInstance()->test_to_run_count() == 0) {
    std::printf("%s: this build leaves out %s\n", gauntlet::testing::kSkippedBecauseOfTheBuild,
                missing.c_str());
  }
  return status;
}
