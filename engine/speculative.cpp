#include "engine/speculative.h"

#include <algorithm>
#include <string>

#include "engine/reference/decoder.h"

namespace gauntlet::engine {

namespace {

core::Result<std::span<const float>> feed(Decoder& d, std::span<const int32_t> tokens,
                                          bool last_logits) {
  std::vector<BatchToken> batch;
  for (size_t i = 0; i < tokens.size(); ++i) {
    batch.push_back({tokens[i], 0, last_logits && i + 1 == tokens.size()});
  }
  return d.forward(batch);
}

}  // namespace

core::Result<std::vector<int32_t>> speculative_greedy(Decoder& target, Decoder& draft,
                                                      std::span<const int32_t> prompt, uint32_t n,
                                                      uint32_t n_vocab, const SpeculativeOptions& o,
                                                      SpeculativeStats& stats) {
  if (prompt.empty() || o.draft_max == 0 || o.draft_min > o.draft_max) {
    return core::make_error(core::ErrorKind::invalid_argument,
                            "speculative decoding needs a prompt, a draft-max of at least 1 "
                            "and a draft-min of at most draft-max (draft-max " +
                                std::to_string(o.draft_max) + ", draft-min " +
                                std::to_string(o.draft_min) + ")");
  }
  // Both decoders take the prompt but its last token, which opens the first check.
  if (prompt.size() > 1) {
    const auto head = prompt.first(prompt.size() - 1);
    if (auto r = feed(target, head, false); !r) return r.error();
    if (auto r = feed(draft, head, false); !r) return r.error();
  }
  std::vector<int32_t> out;
  int32_t last = prompt.back();  // the newest token, fed to neither decoder yet
  // Tokens before `last` that the draft has not been fed (its drafts ran out, or it sat out).
  std::vector<int32_t> behind;
  while (out.size() < n) {
    const auto left = static_cast<uint32_t>(n - out.size());
    // The target adds one token of its own after the drafts it accepts.
    uint32_t k = std::min(o.draft_max, left - 1);
    if (k < std::max(o.draft_min, 1u)) k = 0;
    std::vector<int32_t> drafts;
    if (k > 0) {
      behind.push_back(last);
      auto l = feed(draft, behind, true);
      if (!l) return l.error();
      behind.clear();
      drafts.push_back(reference::argmax(*l));
      while (drafts.size() < k) {
        auto next = draft.step(drafts.back());
        if (!next) return next.error();
        drafts.push_back(reference::argmax(*next));
      }
      ++stats.checks;
    } else {
      behind.push_back(last);
    }
    const uint32_t base = target.position(0);
    std::vector<BatchToken> check{{last, 0, true}};
    for (int32_t d : drafts) check.push_back({d, 0, true});
    auto logits = target.forward(check);
    if (!logits) return logits.error();
    auto row = [&](size_t i) { return logits->subspan(i * n_vocab, n_vocab); };
    uint32_t accepted = 0;
    while (accepted < drafts.size() && reference::argmax(row(accepted)) == drafts[accepted]) {
      ++accepted;
    }
    const int32_t own = reference::argmax(row(accepted));
    out.insert(out.end(), drafts.begin(), drafts.begin() + accepted);
    out.push_back(own);
    stats.drafted += drafts.size();
    stats.accepted += accepted;
    // The target keeps `last` and the accepted drafts; the draft fed `last` and all but its last
    // draft, and keeps what was accepted of them (the rest of the accepted ones it is fed later).
    GAUNTLET_TRY(target.rewind(0, base + 1 + accepted));
    if (k > 0) {
      const uint32_t kept = std::min(accepted, k - 1);
      GAUNTLET_TRY(draft.rewind(0, base + 1 + kept));
      behind.insert(behind.end(), drafts.begin() + kept, drafts.begin() + accepted);
    }
    last = own;
  }
  return out;
}

}  // namespace gauntlet::engine
