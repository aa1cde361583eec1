#pragma once
// Shared by the doctor tests: a scratch folder and environment variables restored on exit.
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "core/outcome.h"
#include "tests/support/temp_dir.h"

namespace gauntlet::probes::testing {

class ScopedEnv {
 public:
  ScopedEnv(std::string name, const std::optional<std::string>& value) : name_(std::move(name)) {
    if (const char* old = ::getenv(name_.c_str())) old_ = old;
    if (value) {
      ::setenv(name_.c_str(), value->c_str(), 1);
    } else {
      ::unsetenv(name_.c_str());
    }
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;
  ~ScopedEnv() {
    if (old_) {
      ::setenv(name_.c_str(), old_->c_str(), 1);
    } else {
      ::unsetenv(name_.c_str());
    }
  }

 private:
  std::string name_;
  std::optional<std::string> old_;
};

using gauntlet::testing::TempDir;

inline const core::Row* find_row(const std::vector<core::Row>& rows, const std::string& id) {
  for (const auto& row : rows) {
    if (row.id == id) return &row;
  }
  return nullptr;
}

}  // namespace gauntlet::probes::testing
