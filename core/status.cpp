#include "core/status.h"

#include <string_view>

namespace gauntlet::core {

const char* to_string(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::invalid_argument:
      return "invalid argument";
    case ErrorKind::not_found:
      return "not found";
    case ErrorKind::unsupported:
      return "unsupported";
    case ErrorKind::out_of_memory:
      return "out of memory";
    case ErrorKind::api_error:
      return "API error";
    case ErrorKind::device_lost:
      return "device lost";
    case ErrorKind::timeout:
      return "timeout";
    case ErrorKind::io_error:
      return "I/O error";
    case ErrorKind::internal:
      return "internal error";
  }
  return "unknown error";
}

std::string Error::describe() const {
  std::string out;
  if (!device.empty()) out += device + ": ";
  if (!api_call.empty()) {
    out += api_call + " returned " + std::to_string(result_code);
    if (!result_name.empty()) out += " (" + result_name + ")";
    if (!message.empty()) out += ": ";
  }
  out += message;
  if (out.empty()) out = to_string(kind);
  if (kind == ErrorKind::internal && !where.empty()) out += " (at " + where + ")";
  return out;
}

std::string where_text(const core::SourceLocation& at) {
  std::string_view file = at.file_name();
  if (file.starts_with(GAUNTLET_SOURCE_DIR))
    file.remove_prefix(std::string_view(GAUNTLET_SOURCE_DIR).size());
  // A build folder inside the repository compiles ../../core/x.cpp.
  while (file.starts_with("../")) file.remove_prefix(3);
  std::string out(file);
  out.append(":").append(std::to_string(at.line()));
  return out;
}

Error make_error(ErrorKind kind, std::string message, std::string device, core::SourceLocation at) {
  Error e;
  e.kind = kind;
  e.message = std::move(message);
  e.device = std::move(device);
  e.where = where_text(at);
  return e;
}

Error api_error(std::string api_call, long long code, std::string code_name, std::string device,
                std::string message, core::SourceLocation at) {
  Error e;
  e.where = where_text(at);
  e.kind = ErrorKind::api_error;
  e.api_call = std::move(api_call);
  e.result_code = code;
  e.result_name = std::move(code_name);
  e.device = std::move(device);
  e.message = std::move(message);
  return e;
}

}  // namespace gauntlet::core
