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
// What the answers plan beside the model, one line each: "vision projector (--mmproj) p.gguf on
// the device ...: 260.1 MiB", "draft model (-md) d.gguf on the device beside the model ...:
// 93.5 MiB at context 4096 (F16, Q8_0)"; empty without any.
std::vector<std::string> fit_companion_lines(const std::vector<FitAnswer>& fit);
// Header first: FORMAT, WEIGHTS, FITS UP TO, PLANNED, KV CACHE, WHY.
std::vector<std::vector<std::string>> fit_rows(const std::vector<FitAnswer>& fit);

}  // namespace gauntlet::reports::detail
