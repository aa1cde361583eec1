#include "core/isolate.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <thread>
#include <vector>

namespace gauntlet::core {
namespace {

IsolationLimits limits_ms(int timeout_ms) {
  IsolationLimits limits;
  limits.timeout = std::chrono::milliseconds(timeout_ms);
  limits.grace = std::chrono::milliseconds(200);
  return limits;
}

TEST(Isolate, ReturnsRowsFromTheChild) {
  auto rows = run_isolated_rows("unit", "host", limits_ms(10'000), [] {
    Row row = make_row("unit.a", "host", RowStatus::pass);
    row.metrics["value"] = 42;
    return std::vector<Row>{row, make_row("unit.b", "host", RowStatus::unsupported, "no fp16")};
  });
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].id, "unit.a");
  EXPECT_EQ(rows[0].metrics["value"], 42);
  EXPECT_GT(rows[0].metrics["peak_rss_kb"].get<long>(), 0);
  EXPECT_EQ(rows[1].status, RowStatus::unsupported);
  EXPECT_EQ(rows[1].reason, "no fp16");
}

TEST(Isolate, ASegfaultBecomesACrashRowNamingTheSignal) {
  auto rows =
      run_isolated_rows("unit.crash", "opencl:0", limits_ms(10'000), []() -> std::vector<Row> {
        ::raise(SIGSEGV);
        return {};
      });
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].status, RowStatus::crash);
  EXPECT_EQ(rows[0].device, "opencl:0");
  EXPECT_NE(rows[0].reason.find("SIGSEGV"), std::string::npos) << rows[0].reason;
  EXPECT_EQ(rows[0].metrics["signal"], SIGSEGV);
}

TEST(Isolate, AHangBecomesATimeoutRowWithinTheLimit) {
  auto start = std::chrono::steady_clock::now();
  auto rows = run_isolated_rows("unit.hang", "vulkan:0", limits_ms(300), []() -> std::vector<Row> {
    for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
  });
  double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].status, RowStatus::timeout);
  EXPECT_NE(rows[0].reason.find("300 ms"), std::string::npos) << rows[0].reason;
  EXPECT_LT(elapsed, 3.0);
}

TEST(Isolate, AChildIgnoringSigtermIsKilled) {
  auto rows = run_isolated_rows("unit.stubborn", "", limits_ms(200), []() -> std::vector<Row> {
    ::signal(SIGTERM, SIG_IGN);
    for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
  });
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].status, RowStatus::timeout);
}

TEST(Isolate, ANonZeroExitBecomesAnErrorRow) {
  auto rows = run_isolated_rows("unit.exit", "", limits_ms(10'000),
                                []() -> std::vector<Row> { ::_exit(7); });
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].status, RowStatus::error);
  EXPECT_NE(rows[0].reason.find("code 7"), std::string::npos) << rows[0].reason;
}

TEST(Isolate, AnExceptionBecomesAnErrorRowWithItsMessage) {
  auto rows = run_isolated_rows("unit.throw", "", limits_ms(10'000), []() -> std::vector<Row> {
    throw std::runtime_error("driver said no");
  });
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].status, RowStatus::error);
  EXPECT_NE(rows[0].reason.find("driver said no"), std::string::npos);
}

TEST(Isolate, PeakRssOfTheChildIsRecorded) {
  auto run = run_isolated("unit.alloc", "", limits_ms(10'000), [] {
    std::vector<char> big(64 << 20, 1);
    return Json(static_cast<int>(big[12345]));
  });
  ASSERT_TRUE(run.completed);
  EXPECT_EQ(run.payload, 1);
  EXPECT_GT(run.peak_rss_kb, 64 * 1024);
}

}  // namespace
}  // namespace gauntlet::core
