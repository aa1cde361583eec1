#include "cli/huge_pages.h"

#include <unistd.h>

#include <cstdlib>
#include <string>

namespace gauntlet::cli {

void restart_with_huge_pages(char** argv) {
  const char* tunables = std::getenv("GLIBC_TUNABLES");
  std::string value = tunables != nullptr ? tunables : "";
  if (value.find("glibc.malloc.hugetlb") != std::string::npos) return;
  value += (value.empty() ? "" : ":") + std::string("glibc.malloc.hugetlb=1");
  if (::setenv("GLIBC_TUNABLES", value.c_str(), 1) != 0) return;
  ::execv("/proc/self/exe", argv);
}

}  // namespace gauntlet::cli
