#pragma once
// The fit answers of a device as rows of text (internal to reports/): every renderer shows the
// same columns.
#include <optional>
#include <string>
#include <vector>

#include "reports/report.h"

namespace gauntlet::reports::detail {

// "fit (planned against <budget>, <basis>; as llama.cpp allocates: ..., <kv_cache> KV cache ...)".
std::string fit_title(const std::vector<FitAnswer>& fit);
// "memory: one pool with the host ..." or "memory: VRAM ..., the host side in host memory apart",
// with what other processes hold and each driver figure clamped (raw and used); empty without one.
std::vector<std::string> memory_pool_lines(const std::optional<MemoryPool>& pool);
// Header first: FORMAT, WEIGHTS, FITS UP TO, PLANNED, KV CACHE, WHY.
std::vector<std::vector<std::string>> fit_rows(const std::vector<FitAnswer>& fit);

}  // namespace gauntlet::reports::detail
