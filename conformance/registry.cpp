#include "conformance/registry.h"

#include "core/options.h"

namespace gauntlet::conformance {

bool glob_match(const std::string& pattern, const std::string& text) {
  size_t p = 0, t = 0, star = std::string::npos, mark = 0;
  while (t < text.size()) {
    if (p < pattern.size() && (pattern[p] == '?' || pattern[p] == text[t])) {
      ++p;
      ++t;
    } else if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      mark = t;
    } else if (star != std::string::npos) {
      p = star + 1;
      t = ++mark;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

bool CaseContext::wants(const std::string& id) const {
  // A comma list of globs; a glob without "conform." matches as if it had it.
  size_t start = 0;
  while (start <= filter.size()) {
    size_t end = filter.find(',', start);
    if (end == std::string::npos) end = filter.size();
    const std::string glob = filter.substr(start, end - start);
    if (!glob.empty() && (glob_match(glob, id) || glob_match("conform." + glob, id))) return true;
    start = end + 1;
  }
  return false;
}

size_t CaseContext::elements() const {
  switch (level) {
    case core::Level::quick:
      return 1024;
    case core::Level::standard:
      return 16384;
    default:
      return 65536;
  }
}

unsigned CaseContext::seed_count() const {
  switch (level) {
    case core::Level::quick:
      return 1;
    case core::Level::standard:
      return 2;
    default:
      return 4;
  }
}

std::string CaseContext::fault(const std::string& site) const {
  return options.fault_for(site).value_or("");
}

const std::vector<Family>& families() {
  static const std::vector<Family> all = {dtype_family(), convert_family(), quant_family(),
                                          local_memory_family(), workgroup_family()};
  return all;
}

const CaseSpec* find_case(const std::string& row_id) {
  for (const Family& f : families()) {
    for (const CaseSpec& c : f.cases) {
      if (c.id == row_id) return &c;
    }
  }
  return nullptr;
}

}  // namespace gauntlet::conformance
