// The kernel log: the /dev/kmsg record parser, the classifier of GPU problems, and the cursor
// over a regular file, a FIFO and (as root) the real /dev/kmsg.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <fstream>

#include "signals/gpu_log.h"
#include "signals/json.h"
#include "signals/kmsg_cursor.h"
#include "signals/kmsg_record.h"
#include "tests/signals/fixtures.h"

namespace gauntlet::signals {
namespace {

std::string fixture_log() {
  std::ifstream in(testing::fixtures() / "kmsg/records.txt");
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

GpuLogEvent classified(std::string_view message) {
  auto event = classify_kernel_message(message);
  EXPECT_TRUE(event.has_value()) << message;
  return event.value_or(GpuLogEvent{});
}

TEST(KmsgRecord, ParsesPriorityFacilitySequenceTimeAndDictionary) {
  const auto record = parse_kmsg_record(
      "12,1012,6000000,-;gauntlet-test: hello\n SUBSYSTEM=pci\n DEVICE=+pci:0000:03:00.0\n");
  ASSERT_TRUE(record) << record.error().message;
  EXPECT_EQ(record->level, 4);
  EXPECT_EQ(record->facility, 1);
  EXPECT_EQ(record->sequence, 1012u);
  EXPECT_EQ(record->usec, 6000000u);
  EXPECT_EQ(record->flags, "-");
  EXPECT_EQ(record->message, "gauntlet-test: hello");
  EXPECT_EQ(record->dictionary.at("DEVICE"), "+pci:0000:03:00.0");
  // Fields after the flags are allowed (the ABI says more may come).
  EXPECT_TRUE(parse_kmsg_record("6,1,2,-,caller=T1;x"));
}

// The kernel escapes bytes outside printable ASCII; a file or FIFO may not: they are escaped the
// same way, so that an event's JSON always dumps (a fuzzer found raw bytes making dump() throw).
TEST(KmsgRecord, BytesOutsidePrintableAsciiAreEscapedAsTheKernelDoes) {
  const auto record = parse_kmsg_record(
      "3,1,2,-;amdgpu 0000:c1:00.0: ring gfx timeout \xff\x01\n"
      " DEVICE=+pci:\xc3\n");
  ASSERT_TRUE(record) << record.error().message;
  EXPECT_EQ(record->message, "amdgpu 0000:c1:00.0: ring gfx timeout \\xff\\x01");
  EXPECT_EQ(record->dictionary.at("DEVICE"), "+pci:\\xc3");
  const auto event = classify_kernel_record(*record);
  ASSERT_TRUE(event);
  EXPECT_NO_THROW((void)to_json(*event).dump());
  const auto raw = classify_kernel_message("NVRM: Xid (PCI:\xfe): 13, x");
  ASSERT_TRUE(raw);
  EXPECT_EQ(raw->bus_id, "\\xfe");
  EXPECT_NO_THROW((void)to_json(*raw).dump());
}

TEST(KmsgRecord, GarbageIsANamedError) {
  for (const char* bad : {"not a record at all", "a,b,c,d;x", "1,2,3;x", "1,2,3,;x", "1,2,x,-;m",
                          "-1,2,3,-;m", "", ";", "6,1,2,-;m\nsecond record"}) {
    const auto record = parse_kmsg_record(bad);
    ASSERT_FALSE(record) << bad;
    EXPECT_EQ(record.error().message.rfind("not a kmsg record (", 0), 0u) << record.error().message;
  }
}

TEST(GpuLog, ClassifiesAmdgpuRingTimeoutsResetsAndMes) {
  auto e = classified("amdgpu 0000:c1:00.0: amdgpu: ring gfx_0.0.0 timeout, signaled seq=1234");
  EXPECT_EQ(e.kind, GpuLogKind::ring_timeout);
  EXPECT_EQ(e.bus_id, "0000:c1:00.0");
  EXPECT_EQ(e.detail, "gfx_0.0.0");
  e = classified("[drm:amdgpu_job_timedout [amdgpu]] *ERROR* ring gfx timeout, signaled seq=9");
  EXPECT_EQ(e.kind, GpuLogKind::ring_timeout);
  EXPECT_EQ(e.bus_id, "");
  EXPECT_EQ(classified("amdgpu 0000:C1:00.0: amdgpu: GPU reset begin!").bus_id, "0000:c1:00.0");
  EXPECT_EQ(classified("amdgpu 0000:c1:00.0: amdgpu: GPU reset begin!").kind,
            GpuLogKind::reset_begin);
  EXPECT_EQ(classified("amdgpu 0000:c1:00.0: amdgpu: GPU reset(2) succeeded!").kind,
            GpuLogKind::reset_succeeded);
  EXPECT_EQ(classified("amdgpu 0000:c1:00.0: amdgpu: GPU reset(3) failed").kind,
            GpuLogKind::reset_failed);
  EXPECT_EQ(classified("amdgpu 0000:c1:00.0: amdgpu: MES failed to respond to msg=MISC").kind,
            GpuLogKind::mes_failed);
  EXPECT_EQ(classified("amdgpu 0000:c1:00.0: [drm] device wedged, needs recovery").kind,
            GpuLogKind::wedged);
}

TEST(GpuLog, ClassifiesIntelHangsWedgingAndCoredumps) {
  auto e = classified("i915 0000:00:02.0: [drm] GPU HANG: ecode 12:1:85dffffb, in llama [1234]");
  EXPECT_EQ(e.kind, GpuLogKind::gpu_hang);
  EXPECT_EQ(e.bus_id, "0000:00:02.0");
  e = classified("xe 0000:03:00.0: [drm] CRITICAL: Xe has declared device 0000:03:00.0 as wedged.");
  EXPECT_EQ(e.kind, GpuLogKind::wedged);
  e = classified("xe 0000:03:00.0: [drm] Check your /sys/class/drm/card0/device/devcoredump/data");
  EXPECT_EQ(e.kind, GpuLogKind::devcoredump);
  EXPECT_EQ(e.detail, "/sys/class/drm/card0/device/devcoredump/data");
}

TEST(GpuLog, ExtractsNvidiasXidAndItsBus) {
  const auto e = classified(
      "NVRM: Xid (PCI:0000:01:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the "
      "bus.");
  EXPECT_EQ(e.kind, GpuLogKind::nvidia_xid);
  EXPECT_EQ(e.xid, 79);
  EXPECT_EQ(e.bus_id, "0000:01:00");
  EXPECT_TRUE(names_device(e, "0000:01:00.0"));
  EXPECT_FALSE(names_device(e, "0000:02:00.0"));
  EXPECT_EQ(classified("NVRM: Xid (0000:41:00): 48, An uncorrectable double bit error").xid, 48);
  EXPECT_FALSE(classify_kernel_message("NVRM: Xid (PCI:0000:01:00): lots"));
  EXPECT_EQ(to_json(e)["xid"], 79);
}

TEST(GpuLog, LeavesOtherLinesAlone) {
  for (const char* line : {"usb 1-1: new high-speed USB device number 2 using xhci_hcd",
                           "i915 0000:00:02.0: [drm] unwedged", "ring buffer resized", "",
                           "amdgpu 0000:c1:00.0: amdgpu: ring gfx_0.0.0 uses VM inv eng 0"}) {
    EXPECT_FALSE(classify_kernel_message(line)) << line;
  }
}

TEST(GpuLog, ARecordsDeviceFillsTheBusIdTheMessageLacks) {
  const auto record =
      parse_kmsg_record("3,5,6,-;[drm] GPU HANG: ecode 1\n DEVICE=+pci:0000:00:02.0\n");
  ASSERT_TRUE(record);
  const auto event = classify_kernel_record(*record);
  ASSERT_TRUE(event);
  EXPECT_EQ(event->bus_id, "0000:00:02.0");
}

TEST(KmsgCursor, ReadsOnlyWhatARegularFileGainedAfterTheCursor) {
  const gauntlet::testing::TempDir dir("signals-kmsg");
  const auto path = dir.write("kmsg", "6,1,1,-;before the cursor\n");
  auto cursor = KmsgCursor::take(path.string());
  ASSERT_TRUE(cursor) << cursor.error().message;
  std::ofstream(path, std::ios::app) << fixture_log();
  auto batch = cursor->read();
  ASSERT_TRUE(batch) << batch.error().message;
  ASSERT_EQ(batch->records.size(), 12u);
  EXPECT_EQ(batch->records.front().sequence, 1001u);
  EXPECT_EQ(batch->records[8].dictionary.at("SUBSYSTEM"), "pci");
  ASSERT_EQ(batch->problems.size(), 1u);
  EXPECT_NE(batch->problems[0].find("not a record at all"), std::string::npos);
  int events = 0;
  for (const auto& record : batch->records) events += classify_kernel_record(record) ? 1 : 0;
  EXPECT_EQ(events, 10);
  EXPECT_TRUE(cursor->read()->records.empty());
}

TEST(KmsgCursor, ARecordCutMidLineWaitsForItsEnd) {
  const gauntlet::testing::TempDir dir("signals-kmsg");
  const auto path = dir.write("kmsg", "");
  auto cursor = KmsgCursor::take(path.string());
  ASSERT_TRUE(cursor);
  std::ofstream(path, std::ios::app) << "6,7,8,-;half a";
  EXPECT_TRUE(cursor->read()->records.empty());
  std::ofstream(path, std::ios::app) << " line\n";
  const auto batch = cursor->read();
  ASSERT_EQ(batch->records.size(), 1u);
  EXPECT_EQ(batch->records[0].message, "half a line");
}

TEST(KmsgCursor, ReadsAFifoATestWrites) {
  const gauntlet::testing::TempDir dir("signals-kmsg");
  const auto path = dir.path() / "fifo";
  ASSERT_EQ(::mkfifo(path.c_str(), 0600), 0);
  auto cursor = KmsgCursor::take(path.string());
  ASSERT_TRUE(cursor) << cursor.error().message;
  const int writer = ::open(path.c_str(), O_WRONLY | O_NONBLOCK);
  ASSERT_GE(writer, 0);
  EXPECT_TRUE(cursor->read()->records.empty());  // EAGAIN: nothing yet
  const std::string lines =
      "3,20,1,-;amdgpu 0000:c1:00.0: amdgpu: ring gfx_0.0.0 timeout\n4,21,2,-;other\n";
  ASSERT_EQ(::write(writer, lines.data(), lines.size()), static_cast<ssize_t>(lines.size()));
  const auto batch = cursor->read();
  ::close(writer);
  ASSERT_TRUE(batch);
  ASSERT_EQ(batch->records.size(), 2u);
  EXPECT_EQ(classify_kernel_record(batch->records[0])->kind, GpuLogKind::ring_timeout);
}

TEST(KmsgCursor, AMissingLogIsNamed) {
  auto missing = KmsgCursor::take("/nonexistent/kmsg");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().message,
            "kernel log not readable (/nonexistent/kmsg: No such file or directory)");
}

TEST(KmsgCursor, ALogWithoutReadPermissionIsNamed) {
  if (::geteuid() == 0) GTEST_SKIP() << "root reads a file of mode 000: no permission to refuse";
  const gauntlet::testing::TempDir dir("signals-kmsg");
  const auto path = dir.write("kmsg", "");
  ::chmod(path.c_str(), 0);
  auto refused = KmsgCursor::take(path.string());
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("kernel log not readable ("), std::string::npos);
  EXPECT_NE(refused.error().message.find("Permission denied"), std::string::npos);
}

// The real kernel log: a line written during the "unit" is read back and classified; what else
// the kernel logged meanwhile is not asserted on.
TEST(KmsgCursor, TheRealKernelLogGivesBackALineWrittenDuringTheUnit) {
  if (::geteuid() != 0) GTEST_SKIP() << "writing to /dev/kmsg needs root";
  auto cursor = KmsgCursor::take();
  ASSERT_TRUE(cursor) << cursor.error().message;
  const std::string marker =
      "gauntlet-test-" + std::to_string(::getpid()) + "-" +
      std::to_string(std::chrono::steady_clock::now().time_since_epoch().count());
  {
    std::ofstream kmsg("/dev/kmsg");
    kmsg << "<4>" << marker << ": amdgpu 0000:c1:00.0: amdgpu: ring gfx_0.0.0 timeout\n";
  }
  auto batch = cursor->read();
  ASSERT_TRUE(batch) << batch.error().message;
  const KmsgRecord* ours = nullptr;
  for (const auto& record : batch->records) {
    if (record.message.find(marker) != std::string::npos) ours = &record;
  }
  ASSERT_NE(ours, nullptr) << batch->records.size() << " records, none ours";
  EXPECT_EQ(ours->level, 4);
  const auto event = classify_kernel_record(*ours);
  ASSERT_TRUE(event);
  EXPECT_EQ(event->kind, GpuLogKind::ring_timeout);
  EXPECT_TRUE(names_device(*event, "0000:c1:00.0"));
}

}  // namespace
}  // namespace gauntlet::signals
