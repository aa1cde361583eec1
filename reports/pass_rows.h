#pragma once
// A device's measured passes as rows of text (internal to reports/): every renderer shows the same
// columns, in llama-bench's vocabulary (pp512: prompt tokens per second, tg128: generated ones).
#include <string>
#include <vector>

#include "reports/report.h"

namespace gauntlet::reports::detail {

// "pp512" / "tg8" from a profile's figures, or "" where it has none.
std::string pp_label(const ProfileFigures& f);
std::string tg_label(const ProfileFigures& f);
// Header first: PROFILE, VERDICT, PP, TG, GFLOP/S, OF F32 PEAK; one row per profile with a
// measured prompt rate. Empty when no profile has one.
std::vector<std::vector<std::string>> pass_rows(const std::vector<Profile>& profiles);

}  // namespace gauntlet::reports::detail
