#pragma once
// Profiles grouped by the cause of their verdict (internal to reports/): the text, markdown and
// HTML summaries print one line per cause with how many profiles it rules out and which families
// (formats, KV types, activations, variants, contexts, passes) they span, never a line per
// profile.
#include <string>
#include <vector>

#include "reports/report.h"

namespace gauntlet::reports::detail {

// A profile's cause: its own (schema 1.5), or for an older report one read from its reason.
Cause cause_of(const Profile& profile);

struct CauseGroup {
  Cause cause;                           // key and subject; figures of the first profile
  std::string text;                      // "matmul needs 65536-704512 B of local memory > 524288 B"
  std::vector<const Profile*> profiles;  // in the report's order
  // "formats F16, Q8_0; KV f32, f16; activations f32; variants wg64-whole; contexts 512-65536
  // (8); passes 1 token, pp512"
  std::string families() const;
};

// The profiles of `verdict`, grouped by cause key and subject, the largest group first.
std::vector<CauseGroup> group_by_cause(const std::vector<Profile>& profiles,
                                       ProfileVerdict verdict);

// "1 token", "pp512", "4 seqs": a profile's pass in llama-bench's words.
std::string pass_label(const Profile& profile);

}  // namespace gauntlet::reports::detail
