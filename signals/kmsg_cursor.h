#pragma once
// A cursor on the kernel log: opened without blocking at the log's end before a unit, read after
// it for the records written in between. The path is /dev/kmsg by default; a regular file or a
// FIFO works the same (tests write one). /dev/kmsg hands one record per read(); other files are
// split into records at line ends (a line starting with a space continues the record before).
#include <cstddef>
#include <string>
#include <vector>

#include "core/status.h"
#include "signals/kmsg_record.h"

namespace gauntlet::signals {

struct KmsgBatch {
  std::vector<KmsgRecord> records;
  std::vector<std::string> problems;  // records that did not parse, named
  size_t lost = 0;                    // times the kernel overwrote records before they were read
};

class KmsgCursor {
 public:
  // Opens `path` (O_RDONLY | O_NONBLOCK) and seeks to its end. A refusal (no permission,
  // dmesg_restrict, no such file) is "kernel log not readable (<path>: <reason>)".
  static core::Result<KmsgCursor> take(const std::string& path = "/dev/kmsg");
  // Opens `path` at its oldest record (/dev/kmsg: the oldest the ring still holds), for a reader
  // that skips what it saw by record number (`gauntlet health`).
  static core::Result<KmsgCursor> from_start(const std::string& path = "/dev/kmsg");

  KmsgCursor(KmsgCursor&& other) noexcept;
  KmsgCursor& operator=(KmsgCursor&& other) noexcept;
  KmsgCursor(const KmsgCursor&) = delete;
  KmsgCursor& operator=(const KmsgCursor&) = delete;
  ~KmsgCursor();

  // The records written since the cursor was taken or last read, up to EAGAIN or end of file.
  core::Result<KmsgBatch> read();

  const std::string& path() const { return path_; }

 private:
  KmsgCursor(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}
  void split_into(KmsgBatch& batch);

  int fd_ = -1;
  std::string path_;
  std::string pending_;  // bytes of a record not yet ended by a newline
};

}  // namespace gauntlet::signals
