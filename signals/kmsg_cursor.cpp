#include "signals/kmsg_cursor.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace gauntlet::signals {

namespace {
constexpr size_t kMaxPending = size_t{1} << 20;
}  // namespace

core::Result<KmsgCursor> KmsgCursor::take(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    return core::make_error(core::ErrorKind::unsupported,
                            "kernel log not readable (" + path + ": " + std::strerror(errno) + ")");
  }
  // A FIFO cannot seek (ESPIPE): it holds only what is written after it was opened anyway.
  if (::lseek(fd, 0, SEEK_END) < 0 && errno != ESPIPE) {
    const int error = errno;
    ::close(fd);
    return core::make_error(core::ErrorKind::io_error, "kernel log not readable (" + path +
                                                           ": seek: " + std::strerror(error) + ")");
  }
  return KmsgCursor(fd, path);
}

core::Result<KmsgCursor> KmsgCursor::from_start(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    return core::make_error(core::ErrorKind::unsupported,
                            "kernel log not readable (" + path + ": " + std::strerror(errno) + ")");
  }
  return KmsgCursor(fd, path);
}

KmsgCursor::KmsgCursor(KmsgCursor&& other) noexcept
    : fd_(other.fd_), path_(std::move(other.path_)), pending_(std::move(other.pending_)) {
  other.fd_ = -1;
}

KmsgCursor& KmsgCursor::operator=(KmsgCursor&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = other.fd_;
    path_ = std::move(other.path_);
    pending_ = std::move(other.pending_);
    other.fd_ = -1;
  }
  return *this;
}

KmsgCursor::~KmsgCursor() {
  if (fd_ >= 0) ::close(fd_);
}

core::Result<KmsgBatch> KmsgCursor::read() {
  KmsgBatch batch;
  // /dev/kmsg refuses (EINVAL) a buffer smaller than one record; records are at most ~8 KiB.
  char buffer[16384];
  for (;;) {
    const ssize_t n = ::read(fd_, buffer, sizeof buffer);
    if (n > 0) {
      pending_.append(buffer, static_cast<size_t>(n));
      continue;
    }
    if (n == 0) break;
    if (errno == EINTR) continue;
    if (errno == EAGAIN) break;
    if (errno == EPIPE) {  // the ring buffer overwrote records: the next read goes on after them
      ++batch.lost;
      continue;
    }
    return core::make_error(core::ErrorKind::io_error,
                            "kernel log read failed (" + path_ + ": " + std::strerror(errno) + ")");
  }
  split_into(batch);
  if (pending_.size() > kMaxPending) {
    batch.problems.push_back("a kernel log record longer than 1 MiB without a line end: dropped");
    pending_.clear();
  }
  return batch;
}

void KmsgCursor::split_into(KmsgBatch& batch) {
  size_t start = 0;
  const auto flush = [&](size_t end) {
    if (end <= start) return;
    auto record = parse_kmsg_record(std::string_view(pending_).substr(start, end - start));
    if (record) {
      batch.records.push_back(std::move(*record));
    } else {
      batch.problems.push_back(record.error().message);
    }
  };
  size_t line = 0;
  for (;;) {
    const size_t newline = pending_.find('\n', line);
    if (newline == std::string::npos) break;
    const size_t next = newline + 1;
    if (next < pending_.size() && pending_[next] == ' ') {
      line = next;
      continue;
    }
    flush(newline);
    start = line = next;
  }
  pending_.erase(0, start);
}

}  // namespace gauntlet::signals
