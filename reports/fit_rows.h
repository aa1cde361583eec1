#pragma once
// The fit answers of a device as rows of text (internal to reports/): every renderer shows the
// same columns.
#include <string>
#include <vector>

#include "reports/report.h"

namespace gauntlet::reports::detail {

// "fit (planned against <budget>, <basis>; as llama.cpp allocates: ..., <kv_cache> KV cache ...)".
std::string fit_title(const std::vector<FitAnswer>& fit);
// Header first: FORMAT, WEIGHTS, FITS UP TO, PLANNED, KV CACHE, WHY.
std::vector<std::vector<std::string>> fit_rows(const std::vector<FitAnswer>& fit);

}  // namespace gauntlet::reports::detail
