#pragma once
// Status and Result: how errors cross module edges (no exceptions across a module edge).
#include <string>
#include <utility>
#include <variant>

#include "core/source_location.h"

namespace gauntlet::core {

enum class ErrorKind {
  invalid_argument,  // bad input from the user or a file
  not_found,         // a device, file or entry that does not exist
  unsupported,       // the device or build does not offer the feature
  out_of_memory,     // an allocation the device or host refused
  api_error,         // an API call returned an error code
  device_lost,
  timeout,
  io_error,
  internal,
};

const char* to_string(ErrorKind kind);

// An error names what failed: the API call and its result code where there is one, and the
// device it ran on, so that a report row can be read without the source code at hand.
struct Error {
  ErrorKind kind = ErrorKind::internal;
  std::string message;
  std::string api_call;  // e.g. "clBuildProgram"
  long long result_code = 0;
  std::string result_name;  // e.g. "CL_OUT_OF_RESOURCES"
  std::string device;       // e.g. "opencl:0"
  std::string where;        // the source line that made it, e.g. "harness/run.cpp:120"

  // Ends with " (at <where>)" for an internal error, a defect of gauntlet to report with it.
  std::string describe() const;
};

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(Error error) : error_(std::move(error)), ok_(false) {}  // NOLINT: implicit by design

  static Status ok() { return {}; }
  bool is_ok() const { return ok_; }
  explicit operator bool() const { return ok_; }
  const Error& error() const { return error_; }
  std::string describe() const { return ok_ ? "ok" : error_.describe(); }

 private:
  Error error_;
  bool ok_ = true;
};

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}      // NOLINT: implicit by design
  Result(Error error) : v_(std::move(error)) {}  // NOLINT
  Result(Status status) : v_(status.error()) {}  // NOLINT: only from a failed Status

  bool is_ok() const { return std::holds_alternative<T>(v_); }
  explicit operator bool() const { return is_ok(); }
  T& value() & { return std::get<T>(v_); }
  const T& value() const& { return std::get<T>(v_); }
  T&& value() && { return std::get<T>(std::move(v_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  const Error& error() const { return std::get<Error>(v_); }
  Status status() const { return is_ok() ? Status::ok() : Status(error()); }

 private:
  std::variant<T, Error> v_;
};

Error make_error(ErrorKind kind, std::string message, std::string device = {},
                 core::SourceLocation at = core::SourceLocation::current());
// make_error(ErrorKind::invalid_argument, message), where the caller is.
inline Error invalid_argument(std::string message,
                              core::SourceLocation at = core::SourceLocation::current()) {
  return make_error(ErrorKind::invalid_argument, std::move(message), {}, at);
}
Error api_error(std::string api_call, long long code, std::string code_name, std::string device,
                std::string message = {},
                core::SourceLocation at = core::SourceLocation::current());
// "core/status.cpp:12": the file as the repository names it, and the line.
std::string where_text(const core::SourceLocation& at);

}  // namespace gauntlet::core

// Returns early from the enclosing function with the failed status of `expr`.
#define GAUNTLET_TRY(expr)                                          \
  do {                                                              \
    auto gauntlet_status_ = (expr);                                 \
    if (!gauntlet_status_.is_ok()) return gauntlet_status_.error(); \
  } while (0)
