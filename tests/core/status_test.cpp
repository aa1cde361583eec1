#include "core/status.h"

#include <gtest/gtest.h>

namespace gauntlet::core {
namespace {

TEST(Status, AnErrorKnowsTheLineThatMadeIt) {
  const int line = __LINE__ + 1;
  const Error e = make_error(ErrorKind::invalid_argument, "no such file 'x.gguf'", "host");
  EXPECT_EQ(e.where, "tests/core/status_test.cpp:" + std::to_string(line));
  // A user's mistake reads as before, without the source line.
  EXPECT_EQ(e.describe(), "host: no such file 'x.gguf'");
}

TEST(Status, AnInternalErrorNamesWhereItArose) {
  const int line = __LINE__ + 1;
  const Error e = make_error(ErrorKind::internal, "journal unit without payload");
  EXPECT_EQ(e.describe(), "journal unit without payload (at tests/core/status_test.cpp:" +
                              std::to_string(line) + ")");
}

TEST(Status, AnApiErrorKnowsItsLineToo) {
  const int line = __LINE__ + 1;
  const Error e = api_error("clFinish", -5, "CL_OUT_OF_RESOURCES", "opencl:0");
  EXPECT_EQ(e.where, "tests/core/status_test.cpp:" + std::to_string(line));
  EXPECT_EQ(e.describe(), "opencl:0: clFinish returned -5 (CL_OUT_OF_RESOURCES)");
}

}  // namespace
}  // namespace gauntlet::core
