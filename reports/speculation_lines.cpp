#include "reports/speculation_lines.h"

#include <cstdio>
#include <filesystem>

namespace gauntlet::reports::detail {

std::vector<std::string> speculation_lines(const std::optional<SpeculationResult>& s) {
  if (!s) return {};
  if (!s->error.empty()) return {"speculative: not run: " + s->error};
  const std::string draft = std::filesystem::path(s->draft).filename().string();
  char text[320];
  if (!s->tokens_match) {
    std::snprintf(text, sizeof text,
                  "speculative: draft %s on %s: greedy tokens differ from token %llu of %u: the "
                  "profile is unsafe",
                  draft.c_str(), s->profile.c_str(),
                  static_cast<unsigned long long>(s->first_difference), s->tokens);
    return {text};
  }
  const double rate =
      s->drafted == 0 ? 0.0
                      : 100.0 * static_cast<double>(s->accepted) / static_cast<double>(s->drafted);
  const double speedup = s->plain_tok_s > 0 ? s->speculative_tok_s / s->plain_tok_s : 0.0;
  std::snprintf(text, sizeof text,
                "speculative: draft %s on %s: %u greedy tokens the same as without it; %llu of "
                "%llu drafted accepted (%.0f %%); %.1f tok/s against %.1f (%.2fx)",
                draft.c_str(), s->profile.c_str(), s->tokens,
                static_cast<unsigned long long>(s->accepted),
                static_cast<unsigned long long>(s->drafted), rate, s->speculative_tok_s,
                s->plain_tok_s, speedup);
  return {text};
}

}  // namespace gauntlet::reports::detail
