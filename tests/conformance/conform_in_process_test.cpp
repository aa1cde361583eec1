// The in-process devices (host, cpu) through the workgroup rows: a workgroup of one work-item,
// computed by limits.cl's kernels in C++, passes (a bare `gauntlet conform --device cpu` exited 1
// while those kernels had no C++ form).
#include "tests/conformance/conform_fixture.h"

namespace gauntlet::conformance::testing {
namespace {

TEST(ConformInProcess, TheWorkgroupRowsPassWithAWorkgroupOfOne) {
  for (const char* device : {"host", "cpu"}) {
    SCOPED_TRACE(device);
    const auto r = run(device, "conform.workgroup.*");
    for (const char* id : {"conform.workgroup.plain", "conform.workgroup.barrier"}) {
      const core::Row* row = find_row(r, id);
      ASSERT_NE(row, nullptr) << rows_text(r);
      EXPECT_EQ(row->status, core::RowStatus::pass) << id << ": " << row->reason;
      EXPECT_EQ(row->metrics.value("largest", 0u), 1u) << id;
    }
    EXPECT_EQ(verdict(r, "workgroup"), Verdict::verified);
  }
}

}  // namespace
}  // namespace gauntlet::conformance::testing
